# pmu/: the PMU description of the log's stream header (portable).
HV_SRCS      += pmu/pmu_log_desc.c
HEADERS_HV   += pmu/pmu_log_desc.h
HEADERS_HOST += pmu/pmu_log_desc.h
