# pmu/vpmu*: the guest's virtual architectural PMU (registers, counting,
# PMIs through its LVTPC), portable; its host test runs it against the
# register-level model of the architectural PMU (tests/unit/pmu_model.c).
HV_SRCS      += pmu/vpmu_regs.c pmu/vpmu_count.c
HEADERS_HV   += pmu/vpmu.h
HEADERS_HOST += pmu/vpmu.h

UNIT_TESTS += vpmu
unit_vpmu_SRCS := tests/unit/test_vpmu.c tests/unit/pmu_model.c pmu/vpmu_regs.c pmu/vpmu_count.c
