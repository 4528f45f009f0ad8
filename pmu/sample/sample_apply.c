/* A sampling session's events on a VCPU's context (see pmu/sample/sample_apply.h). */
#include "pmu/sample/sample_apply.h"

#include "pmu/backend/pmu_kind.h"
#include "pmu/mux/mux_part.h"
#include "pmu/mux/pmu_mux_guest.h"
#include "pmu/run/pmu_config.h"
#include "pmu/run/pmu_run.h"
#include "pmu/sample/sample_part.h"
#include "pmu/sample/sample_freq_vcpu.h"
#include "lib/console.h"
#include "lib/format.h"
#include "lib/mem.h"

/* "COUNTING,SAMPLING" (either may be empty) into out. */
static void join_events(const struct pmu_counting *c, const char *sampling, char *out,
                        size_t size)
{
    size_t max = size - 1 < PMU_SESSION_EVENTS_MAX ? size - 1 : PMU_SESSION_EVENTS_MAX;
    size_t n = strnlen(c->text, max);
    memcpy(out, c->text, n);
    if (sampling && sampling[0]) {
        if (n && n + 1 < size)
            out[n++] = ',';
        size_t m = strnlen(sampling, size - 1 - n);
        memcpy(out + n, sampling, m);
        n += m;
    }
    out[n] = '\0';
}

/* The run's backend's part in sampling, or NULL (pmu/sample/sample_part.h). */
static const struct sample_part *part(void)
{
    const struct pmu_kind *kind = pmu_config.kind;
    return kind ? kind->sample : NULL;
}

/* The sampled event i (its position in the joined list) can sample here. */
static bool can_sample(const struct pmu_event *ev, unsigned int i, char *why,
                       unsigned int why_size)
{
    if (ev->source != PMU_EVENT_HW) {
        fmt_snprintf(why, why_size, "event %u \"%s\": a software event cannot sample", i,
                     ev->name);
        return false;
    }
    const struct sample_part *own = part();
    const char *refusal = ev->hypervisor && own ? own->hypervisor_refusal() : NULL;
    if (refusal) {
        fmt_snprintf(why, why_size, "event %u \"%s\": %s", i, ev->name, refusal);
        return false;
    }
    return true;
}

/* The counting session's (c) and the sampling session's events, parsed
 * and placed together (the counting ones first: event ids are positions). */
static bool parse_together(const struct pmu_counting *c, const char *sampling,
                           struct pmu_event_list *list, char *why, unsigned int why_size)
{
    char text[2 * PMU_SESSION_EVENTS_MAX];
    struct pmu_event_caps caps;
    struct pmu_event_error err;
    unsigned int counted = c->list->count;
    join_events(c, sampling, text, sizeof(text));
    pmu_config_caps(&caps);
    if (c->mux)     /* the schedule limits the counters (the guest's session too) */
        caps.desc.gp_counters = PMU_EVENT_LIST_MAX;
    if (pmu_event_list_parse(text, &caps, list, &err) == PMU_EVERR_NONE)
        return true;
    err.index -= err.index >= counted ? counted : 0;
    pmu_event_error_format(&err, why, why_size);
    return false;
}

static bool parse_joined(const struct pmu_counting *c, const char *sampling,
                         struct pmu_event_list *list, char *why, unsigned int why_size)
{
    unsigned int counted = c->list->count;
    if (pmu_config.backend == PMU_SESSION_NONE) {
        fmt_snprintf(why, why_size, "no PMU backend");
        return false;
    }
    /* beside an interval session on the backend's own counters: on the
     * counters left to sampling */
    const struct mux_own_session *mux = pmu_config.kind->mux->own;
    bool ok = c->mux && mux && c->on ? mux->sampling_list(c->list, sampling, list, why, why_size)
                                     : parse_together(c, sampling, list, why, why_size);
    if (!ok)
        return false;
    for (unsigned int i = counted; i < list->count; i++)
        if (!can_sample(&list->events[i], i - counted, why, why_size))
            return false;
    return true;
}

