# pmu/mux: interval multiplexing's sets, turns and extrapolation (portable),
# with its host test.
HV_SRCS      += pmu/mux.c
HEADERS_HV   += pmu/mux.h
HEADERS_HOST += pmu/mux.h

UNIT_TESTS += mux
unit_mux_SRCS := tests/unit/test_mux.c pmu/mux.c
