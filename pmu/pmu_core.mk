# pmu/: the backend interface, event names, per-VCPU contexts, the hardware
# and software backends and hypervisor software events (all portable), with
# their host tests. The hardware backend's tests run it against a
# register-level model of the architectural PMU (tests/unit/pmu_model.c).
PMU_CORE_HEADERS := pmu/pmu.h pmu/pmu_events.h pmu/pmu_ctx.h pmu/pmu_hw.h \
                    pmu/pmu_soft.h pmu/swevents.h pmu/pmu_session.h

HV_SRCS      += pmu/pmu_events.c pmu/pmu_ctx.c pmu/pmu_hw.c pmu/pmu_soft.c pmu/swevents.c \
                pmu/pmu_session.c pmu/pmu_report.c
HEADERS_HV   += $(PMU_CORE_HEADERS)
HEADERS_HOST += $(PMU_CORE_HEADERS) tests/unit/pmu_model.h

PMU_CORE_SRCS := pmu/pmu_events.c pmu/pmu_ctx.c pmu/swevents.c vmm/format.c

UNIT_TESTS += pmu_events swevents pmu_hw pmu_soft
unit_pmu_events_SRCS := tests/unit/test_pmu_events.c $(PMU_CORE_SRCS)
unit_swevents_SRCS   := tests/unit/test_swevents.c pmu/swevents.c vmm/exit_stats.c \
                        vmx/exit_names.c vmm/format.c
unit_pmu_hw_SRCS     := tests/unit/test_pmu_hw.c tests/unit/pmu_model.c pmu/pmu_hw.c \
                        $(PMU_CORE_SRCS)
unit_pmu_soft_SRCS   := tests/unit/test_pmu_soft.c pmu/pmu_soft.c $(PMU_CORE_SRCS)
