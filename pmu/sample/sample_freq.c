/* Frequency-mode sampling: the period controller (see pmu/sample/sample_freq.h). */
#include "pmu/sample/sample_freq.h"

static uint64_t bound(const struct sample_freq *f, uint64_t period)
{
    uint64_t min = SAMPLE_FREQ_PERIOD_MIN < f->max ? SAMPLE_FREQ_PERIOD_MIN : f->max;
    if (period < min)
        return min;
    return period > f->max ? f->max : period;
}

void sample_freq_init(struct sample_freq *f, uint64_t tsc_hz, uint32_t freq, uint64_t max)
{
    f->tsc_hz = tsc_hz;
    f->freq = freq ? freq : 1;
    f->max = max ? max : 1;
    f->period = bound(f, tsc_hz / f->freq);
}

uint64_t sample_freq_target(const struct sample_freq *f, uint64_t events, uint64_t ticks)
{
    if (!events || !ticks)
        return 0;
    /* events * tsc_hz < 2^128 and ticks * freq < 2^96: no overflow. */
    unsigned __int128 num = (unsigned __int128)events * f->tsc_hz;
    unsigned __int128 den = (unsigned __int128)ticks * f->freq;
    unsigned __int128 target = num / den;
    return bound(f, target > f->max ? f->max : (uint64_t)target);
}

uint64_t sample_freq_update(struct sample_freq *f, uint64_t events, uint64_t ticks)
{
    uint64_t target = sample_freq_target(f, events, ticks);
    if (!target)
        return f->period;
    /* A quarter of the way; each term is below 2^64 on its own. The +3 of
     * the rounding lets a period one step away reach its target. */
    uint64_t p = f->period;
    uint64_t next = target >= p ? p + (target - p + 3) / 4 : p - (p - target + 3) / 4;
    f->period = bound(f, next);
    return f->period;
}
