/* A backend's part in interval multiplexing (pmu/mux/pmu_mux.h), reached
 * through the run's kind (pmu/backend/pmu_kind.h). Two ways to run a
 * session:
 *   - the backend counts every event of the session all along (the
 *     software backend): the sets rotate over the VCPU's own context, the
 *     rows are read from it (pmu/mux/pmu_mux.c), and pmu.interval.exact=on
 *     can write the exact counts beside each row; `own` is NULL;
 *   - the backend runs the session on counters of its own, each set
 *     counting only while it is on them (the hardware backend,
 *     pmu/hw/pmu_mux_hw.h): the session's events are checked, not placed
 *     (pmu_event_caps.unplaced), and `own` drives it. */
#ifndef PMU_MUX_PART_H
#define PMU_MUX_PART_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/mux/mux.h"
#include "pmu/mux/mux_row.h"
#include "vertigo/log_format.h"

struct pmu_config;
struct pmu_event_list;
struct vcpu;

/* A session on the backend's own counters. */
struct mux_own_session {
    /* The counters left for the sets once the backend's own needs are met
     * (c->mux_layout); false, with the reason printed after `refusal`,
     * when the session cannot run. */
    bool (*layout)(struct pmu_config *c, const char *cmdline, const char *refusal);
    /* cfg's longest turn can be counted; the reason after `refusal` if not. */
    bool (*check_turns)(const struct pmu_config *c, const struct mux_row_config *cfg,
                        const char *refusal);
    /* The console's words on the session's counters (after the sets'),
     * written into buf (size bytes, NUL-terminated). */
    void (*describe)(const struct pmu_config *c, char *buf, size_t size);
    /* Interval 0 of cfg (events `list`) starts now on v. */
    void (*begin)(struct vcpu *v, const struct pmu_event_list *list,
                  const struct mux_row_config *cfg);
    /* The unfinished interval into *row (true), or none. */
    bool (*finish)(const struct vcpu *v, struct log_interval *row);
    /* The session's rows (for the end-of-session line). */
    const struct mux_row_state *(*rows)(const struct vcpu *v);
    /* The backend's own words at the session's end (after the rows'). */
    void (*report)(const struct vcpu *v);
    /* The session's counters leave the CPU (a VCPU switch out, or the
     * session ends before the run) / come back (a VCPU switch in). */
    void (*save)(struct vcpu *v);
    void (*load)(struct vcpu *v);
    /* A sampling session beside it, on the counters left to sampling:
     * the session's events (`counted`), then the sampling ones (false,
     * why: the reason, if they do not fit there). */
    bool (*sampling_list)(const struct pmu_event_list *counted, const char *sampling,
                          struct pmu_event_list *list, char *why, unsigned int why_size);
};

struct mux_part {
    /* The counters the sets are formed over. */
    struct mux_counters (*counters)(const struct pmu_config *c);
    /* NULL: the backend counts every event all along. */
    const struct mux_own_session *own;
};

#endif
