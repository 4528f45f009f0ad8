# VM-exit cost of the PMU, `make bench`: instructions the PMU's calls in
# the VM-exit loop add to one exit, with the guest's virtual PMU on and
# off, with and without a sampling session (callgrind on a host harness of
# pmu/ as the hypervisor links it, compiled as vertigo.elf is,
# tests/bench/bench_codegen.mk; no boot).
BENCH_TARGETS += bench-exit
.PHONY: bench-exit

BENCH_EXIT_HARNESS := $(BUILD)/bench/bench_exit_harness
bench_exit_harness_SRCS := tests/bench/bench_exit_harness.c \
                           $(filter-out tests/unit/test_pmu_policy.c,$(unit_pmu_policy_SRCS))

$(BENCH_EXIT_HARNESS): $(call bench_obj,hv-obj,$(bench_exit_harness_SRCS))
	@mkdir -p $(dir $@)
	$(Q)$(HOST_CC) $(BENCH_LDFLAGS) $^ -o $@

# The same harness with the guest PMI handler's writes (case on-pmi-writes).
BENCH_EXIT_WRITES_HARNESS := $(BUILD)/bench/bench_exit_writes_harness
$(BUILD)/bench/exit-writes-obj/bench_exit_harness.c.o: tests/bench/bench_exit_harness.c
	@mkdir -p $(dir $@)
	$(Q)$(HOST_CC) $(BENCH_HV_CFLAGS) -DBENCH_EXIT_PMI_WRITES=1 -c $< -o $@

$(BENCH_EXIT_WRITES_HARNESS): $(BUILD)/bench/exit-writes-obj/bench_exit_harness.c.o \
                              $(call bench_obj,hv-obj,$(filter-out tests/bench/bench_exit_harness.c,$(bench_exit_harness_SRCS)))
	@mkdir -p $(dir $@)
	$(Q)$(HOST_CC) $(BENCH_LDFLAGS) $^ -o $@

-include $(BUILD)/bench/exit-writes-obj/bench_exit_harness.c.d

bench-exit: $(BENCH_EXIT_HARNESS) $(BENCH_EXIT_WRITES_HARNESS)
	$(Q)BUILD=$(BUILD) ./tests/bench/bench_exit.sh
