/* Frequency mode on a VCPU (see pmu/sample/sample_freq_vcpu.h). */
#include "pmu/sample/sample_freq_vcpu.h"

#include "boot/platform.h"
#include "pmu/pmu_arch.h"
#include "pmu/run/pmu_run.h"
#include "pmu/sample/sample_freq.h"
#include "vertigo/log_format.h"
#include "lib/console.h"
#include "vmm/log/log_hv.h"

uint64_t sample_freq_first_period(uint32_t freq)
{
    struct sample_freq f;
    sample_freq_init(&f, platform_tsc_hz(), freq, SAMPLE_FREQ_PERIOD_MAX);
    return f.period;
}

void sample_freq_vcpu_start(struct vcpu *v, uint32_t freq)
{
    struct vcpu_pmu *p = &v->pmu;
    uint64_t now = pmu_arch_tsc();
    p->sample.freq = freq;
    for (uint32_t m = freq ? p->sample.mask : 0; m; m &= m - 1) {
        unsigned int i = (unsigned int)__builtin_ctz(m);
        struct sample_freq_counter *fc = &p->sample.freq_counters[i];
        sample_freq_init(&fc->ctl, platform_tsc_hz(), freq, SAMPLE_FREQ_PERIOD_MAX);
        fc->last_tsc = now;
        fc->logged = p->ctx.counters[i].period;    /* the session-wide record's */
        fc->sampled = 0;
    }
}

/* The period c can take at this overflow point (pmu/backend/pmu.h). */
static uint64_t reachable(const struct pmu_backend *be, const struct pmu_counter *c,
                          uint64_t period)
{
    return be->ops && be->ops->reachable_period ? be->ops->reachable_period(c, period) : period;
}

void sample_freq_overflows(struct vcpu *v, uint32_t mask)
{
    struct vcpu_pmu *p = &v->pmu;
    if (!p->sample.freq)
        return;
    uint64_t now = pmu_arch_tsc();
    for (uint32_t m = mask & p->sample.mask; m; m &= m - 1) {
        unsigned int i = (unsigned int)__builtin_ctz(m);
        struct sample_freq_counter *fc = &p->sample.freq_counters[i];
        struct pmu_counter *c = &p->ctx.counters[i];
        fc->sampled += c->sampled_period;
        sample_freq_update(&fc->ctl, c->sampled_period, now - fc->last_tsc);
        fc->last_tsc = now;
        c->period = reachable(&p->be, c, fc->ctl.period);
    }
}

void sample_freq_log_period(struct vcpu *v, unsigned int i)
{
    struct vcpu_pmu *p = &v->pmu;
    if (!p->sample.freq || !(p->sample.mask & (1u << i)))
        return;
    struct sample_freq_counter *fc = &p->sample.freq_counters[i];
    uint64_t period = p->ctx.counters[i].sampled_period;
    if (!period || period == fc->logged)
        return;
    fc->logged = period;
    log_hv_event_period(&(struct log_event_period){ .event = p->ctx.log_ids[i],
                                                    .period = period,
                                                    .per_vcpu = true,
                                                    .domain = v->domain->id,
                                                    .vcpu = v->id });
}

void sample_freq_vcpu_report(const struct vcpu *v)
{
    const struct vcpu_pmu *p = &v->pmu;
    for (uint32_t m = p->sample.freq && p->counting ? p->sample.mask : 0; m; m &= m - 1) {
        unsigned int i = (unsigned int)__builtin_ctz(m);
        const struct pmu_counter *c = &p->ctx.counters[i];
        const struct sample_freq_counter *fc = &p->sample.freq_counters[i];
        uint64_t count = pmu_read_event(&p->be, &p->ctx, &p->sw, i);
        printk("pmu: vcpu %u: sampled %s at %u a second: %lu overflows, %lu events in "
               "their periods + %lu since = %lu counted, period now %lu\n", v->id,
               c->event.name, p->sample.freq, c->overflows, fc->sampled, count - fc->sampled, count,
               c->period);
    }
}