bool sample_check(const char *events, char *why, unsigned int why_size)
{
    struct pmu_event_list list;
    pmu_config_ensure();
    struct pmu_counting c = pmu_counting_of(NULL);
    return parse_joined(&c, events, &list, why, why_size);
}

/* Carries the counting session's counts across the re-programming. */
static void save_counts(const struct vcpu *v, uint64_t *counts)
{
    const struct vcpu_pmu *p = &v->pmu;
    for (unsigned int i = 0; i < p->count_events; i++)
        counts[i] = p->counting ? pmu_read_event(&p->be, &p->ctx, &p->sw, i) : 0;
}

static void restore_counts(struct vcpu *v, const uint64_t *counts)
{
    struct pmu_ctx *ctx = &v->pmu.ctx;
    for (unsigned int i = 0; i < v->pmu.count_events; i++)
        if (ctx->counters[i].event.source == PMU_EVENT_HW)
            ctx->counters[i].accum += counts[i];
}

static bool program(struct vcpu *v, const struct pmu_event_list *list, unsigned int counted,
                    uint64_t period)
{
    struct vcpu_pmu *p = &v->pmu;
    uint64_t periods[PMU_EVENT_LIST_MAX], counts[PMU_EVENT_LIST_MAX];
    save_counts(v, counts);
    for (unsigned int i = 0; i < PMU_EVENT_LIST_MAX; i++)
        periods[i] = i < counted ? pmu_config.period : period;
    enum pmu_status st = pmu_run_program(v, list, periods);
    if (st != PMU_OK) {
        printk("pmu: vcpu %u: no sampling: %s\n", v->id, pmu_status_text(st));
        if (st == PMU_ERR_LOG_IDS)
            return false;       /* refused before any change: the VCPU counts on */
        p->be.ops = NULL;
        p->counting = false;
        return false;
    }
    p->count_events = counted;
    restore_counts(v, counts);
    p->counting = true;
    for (unsigned int i = counted; i < list->count; i++)
        p->sample.mask |= 1u << i;
    return true;
}

/* The overflow points of the session that ends, where the backend
 * measures them: how far past each one the guest had run when it exited
 * (the skid). */
static void report_skid(const struct vcpu *v)
{
    const struct vcpu_pmu *p = &v->pmu;
    const struct sample_part *own = part();
    sample_freq_vcpu_report(v);
    if (!own || !own->measures_skid || !p->counting)
        return;
    for (uint32_t m = p->sample.mask; m; m &= m - 1) {
        const struct pmu_counter *c = &p->ctx.counters[__builtin_ctz(m)];
        printk("pmu: vcpu %u: sampled %s every %lu%s: %lu overflows, skid at most %lu events\n",
               v->id, c->event.name, c->period, p->sample.freq ? " (now)" : "", c->overflows,
               c->skid_max);
    }
}

bool sample_apply(struct vcpu *v, const char *events, uint64_t period, uint32_t freq)
{
    struct vcpu_pmu *p = &v->pmu;
    struct pmu_event_list list;
    char why[128];
    bool sampling = events && events[0];

    const struct sample_part *own = part();
    if (own)
        own->session_ending(v);
    report_skid(v);
    p->sample.mask = 0;
    sample_freq_vcpu_start(v, 0);
    if (!pmu_config.configured || pmu_config.backend == PMU_SESSION_NONE)
        return !sampling;
    struct pmu_counting c = pmu_counting_of(v);
    if (!c.on && !sampling) {
        p->counting = false;
        /* Paravirtual counters and the guest's virtual PMU count the
         * guest's runs, which only a counting backend measures. */
        if (p->pv.count || p->vpmu.on)
            return pmu_run_start_counting(v) == PMU_OK;
        return true;
    }
    if (!parse_joined(&c, events, &list, why, sizeof(why))) {
        printk("pmu: vcpu %u: no sampling: %s\n", v->id, why);
        return false;
    }
    if (!program(v, &list, c.list->count, freq ? sample_freq_first_period(freq) : period))
        return false;
    sample_freq_vcpu_start(v, freq);
    if (own)
        own->session_started(v);
    return true;
}
