# pmu/hw/: the hardware backend (the Intel architectural PMU, driven
# through pmu_msr_ops) and its share of each feature: the guest's virtual
# PMU, the paravirtual counters and interval multiplexing on the hardware
# counters, with their exit-loop wiring. Portable; every host test runs it
# against the register-level model (tests/unit/pmu_model.c).
PMU_HW_HEADERS := pmu/hw/pmu_hw.h pmu/hw/pv_hw.h pmu/hw/vpmu_hw.h pmu/hw/mux_hw.h
PMU_HW_SRCS := pmu/hw/pmu_hw.c pmu/hw/pv_hw.c pmu/hw/vpmu_hw.c pmu/hw/mux_hw.c \
               pmu/hw/pmu_pv_hw.c pmu/hw/pmu_mux_hw.c pmu/hw/pmu_vpmu_hw.c pmu/hw/hw_run.c pmu/hw/hw_kind.c
HV_SRCS      += $(PMU_HW_SRCS)
HEADERS_HV   += $(PMU_HW_HEADERS) pmu/hw/pmu_pv_hw.h pmu/hw/pmu_mux_hw.h pmu/hw/pmu_vpmu_hw.h pmu/hw/hw_run.h pmu/hw/hw_vcpu.h
HEADERS_HOST += $(PMU_HW_HEADERS)
PMU_POLICY_SRCS += $(PMU_HW_SRCS)

UNIT_TESTS += pmu_hw
unit_pmu_hw_SRCS := tests/unit/test_pmu_hw.c tests/unit/pmu_model.c pmu/hw/pmu_hw.c \
                    $(PMU_CORE_SRCS)

# The paravirtual counters on the hardware counters, against the model's
# RDPMC too.
UNIT_TESTS += pv_hw
unit_pv_hw_SRCS := tests/unit/test_pv_hw.c tests/unit/pmu_model.c pmu/hw/pv_hw.c pmu/pv/pmu_pv.c pmu/hw/pmu_hw.c $(PMU_CORE_SRCS)

# The guest's virtual PMU on the hardware counters, differentially against
# the software counting.
UNIT_TESTS += vpmu_hw
unit_vpmu_hw_SRCS := tests/unit/test_vpmu_hw.c tests/unit/pmu_model.c pmu/hw/vpmu_hw.c pmu/hw/pmu_hw.c $(PMU_CORE_SRCS) \
                     pmu/vpmu/vpmu_regs.c pmu/vpmu/vpmu_count.c

# An interval multiplexing session on the hardware PMU (the clock
# counter's PMI ends the turns): sessions on the register model.
UNIT_TESTS += mux_hw_run
unit_mux_hw_run_SRCS := tests/unit/test_mux_hw_run.c tests/unit/mux_guest_model.c pmu/hw/mux_hw.c \
                        pmu/mux/mux_row.c pmu/mux/mux_events.c \
                        pmu/mux/mux.c tests/unit/pmu_model.c pmu/hw/pmu_hw.c pmu/backend/pmu_cpuid.c \
                        pmu/backend/pmu_events.c pmu/backend/pmu_ctx.c pmu/backend/swevents.c lib/format.c
