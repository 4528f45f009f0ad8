# pmu/vpmu*: the guest's virtual architectural PMU (registers, counting,
# PMIs through its LVTPC), portable; its host test runs it against the
# register-level model of the architectural PMU (tests/unit/pmu_model.c).
HV_SRCS      += pmu/vpmu_regs.c pmu/vpmu_count.c pmu/vpmu_prog.c
HEADERS_HV   += pmu/vpmu.h pmu/vpmu_prog.h
HEADERS_HOST += pmu/vpmu.h pmu/vpmu_prog.h

UNIT_TESTS += vpmu
unit_vpmu_SRCS := tests/unit/test_vpmu.c tests/unit/pmu_model.c pmu/vpmu_regs.c pmu/vpmu_count.c

# What the guest programmed, for the log (pmu/vpmu_prog.c).
UNIT_TESTS += vpmu_prog
unit_vpmu_prog_SRCS := tests/unit/test_vpmu_prog.c pmu/vpmu_regs.c pmu/vpmu_count.c pmu/vpmu_prog.c

# Its options and its log records through the VM-exit loop, on the fake arch.
unit_pmu_policy_SRCS += pmu/vpmu_prog.c
UNIT_TESTS += vpmu_wiring
unit_vpmu_wiring_SRCS := tests/unit/test_vpmu_wiring.c $(unit_pmu_policy_SRCS:tests/unit/test_pmu_policy.c=)
