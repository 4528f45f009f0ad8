/* The checks an interval multiplexing session passes before it runs,
 * whoever asks for it: Vertigo's command line (pmu.events=, pmu.interval=,
 * pmu.subinterval=, pmu/mux/pmu_mux.c) or the guest (VERTIGO_HC_MUX_START,
 * pmu/run/pmu_hypercalls.c). Both build the schedule here, so both accept and
 * refuse the same sessions. Portable. */
#ifndef PMU_MUX_SESSION_H
#define PMU_MUX_SESSION_H

#include <stdint.h>

#include "pmu/mux/mux_row.h"
#include "pmu/backend/pmu_events.h"

/* Builds *cfg for the parsed list over `counters` software counters with
 * intervals of `interval` retired instructions and turns of `sub`; sub 0
 * is the default, one turn per set and interval (interval / sets).
 * MUX_OK or the reason there can be no such session. */
enum mux_err mux_session_plan(struct mux_row_config *cfg, const struct pmu_event_list *list,
                              unsigned int counters, uint64_t interval, uint64_t sub);

/* The same over any counters: the hardware PMU's, as the clock left them
 * (pmu/hw/mux_hw.h, mux_hw_layout's for_sets), with each event's
 * constraints as its parse derived them. */
enum mux_err mux_session_plan_on(struct mux_row_config *cfg, const struct pmu_event_list *list,
                                 const struct mux_counters *counters, uint64_t interval,
                                 uint64_t sub);

/* The hypercall error (negative, -VERTIGO_E*) for a refused schedule:
 * -VERTIGO_E2BIG for too many events, -VERTIGO_ERANGE for an interval or
 * sub-interval that is 0, longer than the interval or too long to give
 * every set a turn, -VERTIGO_EINVAL otherwise; 0 for MUX_OK. */
int64_t mux_session_error(enum mux_err err);

/* The same for an event list that did not parse: -VERTIGO_E2BIG for more
 * events than a list holds, -VERTIGO_EINVAL for any other reason. */
int64_t mux_session_event_error(enum pmu_event_err err);

#endif
