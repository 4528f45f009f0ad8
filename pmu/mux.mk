# pmu/mux: interval multiplexing's sets, turns and extrapolation (portable),
# with its host test.
HV_SRCS      += pmu/mux.c
HEADERS_HV   += pmu/mux.h
HEADERS_HOST += pmu/mux.h

UNIT_TESTS += mux
unit_mux_SRCS := tests/unit/test_mux.c pmu/mux.c

# pmu/mux_row: one VCPU's rows of an interval multiplexing session
# (portable: the turns' accounting; pmu/pmu_mux.c drives it).
HV_SRCS      += pmu/mux_row.c
HEADERS_HV   += pmu/mux_row.h
HEADERS_HOST += pmu/mux_row.h

UNIT_TESTS += mux_row
unit_mux_row_SRCS := tests/unit/test_mux_row.c pmu/mux_row.c pmu/mux.c

# pmu/mux_events: the schedule's view of parsed events and of the PMU's
# counters (CPUID leaf 0AH); its test places sets on the register model.
HV_SRCS      += pmu/mux_events.c
HEADERS_HV   += pmu/mux_events.h
HEADERS_HOST += pmu/mux_events.h

UNIT_TESTS += mux_hw
unit_mux_hw_SRCS := tests/unit/test_mux_hw.c pmu/mux_events.c pmu/mux.c tests/unit/pmu_model.c \
                    pmu/pmu_hw.c pmu/pmu_cpuid.c pmu/pmu_events.c pmu/pmu_ctx.c pmu/swevents.c \
                    vmm/format.c

# pmu/mux_session: the checks of a multiplexing session, the command
# line's and the guest's (VERTIGO_HC_MUX_START), and their hypercall errors.
HV_SRCS      += pmu/mux_session.c
HEADERS_HV   += pmu/mux_session.h
HEADERS_HOST += pmu/mux_session.h

UNIT_TESTS += mux_session
unit_mux_session_SRCS := tests/unit/test_mux_session.c pmu/mux_session.c pmu/mux_events.c \
                         pmu/mux_row.c pmu/mux.c pmu/pmu_events.c pmu/swevents.c vmm/format.c

# pmu/mux_hw: an interval multiplexing session on the hardware PMU (the
# clock counter's PMI ends the turns); its test runs sessions on the
# register model.
HV_SRCS      += pmu/mux_hw.c
HEADERS_HV   += pmu/mux_hw.h
HEADERS_HOST += pmu/mux_hw.h

UNIT_TESTS += mux_hw_run
unit_mux_hw_run_SRCS := tests/unit/test_mux_hw_run.c tests/unit/mux_guest_model.c pmu/mux_hw.c \
                        pmu/mux_row.c pmu/mux_events.c \
                        pmu/mux.c tests/unit/pmu_model.c pmu/pmu_hw.c pmu/pmu_cpuid.c \
                        pmu/pmu_events.c pmu/pmu_ctx.c pmu/swevents.c vmm/format.c
