# The guest counter library (guestlib/vertigo_counters.h): per-thread
# counters on Vertigo's paravirtual counters through vertigo.ko.
#
#   $(GUEST_DIR)/lib/libvertigo_counters.a   static library: the library and
#                                            the event-name parser it checks
#                                            names with (pmu/pmu_events.c)
#   $(GUEST_DIR)/bin/pv_threads              its end-to-end test program
#                                            (tests/guest/scenarios/threads)
# Programs link it with -lpthread (glibc 2.34 and later: part of libc).
CTR_LIB      := $(GUEST_DIR)/lib/libvertigo_counters.a
CTR_LIB_SRCS := guestlib/vertigo_counters.c pmu/pmu_events.c pmu/swevents.c vmm/format.c \
                vmx/exit_names.c
CTR_LIB_OBJS := $(patsubst %.c,$(GUEST_DIR)/lib/counters/%.o,$(CTR_LIB_SRCS))
CTR_LIB_HDRS := guestlib/vertigo_counters.h guestlib/vertigo_thread_ctr.h \
                guestlib/kmod/vertigo_ioctl.h guestlib/vertigo_vmcall.h \
                include/vertigo/hypercall.h pmu/pmu_events.h

$(GUEST_DIR)/lib/counters/%.o: %.c $(CTR_LIB_HDRS)
	@mkdir -p $(dir $@)
	$(Q)$(GUEST_CC) $(GUEST_CFLAGS) -DVERTIGO_HOSTED=1 -c $< -o $@

$(CTR_LIB): $(CTR_LIB_OBJS)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(GUEST_DIR)/bin/pv_threads: tests/guest/pv_threads.c $(CTR_LIB) $(GUEST_LIB) $(CTR_LIB_HDRS) \
                             $(GUEST_LIB_HDRS)
	@mkdir -p $(dir $@)
	$(Q)$(GUEST_CC) $(GUEST_CFLAGS) $(GUEST_LDFLAGS) $< $(CTR_LIB) $(GUEST_LIB) -lpthread -o $@

GUEST_PROG_BINS += $(GUEST_DIR)/bin/pv_threads
$(GUEST_INITRD): $(GUEST_DIR)/bin/pv_threads
HEADERS_HOST += guestlib/vertigo_counters.h
