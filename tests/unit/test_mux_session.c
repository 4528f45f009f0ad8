/* The checks every interval multiplexing session passes, the command
 * line's and the guest's (pmu/mux/mux_session.h): the schedule over the
 * software backend's counters, the default sub-interval, and the
 * hypercall error each refusal gets (VERTIGO_HC_MUX_START). */
#include "pmu/mux/mux_session.h"
#include "tests/unit/unit.h"
#include "vertigo/hypercall.h"

/* Parses text for the software backend with as many counters as a list
 * holds (the schedule, not the parser, limits them). */
static void parse(const char *text, struct pmu_event_list *list)
{
    struct pmu_event_caps caps;
    pmu_event_caps_soft(&caps, true);
    caps.desc.gp_counters = PMU_EVENT_LIST_MAX;
    CHECK_EQ(pmu_event_list_parse(text, &caps, list, NULL), PMU_EVERR_NONE);
}

static const char six[] = "instructions:u,instructions:k,cycles:u,cycles:k,instructions,"
                          "exits:all";

TEST(five_counter_events_over_two_counters_make_three_sets)
{
    struct pmu_event_list list;
    struct mux_row_config cfg;
    parse(six, &list);
    CHECK_EQ(mux_session_plan(&cfg, &list, 2, 1000000, 100000), MUX_OK);
    CHECK_EQ(cfg.sets, 3);
    CHECK_EQ(cfg.count, 6);
    CHECK_EQ(cfg.always_count, 1);      /* exits:all needs no counter */
    CHECK_EQ(cfg.interval, 1000000);
    CHECK_EQ(cfg.sub, 100000);
    CHECK_EQ(mux_session_error(MUX_OK), 0);
    /* sub-interval 0: one turn per set */
    CHECK_EQ(mux_session_plan(&cfg, &list, 2, 900000, 0), MUX_OK);
    CHECK_EQ(cfg.sub, 300000);
    CHECK_EQ(cfg.subs, 3);
}

TEST(lengths_out_of_range_are_erange)
{
    struct pmu_event_list list;
    struct mux_row_config cfg;
    parse(six, &list);
    enum mux_err e = mux_session_plan(&cfg, &list, 2, 0, 0);
    CHECK_EQ(e, MUX_ERR_INTERVAL_ZERO);
    CHECK_EQ(mux_session_error(e), -VERTIGO_ERANGE);
    e = mux_session_plan(&cfg, &list, 2, 1000, 2000);
    CHECK_EQ(e, MUX_ERR_SUB_LONGER);
    CHECK_EQ(mux_session_error(e), -VERTIGO_ERANGE);
    /* 3 sets need 3 turns per interval: 1000 / 400 gives 2 */
    e = mux_session_plan(&cfg, &list, 2, 1000, 400);
    CHECK_EQ(e, MUX_ERR_TOO_FEW_TURNS);
    CHECK_EQ(mux_session_error(e), -VERTIGO_ERANGE);
    /* with three counters two sets fit the same lengths */
    CHECK_EQ(mux_session_plan(&cfg, &list, 3, 1000, 400), MUX_OK);
    CHECK_EQ(cfg.sets, 2);
}

TEST(too_many_events_are_e2big_other_refusals_einval)
{
    CHECK_EQ(mux_session_error(MUX_ERR_TOO_MANY_EVENTS), -VERTIGO_E2BIG);
    CHECK_EQ(mux_session_error(MUX_ERR_NO_EVENTS), -VERTIGO_EINVAL);
    CHECK_EQ(mux_session_error(MUX_ERR_NO_COUNTER), -VERTIGO_EINVAL);
    CHECK_EQ(mux_session_event_error(PMU_EVERR_TOO_MANY), -VERTIGO_E2BIG);
    CHECK_EQ(mux_session_event_error(PMU_EVERR_UNKNOWN_NAME), -VERTIGO_EINVAL);
    CHECK_EQ(mux_session_event_error(PMU_EVERR_NONE), 0);
    /* 33 events: one more than a list holds */
    char text[33 * 16] = "";
    for (int i = 0; i < 33; i++)
        strcat(text, i ? ",instructions" : "instructions");
    struct pmu_event_caps caps;
    struct pmu_event_list list;
    pmu_event_caps_soft(&caps, true);
    caps.desc.gp_counters = PMU_EVENT_LIST_MAX;
    CHECK_EQ(pmu_event_list_parse(text, &caps, &list, NULL), PMU_EVERR_TOO_MANY);
}
