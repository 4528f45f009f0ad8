# pmu/pv/: a VCPU's paravirtual counters (VERTIGO_HC_PV_*), portable, with
# its host test. The VM-exit wiring (pmu/run/pmu_run.c) and the hypercalls
# (pmu/run/pmu_hypercalls.c) call it, so the policy test links it. The
# hardware backend's share is pmu/hw/pv_hw.c and pmu/hw/pmu_pv_hw.c.
HV_SRCS      += pmu/pv/pmu_pv.c pmu/pv/pv_hypercalls.c pmu/pv/pv_guest.c
HEADERS_HV   += pmu/pv/pmu_pv.h pmu/pv/pv_hypercalls.h pmu/pv/pv_guest.h pmu/pv/pv_part.h
HEADERS_HOST += pmu/pv/pmu_pv.h
PMU_POLICY_SRCS += pmu/pv/pmu_pv.c pmu/pv/pv_hypercalls.c pmu/pv/pv_guest.c

UNIT_TESTS += pmu_pv
unit_pmu_pv_SRCS := tests/unit/test_pmu_pv.c pmu/pv/pmu_pv.c $(PMU_CORE_SRCS)
