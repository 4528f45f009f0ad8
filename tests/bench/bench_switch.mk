# VCPU switch cost, `make bench`: instructions and PMU MSR accesses per
# VCPU switch through the PMU's switch hooks (pmu/run/pmu_switch.c), with and
# without PMU contexts, software backend and hardware backend on the
# register-level model (callgrind on a host harness; no boot).
BENCH_TARGETS += bench-switch
.PHONY: bench-switch

# Optimised like the hypervisor (-O2), no sanitizers: callgrind counts it.
BENCH_SWITCH_HARNESS := $(BUILD)/bench/bench_switch_harness
bench_switch_harness_SRCS := tests/bench/bench_switch_harness.c \
                            $(filter-out tests/unit/test_pmu_policy.c,$(unit_pmu_policy_SRCS))

$(BENCH_SWITCH_HARNESS): $(patsubst %,$(BUILD)/tool/%.o,$(bench_switch_harness_SRCS))
	@mkdir -p $(dir $@)
	$(Q)$(HOST_CC) $^ -o $@

bench-switch: $(BENCH_SWITCH_HARNESS)
	$(Q)BUILD=$(BUILD) ./tests/bench/bench_switch.sh
