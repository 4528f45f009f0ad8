# pmu/vpmu/: the guest's virtual architectural PMU: its registers, its
# counting and PMIs through its LVTPC (portable; the host test runs it
# against the register-level model, tests/unit/pmu_model.c), what it was
# programmed to count, its options, and the virtual PMU in the VM-exit
# loop and in the log. The hardware backend's share is pmu/hw/vpmu_hw.c.
PMU_VPMU_SRCS := pmu/vpmu/vpmu_regs.c pmu/vpmu/vpmu_count.c pmu/vpmu/vpmu_prog.c \
                 pmu/vpmu/vpmu_options.c pmu/vpmu/pmu_guest.c pmu/vpmu/pmu_guest_log.c \
                 pmu/vpmu/pmu_guest_clock.c pmu/vpmu/pmu_guest_nmi_time.c
HV_SRCS      += $(PMU_VPMU_SRCS)
HEADERS_HV   += pmu/vpmu/vpmu.h pmu/vpmu/vpmu_prog.h pmu/vpmu/vpmu_options.h pmu/vpmu/pmu_guest.h \
                pmu/vpmu/pmu_guest_log.h pmu/vpmu/vpmu_vcpu.h pmu/vpmu/pmu_guest_clock.h \
                pmu/vpmu/pmu_guest_nmi_time.h
HEADERS_HOST += pmu/vpmu/vpmu.h pmu/vpmu/vpmu_prog.h pmu/vpmu/pmu_guest_clock.h
PMU_POLICY_SRCS += $(PMU_VPMU_SRCS)

UNIT_TESTS += vpmu
unit_vpmu_SRCS := tests/unit/test_vpmu.c tests/unit/pmu_model.c pmu/vpmu/vpmu_regs.c pmu/vpmu/vpmu_count.c

# What the guest programmed, for the log (pmu/vpmu/vpmu_prog.c).
UNIT_TESTS += vpmu_prog
unit_vpmu_prog_SRCS := tests/unit/test_vpmu_prog.c pmu/vpmu/vpmu_regs.c pmu/vpmu/vpmu_count.c pmu/vpmu/vpmu_prog.c

# Counted lazily on the software backend (pmu/vpmu/pmu_guest_clock.c): the
# same counts, deadlines and PMIs as counting every run at its exit.
UNIT_TESTS += vpmu_clock
unit_vpmu_clock_SRCS := tests/unit/test_vpmu_clock.c pmu/vpmu/vpmu_regs.c pmu/vpmu/vpmu_count.c \
                        pmu/vpmu/pmu_guest_clock.c

# Its options and its log records through the VM-exit loop, on the fake arch.
UNIT_TESTS += vpmu_wiring
unit_vpmu_wiring_SRCS = tests/unit/test_vpmu_wiring.c $(unit_pmu_policy_SRCS:tests/unit/test_pmu_policy.c=)
