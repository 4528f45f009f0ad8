# pmu/vpmu_hw.c: the guest's virtual PMU run on the hardware PMU's
# counters, portable; its host test runs it against the register-level
# model of the architectural PMU (tests/unit/pmu_model.c) through the
# hardware backend, differentially against the software counting.
HV_SRCS      += pmu/vpmu_hw.c
HEADERS_HV   += pmu/vpmu_hw.h
HEADERS_HOST += pmu/vpmu_hw.h

UNIT_TESTS += vpmu_hw
unit_vpmu_hw_SRCS := tests/unit/test_vpmu_hw.c tests/unit/pmu_model.c pmu/vpmu_hw.c pmu/pmu_hw.c $(PMU_CORE_SRCS) \
                     pmu/vpmu_regs.c pmu/vpmu_count.c

# The exit-loop wiring calls it (pmu/pmu_guest.c), so the tests that link
# the wiring link it too.
unit_pmu_policy_SRCS += pmu/vpmu_hw.c
unit_vpmu_wiring_SRCS += pmu/vpmu_hw.c
