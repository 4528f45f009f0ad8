/* Frequency-mode sampling (sample.freq=F): the controller that turns a
 * counter's recent event rate into its next sampling period, as
 * `perf record -F` does. Portable: no MSRs, no clocks of its own; the
 * caller reports what the counter counted over how much guest time.
 *
 * The rule, at every update with `events` counted over `ticks` TSC ticks
 * of guest time:
 *   target = events * tsc_hz / (ticks * freq)     (the period that would
 *            have given exactly `freq` samples a second at that rate)
 *   period += (target - period) / 4                (rounded towards the
 *            target: smoothing, a quarter of the way, so one odd window
 *            moves the period by a quarter of its gap only, and the
 *            period approaches the target from one side, never oscillating)
 * bounded to [SAMPLE_FREQ_PERIOD_MIN, max]. On a constant rate the gap to
 * the target shrinks to 3/4 an update (to 1 % of itself in 16 updates).
 * A window with no time or no events (a counter that did not count) is no
 * evidence of a rate and leaves the period alone. The products are taken
 * in 128 bits: no input overflows them. */
#ifndef PMU_SAMPLE_FREQ_H
#define PMU_SAMPLE_FREQ_H

#include <stdint.h>

#include "vertigo/hypercall.h"

/* The smallest period frequency mode sets: one sample per 128 events at
 * most, whatever F asks (a PMI costs far more than 128 events' time). */
#define SAMPLE_FREQ_PERIOD_MIN VERTIGO_SESSION_PERIOD_MIN
/* sample.freq= bounds: 1..SAMPLE_FREQ_MAX samples a second (as sample.hz=). */
#define SAMPLE_FREQ_MAX VERTIGO_SESSION_FREQ_MAX

struct sample_freq {
    uint64_t tsc_hz;     /* TSC ticks a second of guest time */
    uint32_t freq;       /* samples a second wanted */
    uint64_t max;        /* the largest period the counter takes */
    uint64_t period;     /* the current period */
};

/* The largest period frequency mode sets: what every counter takes, also
 * the general-purpose counters' legacy 31-bit writes (at F = 1 an event
 * rate above 2^31 a second gets fewer samples than F). */
#define SAMPLE_FREQ_PERIOD_MAX ((1ull << 31) - 1)

/* A sampled counter of a VCPU in frequency mode (pmu/sample/sample_freq_vcpu.c). */
struct sample_freq_counter {
    struct sample_freq ctl;
    uint64_t last_tsc;   /* TSC of the previous overflow taken (or of the start) */
    uint64_t logged;     /* the period the log gives this VCPU's samples */
    uint64_t sampled;    /* the periods of the overflows taken, added up */
};

/* Starts a controller at the period that gives freq samples a second if
 * the event comes once a TSC tick (tsc_hz / freq), bounded. tsc_hz, freq
 * and max must be non-zero (sample_freq_valid). */
void sample_freq_init(struct sample_freq *f, uint64_t tsc_hz, uint32_t freq, uint64_t max);

/* True if freq is a frequency sample.freq= accepts. */
static inline int sample_freq_valid(uint64_t freq)
{
    return freq >= 1 && freq <= SAMPLE_FREQ_MAX;
}

/* The period that would have given exactly f->freq samples a second for
 * `events` over `ticks` (0 when ticks or events is 0), bounded. */
uint64_t sample_freq_target(const struct sample_freq *f, uint64_t events, uint64_t ticks);

/* Moves the period towards the rate of `events` over `ticks`; returns the
 * new period. */
uint64_t sample_freq_update(struct sample_freq *f, uint64_t events, uint64_t ticks);

#endif
