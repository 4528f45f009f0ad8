/* Per-VCPU PMU context (see pmu/backend/pmu_ctx.h) and the backend-independent
 * read of an event list entry (see pmu/backend/pmu.h). */
#include "pmu/backend/pmu_ctx.h"

#include "pmu/backend/pmu.h"
#include "lib/mem.h"

void pmu_ctx_init(struct pmu_ctx *ctx, const struct pmu_event_list *list,
                  const uint64_t *periods)
{
    memset(ctx, 0, sizeof(*ctx));
    ctx->count = list->count;
    for (unsigned int i = 0; i < list->count; i++) {
        struct pmu_counter *c = &ctx->counters[i];
        c->event = list->events[i];
        if (periods && c->event.source == PMU_EVENT_HW)
            c->period = periods[i];
        /* an event without a slot counts elsewhere (pmu/hw/pmu_mux_hw.h) */
        if (c->event.source == PMU_EVENT_HW && c->event.hypervisor &&
            c->event.slot != PMU_SLOT_NONE)
            ctx->hypervisor_mask |= 1u << i;
    }
}

uint64_t pmu_read_event(const struct pmu_backend *be, const struct pmu_ctx *ctx,
                        const struct swevent_counts *sw, unsigned int i)
{
    if (i >= ctx->count)
        return 0;
    const struct pmu_event *ev = &ctx->counters[i].event;
    if (ev->source == PMU_EVENT_SW)
        return sw ? swevent_read(sw, &ev->sw) : 0;
    return be->ops->read(be->self, ctx, i);
}

const char *pmu_status_text(enum pmu_status s)
{
    switch (s) {
    case PMU_OK:             return "ok";
    case PMU_ERR_VERSION:    return "unsupported PMU version (the hardware backend drives v2-v5)";
    case PMU_ERR_SLOT:       return "event assigned to a counter this backend does not have";
    case PMU_ERR_PERIOD:     return "overflow period out of range for the counter width or write mode";
    case PMU_ERR_MSR:        return "a PMU MSR access faulted";
    case PMU_ERR_CONFIG:     return "invalid backend configuration";
    case PMU_ERR_LOG_IDS:
        return "the domain has used its share of the log's event ids (a run names at most "
               "128 events new to it per domain)";
    }
    return "?";
}
