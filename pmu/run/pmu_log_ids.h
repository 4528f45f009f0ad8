/* The log's event ids, run-wide (docs/log-format.md, event-desc): each
 * distinct event (its name and its LOG_EVENT_CODE) gets one id the first
 * time any VCPU's context counts or samples it and keeps it for the run,
 * so a sample, a total, a period or an interval row means the same event
 * by the same id whichever VCPU of whichever domain wrote it, whatever
 * the event's position in that VCPU's context. Ids are 0, 1, 2, … in
 * order of first use, skipping PMU_LOG_ID_TIMER (timer samples).
 *
 * A domain may add at most PMU_LOG_IDS_PER_DOMAIN new ids in a run (the
 * events it is the first to use, its restarts included), so no guest can
 * use up the ids another domain needs; past its share, a context with an
 * event new to the run is refused for that domain (PMU_ERR_LOG_IDS).
 * Portable. */
#ifndef PMU_RUN_PMU_LOG_IDS_H
#define PMU_RUN_PMU_LOG_IDS_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/backend/pmu_events.h"

#define PMU_LOG_ID_TIMER        255u    /* timer samples (no counter) */
#define PMU_LOG_IDS_PER_DOMAIN  128u    /* new ids one domain may add in a run */

/* The id of each event of list into ids[0..list->count-1], events new to
 * the run getting new ids charged to domain. False, with nothing
 * allocated, if domain's share cannot hold them. */
bool pmu_log_ids_assign(uint32_t domain, const struct pmu_event_list *list, uint32_t *ids);

/* Forgets every id and share: a new run (the unit tests start many). */
void pmu_log_ids_reset(void);

#endif
