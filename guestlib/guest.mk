# The Linux guest: Debian's cloud kernel and an initramfs of busybox-static,
# tests/guest/init, the scenario scripts and the guest test programs.
# Downloaded/built into $(BUILD)/guest, never committed.
#
#   make guest          $(GUEST_KERNEL) and $(GUEST_INITRD) (which carries
#                       vertigo.ko, vertigo-ctl and vertigo-agent)
#
# The guest's init runs the scenario named by vertigo.scenario=NAME on the
# kernel command line and prints one line "VERTIGO-GUEST: NAME: PASS" or
# "VERTIGO-GUEST: NAME: FAIL <reason>", then powers off.

GUEST_DIR     := $(BUILD)/guest
GUEST_KERNEL  := $(GUEST_DIR)/vmlinuz
GUEST_INITRD  := $(GUEST_DIR)/initrd.cpio.lz4
# Defaults for every guest run; runners append vertigo.scenario=NAME etc.
# nokaslr: addresses match /proc/kallsyms-derived symbols across runs.
# tsc=reliable: skip the clocksource watchdog, which misjudges Bochs' TSC.
# panic=-1: a guest panic reboots at once, ending the run with a verdict.
GUEST_CMDLINE := console=ttyS0,115200 nokaslr tsc=reliable panic=-1 quiet

GUEST_CC      ?= gcc
GUEST_CFLAGS  := -O2 $(WARNINGS) -I. -Iinclude
GUEST_LDFLAGS := -static
GUEST_PROGS   := cpuid_check devmem_probe pmu_loop pmu_bench workload jit_test \
                 bad_symbols user_session bench_sample pmu_exact pmu_cost sort_nofp vpmu_perf \
                 vpmu_cost phases smp_threads
# The guest kernel module (guestlib/kmod/), built out of tree against the
# guest kernel's headers package; the initramfs carries it as /lib/vertigo.ko.
GUEST_KMOD    := $(GUEST_DIR)/kmod/vertigo.ko
GUEST_PROG_BINS := $(patsubst %,$(GUEST_DIR)/bin/%,$(GUEST_PROGS)) $(GUEST_DIR)/bin/vertigo-ctl \
                   $(GUEST_DIR)/bin/vertigo-agent $(GUEST_KMOD)
