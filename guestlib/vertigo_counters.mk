# The guest counter library (guestlib/vertigo_counters.h): per-thread
# counters on Vertigo's paravirtual counters through vertigo.ko.
#
#   $(GUEST_DIR)/lib/libvertigo_counters.a   static library: the library and
#                                            the event-name parser it checks
#                                            names with (pmu/backend/pmu_events.c)
#   $(GUEST_DIR)/lib/libvertigo_counters.so.1.1  the same, shared (soname
#                                            libvertigo_counters.so.1; exports
#                                            vertigo_counters_* only:
#                                            guestlib/vertigo_counters.map)
#   $(CTR_SDK)/                              both installed for programs built
#                                            with pkg-config: include/,
#                                            lib/ (.a, .so links),
#                                            lib/pkgconfig/vertigo_counters.pc
#   $(GUEST_DIR)/bin/pv_threads              its end-to-end test program
#                                            (tests/guest/scenarios/threads)
#   $(GUEST_DIR)/bin/pv_user, pv_cpp         an unprivileged thread's counters,
#                                            and a C++ program on the installed
#                                            tree (the same scenario)
#   $(GUEST_DIR)/bin/pv_cost                 what its reads cost, per counter
#                                            kind (the same scenario), linked
#                                            with the shared library through
#                                            pkg-config; the initramfs carries
#                                            the library as /usr/lib/
#                                            libvertigo_counters.so.1
# Programs link it with -lpthread (glibc 2.34 and later: part of libc).
CTR_LIB      := $(GUEST_DIR)/lib/libvertigo_counters.a
CTR_LIB_SRCS := guestlib/vertigo_counters.c pmu/backend/pmu_events.c pmu/backend/swevents.c lib/format.c \
                lib/exit_names.c
CTR_LIB_OBJS := $(patsubst %.c,$(GUEST_DIR)/lib/counters/%.o,$(CTR_LIB_SRCS))
CTR_LIB_HDRS := guestlib/vertigo_counters.h guestlib/vertigo_thread_ctr.h \
                guestlib/kmod/vertigo_ioctl.h guestlib/vertigo_vmcall.h \
                include/vertigo/hypercall.h include/vertigo/thread_page.h pmu/backend/pmu_events.h

$(GUEST_DIR)/lib/counters/%.o: %.c $(CTR_LIB_HDRS)
	@mkdir -p $(dir $@)
	$(Q)$(GUEST_CC) $(GUEST_CFLAGS) -DVERTIGO_HOSTED=1 -c $< -o $@

$(CTR_LIB): $(CTR_LIB_OBJS)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(GUEST_DIR)/bin/pv_threads: tests/guest/pv_threads.c $(CTR_LIB) $(GUEST_LIB) $(CTR_LIB_HDRS) \
                             $(GUEST_LIB_HDRS)
	@mkdir -p $(dir $@)
	$(Q)$(GUEST_CC) $(GUEST_CFLAGS) $(GUEST_LDFLAGS) $< $(CTR_LIB) $(GUEST_LIB) -lpthread -o $@

# The shared library: the same sources, position-independent.
CTR_VERSION  := 1.2
CTR_SONAME   := libvertigo_counters.so.1
CTR_SO       := $(GUEST_DIR)/lib/libvertigo_counters.so.$(CTR_VERSION)
CTR_PIC_OBJS := $(patsubst %.c,$(GUEST_DIR)/lib/counters-pic/%.o,$(CTR_LIB_SRCS))

$(GUEST_DIR)/lib/counters-pic/%.o: %.c $(CTR_LIB_HDRS)
	@mkdir -p $(dir $@)
	$(Q)$(GUEST_CC) $(GUEST_CFLAGS) -fPIC -DVERTIGO_HOSTED=1 -c $< -o $@

$(CTR_SO): $(CTR_PIC_OBJS) guestlib/vertigo_counters.map
	$(Q)$(GUEST_CC) -shared -Wl,-soname,$(CTR_SONAME) -Wl,-z,defs \
	    -Wl,--version-script=guestlib/vertigo_counters.map $(CTR_PIC_OBJS) -lpthread -o $@

