/* What the multiplexing schedule needs of events and PMU (pmu/mux/mux_events.h). */
#include "pmu/mux/mux_events.h"

void mux_needs_of(const struct pmu_event_list *list, bool *on_counter,
                  struct mux_event_need *needs)
{
    for (unsigned int e = 0; e < list->count; e++) {
        const struct pmu_event *ev = &list->events[e];
        on_counter[e] = ev->source == PMU_EVENT_HW;
        needs[e] = (struct mux_event_need){ ev->fixed_index, ev->gp_ok };
    }
}

struct mux_counters mux_counters_hw(const struct pmu_desc *d)
{
    return (struct mux_counters){ d->gp_counters, d->fixed_mask };
}
