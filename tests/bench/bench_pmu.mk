# PMU benchmark, `make bench`: hypervisor instructions per VCPU
# PMU switch and per VM exit for PMU bookkeeping (callgrind on a host
# harness of the portable pmu/ code, the hardware backend on the
# register-level model), and the software PMU's slowdown of a guest loop
# at step granularities 1, 100 and 10000 (one Bochs boot).
BENCH_TARGETS += bench-pmu
.PHONY: bench-pmu

# Optimised like the hypervisor (-O2), no sanitizers: callgrind counts it.
BENCH_PMU_HARNESS := $(BUILD)/bench/bench_pmu_harness
bench_pmu_harness_SRCS := tests/bench/bench_pmu_harness.c pmu/hw/pmu_hw.c pmu/soft/pmu_soft.c \
                          pmu/backend/pmu_events.c pmu/backend/pmu_ctx.c pmu/backend/swevents.c \
                          tests/unit/pmu_model.c lib/format.c

$(BENCH_PMU_HARNESS): $(patsubst %,$(BUILD)/tool/%.o,$(bench_pmu_harness_SRCS))
	@mkdir -p $(dir $@)
	$(Q)$(HOST_CC) $^ -o $@

bench-pmu: $(BENCH_PMU_HARNESS) hv guest
	$(Q)BUILD=$(BUILD) ./tests/bench/bench_pmu.sh
