# Unit tests of the portable core. Each fragment appends its own tests;
# see the unit_test_rule in the top Makefile.
HEADERS_HOST += tests/unit/unit.h tests/unit/hostile_pages.h

UNIT_TESTS += pmu_log_desc
unit_pmu_log_desc_SRCS := tests/unit/test_pmu_log_desc.c pmu/backend/pmu_log_desc.c
