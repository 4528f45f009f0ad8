/* What interval multiplexing's schedule (pmu/mux/mux.h) needs to know of a
 * parsed event list and of the PMU that is to count it: which events need
 * a counter (hardware events; software events count the whole interval
 * without one), which counters can count each (the fixed counter that
 * counts it, if the PMU has it, and whether a general-purpose counter
 * can: pmu_event_parse derived both from CPUID leaf 0AH, so an event the
 * PMU offers only on a fixed counter, such as ref-cycles when the
 * architectural event is absent, is placed there only), and how many
 * counters of each kind the PMU has. Portable. */
#ifndef PMU_MUX_EVENTS_H
#define PMU_MUX_EVENTS_H

#include <stdbool.h>

#include "pmu/mux/mux.h"
#include "pmu/backend/pmu_desc.h"
#include "pmu/backend/pmu_events.h"

/* For each event of list: on_counter[e] and needs[e]. */
void mux_needs_of(const struct pmu_event_list *list, bool *on_counter,
                  struct mux_event_need *needs);

/* The counters of the hardware PMU d: its general-purpose counters and
 * the fixed counters it has (CPUID leaf 0AH, version 5's bitmap
 * included). */
struct mux_counters mux_counters_hw(const struct pmu_desc *d);

#endif
