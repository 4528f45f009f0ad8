# pmu/soft/: the software backend (counters advanced by the guest time the
# exit loop measures, one TSC tick an emulated instruction in Bochs) and
# single-stepping Vertigo for its hypervisor counts (events with :h), and
# its kind: what it brings to the features (soft_kind.c).
HV_SRCS      += pmu/soft/pmu_soft.c pmu/soft/pmu_step.c pmu/soft/soft_run.c pmu/soft/soft_kind.c
HEADERS_HV   += pmu/soft/pmu_soft.h pmu/soft/pmu_step.h pmu/soft/soft_run.h
HEADERS_HOST += pmu/soft/pmu_soft.h
PMU_POLICY_SRCS += pmu/soft/pmu_soft.c pmu/soft/pmu_step.c pmu/soft/soft_run.c pmu/soft/soft_kind.c

UNIT_TESTS += pmu_soft
unit_pmu_soft_SRCS := tests/unit/test_pmu_soft.c pmu/soft/pmu_soft.c $(PMU_CORE_SRCS)
