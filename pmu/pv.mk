# pmu/pmu_pv: a VCPU's paravirtual counters (VERTIGO_HC_PV_*), portable,
# with its host test. The VM-exit wiring (pmu/pmu_run.c) and the
# hypercalls (pmu/pmu_hypercalls.c) call it, so the policy test links it.
HV_SRCS      += pmu/pmu_pv.c
HEADERS_HV   += pmu/pmu_pv.h
HEADERS_HOST += pmu/pmu_pv.h

UNIT_TESTS += pmu_pv
unit_pmu_pv_SRCS := tests/unit/test_pmu_pv.c pmu/pmu_pv.c $(PMU_CORE_SRCS)
unit_pmu_policy_SRCS += pmu/pmu_pv.c
