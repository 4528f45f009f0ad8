/* The end-of-run report of a counting session (pmu/backend/pmu_session.h): per
 * VCPU totals on the console and in the log (the event-description record
 * of each of the VCPU's event ids, then its PMU-totals record). Event ids
 * are the log's run-wide ids (pmu/run/pmu_log_ids.h). Also the one writer
 * of event-description records, for the sampling sessions too. */
#include "pmu/backend/pmu_session.h"

#include "lib/console.h"
#include "vmm/domain/domain.h"
#include "vmm/log/log_hv.h"
#include "lib/mem.h"

#define TOTALS_TEXT_MAX 640u

void pmu_log_event_desc(uint32_t id, const char *name, size_t name_max, uint64_t code)
{
    struct log_event_desc ed = {
        .event = id, .code = code, .name = name, .len = (uint32_t)strnlen(name, name_max),
    };
    log_hv_event_desc(&ed);
}

void pmu_log_event_names(const struct pmu_ctx *ctx)
{
    for (unsigned int i = 0; i < ctx->count; i++) {
        const struct pmu_event *ev = &ctx->counters[i].event;
        pmu_log_event_desc(ctx->log_ids[i], ev->name, sizeof(ev->name),
                           pmu_event_log_code(ev));
    }
}

static void report_vcpu(const struct domain *d, const struct vcpu *v)
{
    const struct vcpu_pmu *p = &v->pmu;
    static char text[TOTALS_TEXT_MAX];
    struct log_pmu_totals pt = { .domain = d->id, .vcpu = v->id, .count = 0 };

    pmu_session_format_totals(&p->be, &p->ctx, &p->sw, text, sizeof(text));
    printk("pmu: vcpu %u: %s\n", v->id, text);
    if (p->halted_ticks || p->overflows)
        printk("pmu: vcpu %u: %lu halted guest ticks not counted, %lu overflows\n", v->id,
               p->halted_ticks, p->overflows);
    for (unsigned int i = 0; i < p->ctx.count && i < LOG_EVENTS_MAX; i++) {
        pt.totals[i].id = p->ctx.log_ids[i];
        pt.totals[i].value = pmu_read_event(&p->be, &p->ctx, &p->sw, i);
        pt.count++;
    }
    log_hv_pmu_totals(&pt);
}

/* One vcpu-stats record: its exits (all, and by reason: the first
 * LOG_VCPU_STATS_REASONS_MAX reasons that occurred), its switches in after
 * its start and the TSC ticks of their PMU work. Session or not. */
static void log_vcpu_stats(const struct domain *d, const struct vcpu *v)
{
    static struct log_vcpu_stats vs;    /* off the stack: the end of a domain */
    const struct swevent_counts *sw = &v->pmu.sw;
    uint64_t in = sw->value[SWEVENT_VCPU_SWITCHES];
    vs = (struct log_vcpu_stats){ .domain = d->id, .vcpu = v->id, .exits = sw->exits_all,
                                  .switches = in ? in - 1 : 0,
                                  .switch_ticks = v->pmu.sw_state.ticks };
    for (uint32_t r = 0; r < SWEVENT_EXIT_REASONS && vs.count < LOG_VCPU_STATS_REASONS_MAX; r++)
        if (sw->exits[r])
            vs.reasons[vs.count++] = (struct log_counter_value){ r, sw->exits[r] };
    log_hv_vcpu_stats(&vs);
}

void pmu_session_report(const struct domain *d)
{
    for (unsigned int i = 0; i < d->vcpu_count; i++)
        log_vcpu_stats(d, &d->vcpus[i]);
    bool named = false;
    for (unsigned int i = 0; i < d->vcpu_count; i++) {
        const struct vcpu *v = &d->vcpus[i];
        if (!v->pmu.counting || !v->pmu.ctx.count)
            continue;           /* no session, or only the guest's PMU */
        if (!named)
            printk("pmu: totals of the counting session (%s backend):\n",
                   v->pmu.be.ops->name);
        named = true;
        pmu_log_event_names(&v->pmu.ctx);   /* its VCPUs may count different events */
        report_vcpu(d, v);
    }
}
