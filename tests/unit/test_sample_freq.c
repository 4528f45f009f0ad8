/* Frequency-mode sampling's period controller (pmu/sample/sample_freq.c): on a
 * simulated counter whose overflows come every `period` events at a given
 * event rate, the achieved samples a second converge to F (within 1 %),
 * monotonically (no oscillation), follow a rate change, stay within the
 * bounds, ignore windows without evidence (no events, no time), move by a
 * quarter only on an idle stretch, and never overflow. */
#include "pmu/sample/sample_freq.h"
#include "tests/unit/unit.h"

#define TSC_HZ 2000000000ull    /* a 2 GHz TSC */
#define MAX_PERIOD ((1ull << 47) - 1)

/* One overflow of a counter counting `rate` events a second: the guest
 * time its period took, and the controller's update. Returns the samples
 * a second that period gave (rate / period). */
static double overflow(struct sample_freq *f, uint64_t rate)
{
    uint64_t period = f->period;
    uint64_t ticks = (uint64_t)((unsigned __int128)period * TSC_HZ / rate);
    sample_freq_update(f, period, ticks ? ticks : 1);
    return (double)rate / (double)period;
}

static bool within(double got, double want, double tolerance)
{
    double d = got > want ? got - want : want - got;
    return d <= want * tolerance ||
           unit_fail(__FILE__, __LINE__, "%.2f samples/s, want %.2f +- %.1f %%", got, want,
                     tolerance * 100);
}

/* Runs n overflows; returns the achieved rate of the last; checks that the
 * period moved monotonically (it never overshoots and comes back). */
static double settle(struct sample_freq *f, uint64_t rate, unsigned int n)
{
    double got = 0;
    uint64_t first = f->period, prev = f->period;
    for (unsigned int i = 0; i < n; i++) {
        got = overflow(f, rate);
        bool up = first <= f->period;
        CHECK(up ? f->period >= prev : f->period <= prev);
        prev = f->period;
    }
    return got;
}

TEST(freq_converges_to_f_on_a_constant_rate)
{
    struct sample_freq f;
    sample_freq_init(&f, TSC_HZ, 1000, MAX_PERIOD);
    CHECK_EQ(f.period, TSC_HZ / 1000);        /* as if one event a tick */
    within(settle(&f, 300000000, 30), 1000, 0.01);   /* 0.3 events a tick */
    within(settle(&f, 300000000, 40), 1000, 0.001);
}

TEST(freq_follows_a_rate_change)
{
    struct sample_freq f;
    sample_freq_init(&f, TSC_HZ, 4000, MAX_PERIOD);
    within(settle(&f, 1000000000, 40), 4000, 0.01);
    within(settle(&f, 50000000, 40), 4000, 0.01);     /* 20 times fewer events */
    within(settle(&f, 1900000000, 40), 4000, 0.01);   /* then 38 times more */
}

TEST(freq_smooths_one_odd_window)
{
    struct sample_freq f;
    sample_freq_init(&f, TSC_HZ, 1000, MAX_PERIOD);
    settle(&f, TSC_HZ, 60);
    CHECK_EQ(f.period, TSC_HZ / 1000);
    /* An idle stretch: the period's events took 100 times their time. */
    sample_freq_update(&f, f.period, 100ull * TSC_HZ / 1000);
    CHECK_EQ(f.period, TSC_HZ / 1000 - (TSC_HZ / 1000 - TSC_HZ / 100000 + 3) / 4);
    within(settle(&f, TSC_HZ, 40), 1000, 0.01);
}

TEST(freq_windows_without_evidence_keep_the_period)
{
    struct sample_freq f;
    sample_freq_init(&f, TSC_HZ, 1000, MAX_PERIOD);
    uint64_t p = f.period;
    CHECK_EQ(sample_freq_update(&f, 0, 123456789), p);    /* counted nothing */
    CHECK_EQ(sample_freq_update(&f, 5000, 0), p);         /* no guest time */
    CHECK_EQ(sample_freq_target(&f, 0, 1), 0);
}

TEST(freq_periods_stay_within_bounds)
{
    struct sample_freq f;
    sample_freq_init(&f, TSC_HZ, SAMPLE_FREQ_MAX, MAX_PERIOD);
    settle(&f, 1000, 200);                     /* 1,000 events a second */
    CHECK_EQ(f.period, SAMPLE_FREQ_PERIOD_MIN);
    sample_freq_init(&f, TSC_HZ, 1, (1ull << 31) - 1);   /* a 31-bit counter */
    settle(&f, TSC_HZ * 4, 200);
    CHECK_EQ(f.period, (1ull << 31) - 1);
    sample_freq_init(&f, 10, 1000, MAX_PERIOD);           /* tsc_hz / freq == 0 */
    CHECK_EQ(f.period, SAMPLE_FREQ_PERIOD_MIN);
    sample_freq_init(&f, TSC_HZ, 1000, 16);               /* max below the minimum */
    CHECK_EQ(f.period, 16);
    CHECK(!sample_freq_valid(0));
    CHECK(sample_freq_valid(1));
    CHECK(sample_freq_valid(SAMPLE_FREQ_MAX));
    CHECK(!sample_freq_valid(SAMPLE_FREQ_MAX + 1));
}

TEST(freq_arithmetic_does_not_overflow)
{
    struct sample_freq f;
    sample_freq_init(&f, UINT64_MAX, 1, UINT64_MAX);
    CHECK_EQ(f.period, UINT64_MAX);
    CHECK_EQ(sample_freq_target(&f, UINT64_MAX, 1), UINT64_MAX);
    CHECK_EQ(sample_freq_target(&f, UINT64_MAX, UINT64_MAX), UINT64_MAX);
    CHECK_EQ(sample_freq_target(&f, 1, UINT64_MAX), 1 < SAMPLE_FREQ_PERIOD_MIN ? SAMPLE_FREQ_PERIOD_MIN : 1);
    CHECK_EQ(sample_freq_update(&f, UINT64_MAX, 1), UINT64_MAX);
    sample_freq_init(&f, UINT64_MAX, SAMPLE_FREQ_MAX, MAX_PERIOD);
    CHECK_EQ(sample_freq_update(&f, 1, UINT64_MAX), MAX_PERIOD - (MAX_PERIOD - SAMPLE_FREQ_PERIOD_MIN + 3) / 4);
    sample_freq_init(&f, TSC_HZ, 1000, UINT64_MAX);
    f.period = UINT64_MAX - 1;                /* the step up from near the top */
    CHECK_EQ(sample_freq_update(&f, UINT64_MAX, 1), UINT64_MAX);
}
