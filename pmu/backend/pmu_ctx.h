/* The per-VCPU PMU context, shared by both backends: which events the VCPU
 * counts (hardware events on assigned counters, software events next to
 * them), the saved counter state while the VCPU is not loaded on a
 * physical CPU, and overflows not yet taken. Generic code creates it from
 * an event list; only the backend that programs it interprets the
 * counter fields marked "backend". Portable. */
#ifndef PMU_PMU_CTX_H
#define PMU_PMU_CTX_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/backend/pmu_events.h"
#include "pmu/backend/swevents.h"

#define PMU_CTX_MAX_COUNTERS PMU_EVENT_LIST_MAX

/* One event counted for a VCPU. The count so far is
 *   accum + ((raw - start) & width_mask)   (hardware backend)
 *   accum + raw                            (software backend)
 * where raw is the live counter while loaded and the saved value otherwise. */
struct pmu_counter {
    struct pmu_event event;     /* what and where (slot) */
    uint64_t period;            /* events between overflows; 0: count only */
    uint64_t accum;             /* backend: events counted before `start` */
    uint64_t start;             /* backend: value the counter was (re)loaded with */
    uint64_t raw;               /* backend: counter value saved at switch-out */
    uint64_t overflows;         /* overflows reported so far (samples) */
    uint64_t sampled_period;    /* backend: the period the last overflow ended
                                 * (what its sample stands for; frequency mode
                                 * changes `period` between overflows) */
    uint64_t skid_max;          /* software backend: most events a guest run
                                 * counted past an overflow point */
};

struct pmu_ctx {
    unsigned int count;
    struct pmu_counter counters[PMU_CTX_MAX_COUNTERS];
    /* counters[i]'s event's id in the log, run-wide (pmu/run/pmu_log_ids.h;
     * apart from the counters: a sample reads it with one load), set by
     * whoever programs the context, else 0 */
    uint32_t log_ids[PMU_CTX_MAX_COUNTERS];
    uint32_t overflow_pending;  /* bit i: counters[i] overflowed, not yet taken */
    uint32_t hypervisor_mask;   /* bit i: counters[i] counts while Vertigo runs (:h) */
    bool loaded;                /* backend state is on the current physical CPU */
    bool in_guest;              /* between pmu enter and exit */
    uint8_t entry_cpl;          /* guest CPL at the last entry */
};

/* Sets ctx up to count the events of list (already assigned to counters by
 * pmu_event_list_parse). periods[i] is the overflow period of event i (0 or
 * periods == NULL: count only; ignored for software events). Counts start
 * at zero; the backend's program operation must run before it is loaded. */
void pmu_ctx_init(struct pmu_ctx *ctx, const struct pmu_event_list *list,
                  const uint64_t *periods);

/* Returns the overflow mask (bit i: counters[i]) collected since the last
 * call and clears it. Inline, like the next: both run at VM exits. */
static inline uint32_t pmu_ctx_take_overflows(struct pmu_ctx *ctx)
{
    uint32_t pending = ctx->overflow_pending;
    ctx->overflow_pending = 0;
    return pending;
}

/* Records that counters[i] overflowed: counts the sample, marks it pending. */
static inline void pmu_ctx_note_overflow(struct pmu_ctx *ctx, unsigned int i)
{
    ctx->counters[i].overflows++;
    ctx->overflow_pending |= 1u << i;
}

#endif
