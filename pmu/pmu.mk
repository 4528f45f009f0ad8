# pmu/: the PMU description (CPUID leaf 0xA) and the start-up probe.
HV_SRCS += pmu/pmu_cpuid.c pmu/pmu_probe.c
HEADERS_HV += pmu/pmu_desc.h pmu/pmu_probe.h
HEADERS_HOST += pmu/pmu_desc.h
UNIT_TESTS += pmu_cpuid
unit_pmu_cpuid_SRCS := tests/unit/test_pmu_cpuid.c pmu/pmu_cpuid.c vmm/format.c
