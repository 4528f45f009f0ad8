# pmu/mux/: interval multiplexing: the schedule's sets, turns and
# extrapolation, one VCPU's rows, what the schedule needs of events and
# counters, a session's checks (the command line's and the guest's), and
# the sessions in the VM-exit loop (the command line's, the guest's).
# The hardware backend's share is pmu/hw/mux_hw.c and pmu/hw/pmu_mux_hw.c.
PMU_MUX_HEADERS := pmu/mux/mux.h pmu/mux/mux_row.h pmu/mux/mux_events.h pmu/mux/mux_session.h \
                   pmu/mux/mux_options.h
HV_SRCS      += pmu/mux/mux.c pmu/mux/mux_row.c pmu/mux/mux_events.c pmu/mux/mux_session.c \
                pmu/mux/mux_options.c \
                pmu/mux/pmu_mux.c pmu/mux/pmu_mux_guest.c pmu/mux/mux_hypercalls.c
HEADERS_HV   += $(PMU_MUX_HEADERS) pmu/mux/pmu_mux.h pmu/mux/pmu_mux_guest.h pmu/mux/mux_hypercalls.h \
                pmu/mux/mux_vcpu.h pmu/mux/mux_part.h
HEADERS_HOST += $(PMU_MUX_HEADERS)
PMU_POLICY_SRCS += pmu/mux/mux.c pmu/mux/mux_row.c pmu/mux/mux_events.c pmu/mux/mux_session.c \
                   pmu/mux/mux_options.c \
                   pmu/mux/pmu_mux.c pmu/mux/pmu_mux_guest.c pmu/mux/mux_hypercalls.c

UNIT_TESTS += mux
unit_mux_SRCS := tests/unit/test_mux.c pmu/mux/mux.c

# One VCPU's rows (the turns' accounting; pmu/mux/pmu_mux.c drives it).
UNIT_TESTS += mux_row
unit_mux_row_SRCS := tests/unit/test_mux_row.c pmu/mux/mux_row.c pmu/mux/mux.c

# The schedule's view of parsed events and of the PMU's counters (CPUID
# leaf 0AH); its test places sets on the register model.
UNIT_TESTS += mux_hw
unit_mux_hw_SRCS := tests/unit/test_mux_hw.c pmu/mux/mux_events.c pmu/mux/mux.c tests/unit/pmu_model.c \
                    pmu/hw/pmu_hw.c pmu/backend/pmu_cpuid.c pmu/backend/pmu_events.c pmu/backend/pmu_ctx.c pmu/backend/swevents.c \
                    lib/format.c

# The checks of a session, the command line's and the guest's
# (VERTIGO_HC_MUX_START), and their hypercall errors.
UNIT_TESTS += mux_session
unit_mux_session_SRCS := tests/unit/test_mux_session.c pmu/mux/mux_session.c pmu/mux/mux_events.c \
                         pmu/mux/mux_row.c pmu/mux/mux.c pmu/backend/pmu_events.c pmu/backend/swevents.c lib/format.c

# The session's options, read apart from running it.
UNIT_TESTS += mux_options
unit_mux_options_SRCS := tests/unit/test_mux_options.c pmu/mux/mux_options.c lib/cmdline.c lib/format.c