# The installed tree: headers, both libraries, the pkg-config file.
CTR_SDK   := $(GUEST_DIR)/sdk
CTR_STAMP := $(CTR_SDK)/.installed
CTR_PKG   := PKG_CONFIG_PATH=$(CTR_SDK)/lib/pkgconfig pkg-config

$(CTR_STAMP): $(CTR_LIB) $(CTR_SO) guestlib/vertigo_counters.h include/vertigo/hypercall.h \
              include/vertigo/thread_page.h \
              guestlib/vertigo_counters.pc.in
	$(Q)rm -rf $(CTR_SDK) && mkdir -p $(CTR_SDK)/include/vertigo $(CTR_SDK)/lib/pkgconfig
	$(Q)install -m 644 guestlib/vertigo_counters.h $(CTR_SDK)/include/
	$(Q)install -m 644 include/vertigo/hypercall.h include/vertigo/thread_page.h \
	    $(CTR_SDK)/include/vertigo/
	$(Q)install -m 644 $(CTR_LIB) $(CTR_SDK)/lib/
	$(Q)install -m 755 $(CTR_SO) $(CTR_SDK)/lib/
	$(Q)ln -sf $(notdir $(CTR_SO)) $(CTR_SDK)/lib/$(CTR_SONAME)
	$(Q)ln -sf $(CTR_SONAME) $(CTR_SDK)/lib/libvertigo_counters.so
	$(Q)sed 's/@VERSION@/$(CTR_VERSION)/' guestlib/vertigo_counters.pc.in \
	    >$(CTR_SDK)/lib/pkgconfig/vertigo_counters.pc
	$(Q)touch $@

# pv_cost includes <vertigo_counters.h> from the installed tree and links
# the shared library, as a program outside this repository would.
$(GUEST_DIR)/bin/pv_cost: tests/guest/pv_cost.c $(CTR_STAMP) guestlib/vertigo_thread_ctr.h \
                          guestlib/vertigo_measure.h guestlib/kmod/vertigo_ioctl.h
	@mkdir -p $(dir $@)
	$(Q)$(GUEST_CC) $(GUEST_CFLAGS) $< $$($(CTR_PKG) --cflags --libs vertigo_counters) -o $@

# pv_user: the counters of a thread without privileges (tests/guest/pv_user.c).
$(GUEST_DIR)/bin/pv_user: tests/guest/pv_user.c $(CTR_LIB) $(CTR_LIB_HDRS)
	@mkdir -p $(dir $@)
	$(Q)$(GUEST_CC) $(GUEST_CFLAGS) $(GUEST_LDFLAGS) $< $(CTR_LIB) -lpthread -o $@

# pv_cpp: a C++ program on the installed tree (g++, pkg-config, static).
GUEST_CXX      ?= g++
GUEST_CXXFLAGS := -std=c++17 -O2 -Wall -Wextra -Werror -pedantic
$(GUEST_DIR)/bin/pv_cpp: tests/guest/pv_cpp.cpp $(CTR_STAMP)
	@mkdir -p $(dir $@)
	$(Q)$(GUEST_CXX) $(GUEST_CXXFLAGS) $(GUEST_LDFLAGS) $< \
	    $$($(CTR_PKG) --cflags --libs --static vertigo_counters) -o $@

GUEST_PROG_BINS += $(GUEST_DIR)/bin/pv_threads $(GUEST_DIR)/bin/pv_cost \
                   $(GUEST_DIR)/bin/pv_user $(GUEST_DIR)/bin/pv_cpp $(CTR_SDK)/lib/$(CTR_SONAME)
$(GUEST_INITRD): $(GUEST_DIR)/bin/pv_threads $(GUEST_DIR)/bin/pv_cost $(GUEST_DIR)/bin/pv_user \
                 $(GUEST_DIR)/bin/pv_cpp $(CTR_STAMP)
HEADERS_HOST += guestlib/vertigo_counters.h include/vertigo/thread_page.h