GUEST_SCENARIOS := $(wildcard tests/guest/scenarios/*)

.PHONY: guest
guest: $(GUEST_KERNEL) $(GUEST_INITRD)

# Cached: mkguest does nothing when the kernel is already there.
$(GUEST_KERNEL):
	$(Q)./host-tools/mkguest kernel $(GUEST_DIR)

# The guest library (guestlib/vertigo_guest.h): Vertigo detection,
# hypercalls, error texts, /dev/vertigo requests and measurement loops.
# Every guest program links it and is rebuilt when one of its headers
# changes; the kernel module shares the header-only guestlib/vertigo_vmcall.h.
GUEST_LIB      := $(GUEST_DIR)/lib/libvertigo_guest.a
GUEST_LIB_OBJ  := $(GUEST_DIR)/lib/vertigo_guest.o
GUEST_LIB_HDRS := guestlib/vertigo_guest.h guestlib/vertigo_vmcall.h guestlib/vertigo_measure.h \
                  guestlib/kmod/vertigo_ioctl.h include/vertigo/hypercall.h
HEADERS_HOST   += guestlib/vertigo_guest.h guestlib/vertigo_vmcall.h guestlib/vertigo_measure.h \
                  guestlib/kernel_build_id.h

$(GUEST_LIB_OBJ): guestlib/vertigo_guest.c $(GUEST_LIB_HDRS)
	@mkdir -p $(dir $@)
	$(Q)$(GUEST_CC) $(GUEST_CFLAGS) -c $< -o $@

$(GUEST_LIB): $(GUEST_LIB_OBJ)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# vertigo-ctl checks event names with the hypervisor's own parser.
GUEST_CTL_SRCS := guestlib/vertigo_ctl.c guestlib/vertigo_ctl_record.c guestlib/vertigo_ctl_stat.c \
                  guestlib/vertigo_ctl_mux.c \
                  guestlib/vertigo_counters.c pmu/backend/pmu_events.c \
                  pmu/backend/swevents.c lib/format.c lib/exit_names.c
$(GUEST_DIR)/bin/vertigo-ctl: $(GUEST_CTL_SRCS) pmu/backend/pmu_events.h guestlib/vertigo_ctl_record.h \
                              guestlib/vertigo_ctl_stat.h guestlib/vertigo_ctl_mux.h \
                              $(CTR_LIB_HDRS) \
                              $(GUEST_LIB) $(GUEST_LIB_HDRS)
	@mkdir -p $(dir $@)
	$(Q)$(GUEST_CC) $(GUEST_CFLAGS) $(GUEST_LDFLAGS) -DVERTIGO_HOSTED=1 $(GUEST_CTL_SRCS) \
	    $(GUEST_LIB) -o $@

# The agent keeps its frame pointers too: it is sampled in every capture
# (mostly in poll), and at -O2 gcc uses RBP for data, which the user walk
# then takes for a frame (a stack word holding a text address once passed
# for agent_run's caller). Leaf functions may still lack a frame; a sample
# in one only loses its caller's frame (RBP is still the caller's).
GUEST_AGENT_SRCS := guestlib/vertigo_agent.c guestlib/kernel_build_id.c
$(GUEST_DIR)/bin/vertigo-agent: private GUEST_CFLAGS += -fno-omit-frame-pointer
$(GUEST_DIR)/bin/vertigo-agent: $(GUEST_AGENT_SRCS) guestlib/kernel_build_id.h guestlib/guest.mk \
                                include/vertigo/log_format.h $(GUEST_LIB) $(GUEST_LIB_HDRS)
	@mkdir -p $(dir $@)
	$(Q)$(GUEST_CC) $(GUEST_CFLAGS) $(GUEST_LDFLAGS) $(GUEST_AGENT_SRCS) $(GUEST_LIB) -o $@

# mkguest installs linux-headers-<release> (apt-get) when it is missing.
$(GUEST_KMOD): $(wildcard guestlib/kmod/*.c guestlib/kmod/*.h) guestlib/kmod/Kbuild \
               guestlib/vertigo_vmcall.h guestlib/vertigo_thread_ctr.h include/vertigo/hypercall.h \
               include/vertigo/thread_page.h $(GUEST_KERNEL) host-tools/mkguest
	$(Q)./host-tools/mkguest kmod $(GUEST_DIR) guestlib/kmod

# The profiled workload keeps its frame pointers, leaf functions included
# (guest call stacks are walked by RBP, vmm/guest/guest_stack.h), and its DWARF
# lines (host symbolization). Built with clang: gcc 12 at -O2 drops the
# frame of a leaf that uses no stack even with -mno-omit-leaf-frame-pointer.
# Private: the guest library it depends on keeps the default compiler.
$(GUEST_DIR)/bin/workload: private GUEST_CC := clang
$(GUEST_DIR)/bin/workload: private GUEST_CFLAGS += -fno-omit-frame-pointer \
                                                   -mno-omit-leaf-frame-pointer -g

# The DWARF call-graph workload has no frame pointers, like Debian's glibc
# it calls through (host unwinding from .eh_frame, vertigo-ctl --call-graph dwarf).
$(GUEST_DIR)/bin/sort_nofp: private GUEST_CFLAGS += -fomit-frame-pointer

$(GUEST_DIR)/bin/%: tests/guest/%.c $(GUEST_LIB) $(GUEST_LIB_HDRS)
	@mkdir -p $(dir $@)
	$(Q)$(GUEST_CC) $(GUEST_CFLAGS) $(GUEST_LDFLAGS) $< $(GUEST_LIB) -o $@

# The programs that open the guest kernel's perf events.
$(GUEST_DIR)/bin/vpmu_perf $(GUEST_DIR)/bin/vpmu_cost: tests/guest/perf_event_open.h

$(GUEST_INITRD): tests/guest/init $(GUEST_SCENARIOS) $(GUEST_PROG_BINS) host-tools/mkguest
	$(Q)./host-tools/mkguest initrd $(GUEST_DIR) tests/guest/init tests/guest/scenarios $(GUEST_PROG_BINS)

# `make test` gets the real kernel and tells the unit tests where it is
# (tests/unit/test_bzimage.c reads VERTIGO_GUEST_KERNEL). `make unit` does
# not download anything; the real-kernel checks then report a skip.
TEST_BUILT += guest   # in make test's parallel build (a prerequisite of test would build at -j1)
test: export VERTIGO_GUEST_KERNEL := $(abspath $(GUEST_KERNEL))

# The main job's ISO carries the guest: Vertigo's console on COM2, the log
# on port 0xE9, the guest console on COM1. The guest's `profile` scenario
# starts a sampling session (vertigo-ctl) around the demonstration
# workload while the guest agent ships symbols.
MAIN_SCENARIO ?= profile
ISO_CMDLINE   := console=com2 log=e9
ISO_DEPS      += $(GUEST_KERNEL) $(GUEST_INITRD)
ISO_ARGS      += --kernel $(GUEST_KERNEL) --initrd $(GUEST_INITRD) \
                 --guest-cmdline "$(GUEST_CMDLINE) vertigo.agent=1 vertigo.scenario=$(MAIN_SCENARIO)"
