# pmu/: frequency-mode sampling's period controller (sample.freq=) and its
# host test.
HEADERS_HV += pmu/sample_freq.h
HEADERS_HOST += pmu/sample_freq.h
UNIT_TESTS += sample_freq
unit_sample_freq_SRCS := tests/unit/test_sample_freq.c pmu/sample_freq.c
