# The perf guest: a second initramfs for the tests of the guest's own
# virtual PMU (Vertigo started with pmu.guest=on). It holds what `make
# guest`'s initramfs holds (busybox, init, scenarios) with the programs of
# its own scenarios, plus Debian's perf (linux-perf), the PAPI tools
# (papi-tools, libpapi7.0), PAPI's own tests built here from papi-examples'
# sources against libpapi-dev, and every shared library they load
# (host-tools/mkguest perf-initrd). Bigger and slower to boot than the
# default initramfs, which `make run` and the other tests keep using.
#
#   make guest-perf     $(GUEST_KERNEL) and $(GUEST_PERF_INITRD)
#
# Its scenarios are tests/guest/scenarios/perf and papi (tests/e2e/vpmu.sh)
# and perf_overhead (tests/bench/bench_vpmu.sh).

GUEST_PERF_INITRD := $(GUEST_DIR)/initrd-perf.cpio

# papi-examples ships the sources of PAPI's test suite; its Makefiles
# expect PAPI's source tree, so the tests are compiled here directly.
PAPI_EXAMPLES := /usr/share/doc/papi-examples/examples
PAPI_TEST_DIR := $(GUEST_DIR)/papi
# The ctests tests/e2e/vpmu.sh runs, and the validation tests of the
# events the software backend counts (docs/user-guide.md, "Running perf and
# PAPI in the guest", lists the others and why they are left out).
PAPI_CTESTS     := zero first second tenth low-level reset zero_pthreads zero_fork \
                   overflow overflow_single_event overflow_twoevents profile
PAPI_VALIDATION := papi_tot_ins papi_tot_cyc papi_ref_cyc cycles_validation
PAPI_TEST_BINS  := $(patsubst %,$(PAPI_TEST_DIR)/%,$(PAPI_CTESTS) $(PAPI_VALIDATION))
# PAPI's test library: result reporting, work loops, the instruction
# loops of the validation tests.
PAPI_TESTLIB := $(PAPI_EXAMPLES)/testlib/test_utils.c $(PAPI_EXAMPLES)/testlib/do_loops.c \
                $(PAPI_EXAMPLES)/validation_tests/instructions_testcode.c \
                $(PAPI_EXAMPLES)/validation_tests/display_error.c
# Third-party code: its own flags (papi-examples' Makefiles use -O1), no
# -Werror of ours.
PAPI_CFLAGS := -O1 -w -Itests/guest/papi_loops -I$(PAPI_EXAMPLES)/testlib -I$(PAPI_EXAMPLES)/validation_tests \
               -I$(PAPI_EXAMPLES)/ctests
PAPI_LIBS   := -lpapi -pthread

$(PAPI_TEST_DIR)/profile: private PAPI_EXTRA := $(PAPI_EXAMPLES)/ctests/prof_utils.c
$(PAPI_TEST_DIR)/papi_tot_cyc: private PAPI_EXTRA := $(PAPI_EXAMPLES)/validation_tests/matrix_multiply.c

$(PAPI_TEST_DIR)/%: $(PAPI_EXAMPLES)/ctests/%.c tests/guest/papi_loops/do_loops.h
	@mkdir -p $(dir $@)
	$(Q)$(GUEST_CC) $(PAPI_CFLAGS) $< $(PAPI_EXTRA) $(PAPI_TESTLIB) $(PAPI_LIBS) -o $@

$(PAPI_TEST_DIR)/%: $(PAPI_EXAMPLES)/validation_tests/%.c tests/guest/papi_loops/do_loops.h
	@mkdir -p $(dir $@)
	$(Q)$(GUEST_CC) $(PAPI_CFLAGS) $< $(PAPI_EXTRA) $(PAPI_TESTLIB) $(PAPI_LIBS) -o $@

# The programs of the scenarios it runs (perf, papi, vpmu, perf_overhead,
# domhw, smp) and the init's and agent's: the loop `perf stat` measures for N
# and 2N iterations, the workload perf record samples, the window timer of
# the perf-overhead benchmark, the hardware-breakpoint counter of the
# domains' test, the probe module (tests/guest/guest_tests.mk) whose
# test=domain the domains' test runs in its Linux domain, the threaded workload
# of the SMP domains' test (tests/guest/smp_threads.c) and its per-thread
# counters on two VCPUs (tests/guest/pv_threads.c, scenario pv_smp).
GUEST_PERF_PROGS := $(patsubst %,$(GUEST_DIR)/bin/%,perf_loop workload vpmu_perf timed_run smp_threads \
                                                    pv_threads bp_count vertigo-ctl vertigo-agent) \
                    $(GUEST_KMOD) \
                    $(GUEST_PROBE_KMOD)

.PHONY: guest-perf
guest-perf: $(GUEST_KERNEL) $(GUEST_PERF_INITRD)

$(GUEST_PERF_INITRD): tests/guest/init $(GUEST_SCENARIOS) $(GUEST_PERF_PROGS) $(PAPI_TEST_BINS) \
                      host-tools/mkguest
	$(Q)./host-tools/mkguest perf-initrd $(GUEST_DIR) tests/guest/init tests/guest/scenarios \
	    $(PAPI_TEST_DIR) $(GUEST_PERF_PROGS)

# tests/e2e/vpmu.sh boots it.
TEST_BUILT += guest-perf
