/* An interval multiplexing session's checks (pmu/mux/mux_session.h). */
#include "pmu/mux/mux_session.h"

#include "pmu/mux/mux_events.h"
#include "vertigo/hypercall.h"

enum mux_err mux_session_plan_on(struct mux_row_config *cfg, const struct pmu_event_list *list,
                                 const struct mux_counters *counters, uint64_t interval,
                                 uint64_t sub)
{
    bool on_counter[PMU_EVENT_LIST_MAX];
    struct mux_event_need needs[PMU_EVENT_LIST_MAX];
    unsigned int bad = 0;
    mux_needs_of(list, on_counter, needs);
    enum mux_err err = mux_row_configure(cfg, on_counter, needs, list->count, counters, interval,
                                         sub ? sub : 1, &bad);
    if (err != MUX_OK || sub)
        return err;
    /* the default: one turn per set and interval */
    unsigned int sets = cfg->plan.set_count ? cfg->plan.set_count : 1;
    return mux_row_configure(cfg, on_counter, needs, list->count, counters, interval,
                             interval / sets ? interval / sets : 1, &bad);
}

enum mux_err mux_session_plan(struct mux_row_config *cfg, const struct pmu_event_list *list,
                              unsigned int counters, uint64_t interval, uint64_t sub)
{
    struct mux_counters soft = { counters, 0 };     /* soft counters: all alike */
    return mux_session_plan_on(cfg, list, &soft, interval, sub);
}

int64_t mux_session_error(enum mux_err err)
{
    switch (err) {
    case MUX_OK:
        return 0;
    case MUX_ERR_TOO_MANY_EVENTS:
        return -VERTIGO_E2BIG;
    case MUX_ERR_INTERVAL_ZERO:
    case MUX_ERR_SUB_ZERO:
    case MUX_ERR_SUB_LONGER:
    case MUX_ERR_TOO_FEW_TURNS:
        return -VERTIGO_ERANGE;
    default:
        return -VERTIGO_EINVAL;
    }
}

int64_t mux_session_event_error(enum pmu_event_err err)
{
    if (err == PMU_EVERR_NONE)
        return 0;
    return err == PMU_EVERR_TOO_MANY ? -VERTIGO_E2BIG : -VERTIGO_EINVAL;
}
