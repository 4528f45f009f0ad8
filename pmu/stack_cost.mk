# pmu/: the fit of the NMI path's call-stack walk cost to depth (fixed
# part and cost per frame) and its host test.
HEADERS_HV += pmu/stack_cost.h
HEADERS_HOST += pmu/stack_cost.h
UNIT_TESTS += stack_cost
unit_stack_cost_SRCS := tests/unit/test_stack_cost.c pmu/stack_cost.c
