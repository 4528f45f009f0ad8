# pmu/: the counting-session policy (pmu=auto|hw|soft|off decision, the
# end-of-run totals text) and its host test, which runs sessions on both
# backends (the hardware one against tests/unit/pmu_model.c).
UNIT_TESTS += pmu_session
unit_pmu_session_SRCS := tests/unit/test_pmu_session.c pmu/pmu_session.c pmu/pmu_hw.c \
                         pmu/pmu_soft.c tests/unit/pmu_model.c pmu/pmu_events.c pmu/pmu_ctx.c \
                         pmu/swevents.c vmm/format.c
