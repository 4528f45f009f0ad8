# pmu/pv_hw: a VCPU's paravirtual counters on the hardware PMU's counters,
# portable; its host test runs it against the register-level model of the
# architectural PMU (tests/unit/pmu_model.c) and the model's RDPMC.
HV_SRCS      += pmu/pv_hw.c
HEADERS_HV   += pmu/pv_hw.h
HEADERS_HOST += pmu/pv_hw.h

UNIT_TESTS += pv_hw
unit_pv_hw_SRCS := tests/unit/test_pv_hw.c tests/unit/pmu_model.c pmu/pv_hw.c pmu/pmu_pv.c pmu/pmu_hw.c $(PMU_CORE_SRCS)

# The exit-loop wiring calls it (pmu/pmu_pv_hw.c), so the tests that link
# the wiring link it too (pmu_switch and vpmu_wiring through this list).
unit_pmu_policy_SRCS += pmu/pv_hw.c
