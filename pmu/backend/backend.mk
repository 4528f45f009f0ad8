# pmu/backend/: the backend interface (pmu/backend/pmu.h) and what both
# backends share: the choice of backend (pmu=) and of its parts in the
# features (pmu_kind.c), event names and lists,
# hypervisor software events,
# per-VCPU counter contexts, the CPU's PMU description (CPUID leaf 0xA),
# the counting probe and the log header's PMU description, and the CPU's
# half of the arch hooks (PMU MSRs, LVTPC, self-NMI). The backends
# themselves are pmu/hw/ and pmu/soft/. Portable except pmu_probe.c and
# pmu_arch_cpu.c. The hardware backend's tests run it against a
# register-level model of the architectural PMU (tests/unit/pmu_model.c).
PMU_CORE_HEADERS := pmu/backend/pmu.h pmu/backend/pmu_events.h pmu/backend/pmu_ctx.h \
                    pmu/backend/swevents.h pmu/backend/pmu_desc.h pmu/backend/pmu_log_desc.h \
                    pmu/backend/pmu_session.h

HV_SRCS      += pmu/backend/pmu_events.c pmu/backend/pmu_ctx.c pmu/backend/swevents.c \
                pmu/backend/pmu_cpuid.c pmu/backend/pmu_probe.c pmu/backend/pmu_log_desc.c \
                pmu/backend/pmu_arch_cpu.c pmu/backend/pmu_session.c \
                pmu/backend/pmu_kind.c
HEADERS_HV   += $(PMU_CORE_HEADERS) pmu/backend/pmu_probe.h pmu/backend/pmu_kind.h
HEADERS_HOST += $(PMU_CORE_HEADERS) tests/unit/pmu_model.h

PMU_CORE_SRCS := pmu/backend/pmu_events.c pmu/backend/pmu_ctx.c pmu/backend/swevents.c lib/format.c
PMU_POLICY_SRCS += pmu/backend/pmu_events.c pmu/backend/pmu_ctx.c pmu/backend/swevents.c \
                   pmu/backend/pmu_log_desc.c pmu/backend/pmu_session.c \
                   pmu/backend/pmu_kind.c

UNIT_TESTS += pmu_events swevents pmu_cpuid
unit_pmu_events_SRCS := tests/unit/test_pmu_events.c $(PMU_CORE_SRCS)
unit_swevents_SRCS   := tests/unit/test_swevents.c pmu/backend/swevents.c vmm/exit_stats.c \
                        lib/exit_names.c lib/format.c
unit_pmu_cpuid_SRCS  := tests/unit/test_pmu_cpuid.c pmu/backend/pmu_cpuid.c lib/format.c

# The counting-session policy (pmu=auto|hw|soft|off decision, the
# end-of-run totals text), sessions on both backends (the hardware one
# against tests/unit/pmu_model.c).
UNIT_TESTS += pmu_session
unit_pmu_session_SRCS := tests/unit/test_pmu_session.c pmu/backend/pmu_session.c pmu/hw/pmu_hw.c \
                         pmu/soft/pmu_soft.c tests/unit/pmu_model.c pmu/backend/pmu_events.c pmu/backend/pmu_ctx.c \
                         pmu/backend/swevents.c lib/format.c
