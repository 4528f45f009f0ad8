/* Interval multiplexing (pmu/mux/mux.c): set formation under fixed and
 * general-purpose counter constraints, length checks, the rotation order,
 * and extrapolation arithmetic against 128-bit reference arithmetic,
 * including events never scheduled in an interval. */
#include "tests/unit/unit.h"
#include "pmu/mux/mux.h"

#include <string.h>

static const struct mux_event_need gp_only = { -1, true };

TEST(two_soft_counters_take_eight_events_in_four_sets_in_order)
{
    struct mux_event_need ev[8];
    struct mux_counters soft = { 2, 0 };
    struct mux_plan plan;
    unsigned int bad = 99;
    for (unsigned int i = 0; i < 8; i++)
        ev[i] = gp_only;
    CHECK_EQ(mux_plan_sets(ev, 8, &soft, &plan, &bad), MUX_OK);
    CHECK_EQ(plan.set_count, 4);
    for (unsigned int i = 0; i < 8; i++) {
        CHECK_EQ(plan.set_of[i], i / 2);
        CHECK(!plan.on_fixed[i]);
        CHECK_EQ(plan.gp_index[i], i % 2);
    }
}

TEST(fixed_counters_are_taken_first_and_gp_after)
{
    struct mux_counters hw = { 2, 0x7 };
    const struct mux_event_need ev[] = {
        { 0, true },    /* instructions: fixed 0 */
        { 0, true },    /* instructions again: fixed 0 is taken, GP 0 */
        { 1, true },    /* cycles: fixed 1 */
        { -1, true },   /* branches: GP 1 */
        { -1, true },   /* LLC misses: no GP left, set 1 */
        { 2, false },   /* an event only fixed 2 counts: set 0 */
        { 2, false },   /* again: fixed 2 is taken in set 0, set 1 */
    };
    struct mux_plan plan;
    unsigned int bad;
    CHECK_EQ(mux_plan_sets(ev, 7, &hw, &plan, &bad), MUX_OK);
    CHECK_EQ(plan.set_count, 2);
    const uint8_t want_set[] = { 0, 0, 0, 0, 1, 0, 1 };
    const bool want_fixed[] = { true, false, true, false, false, true, true };
    for (unsigned int i = 0; i < 7; i++) {
        CHECK_EQ(plan.set_of[i], want_set[i]);
        CHECK_EQ(plan.on_fixed[i], want_fixed[i]);
    }
    CHECK_EQ(plan.gp_index[1], 0);
    CHECK_EQ(plan.gp_index[3], 1);
    CHECK_EQ(plan.gp_index[4], 0);
}

TEST(an_event_no_counter_counts_is_named)
{
    struct mux_counters hw = { 4, 0x7 };
    const struct mux_event_need ev[] = { { 0, true }, { 3, false }, { -1, true } };
    struct mux_plan plan;
    unsigned int bad = 99;
    CHECK_EQ(mux_plan_sets(ev, 3, &hw, &plan, &bad), MUX_ERR_NO_COUNTER);
    CHECK_EQ(bad, 1);
    struct mux_counters none = { 0, 0 };
    CHECK_EQ(mux_plan_sets(ev + 2, 1, &none, &plan, &bad), MUX_ERR_NO_COUNTER);
    CHECK_EQ(mux_plan_sets(ev, 0, &hw, &plan, &bad), MUX_ERR_NO_EVENTS);
    struct mux_event_need many[MUX_EVENTS_MAX + 1];
    for (unsigned int i = 0; i <= MUX_EVENTS_MAX; i++)
        many[i] = gp_only;
    CHECK_EQ(mux_plan_sets(many, MUX_EVENTS_MAX + 1, &hw, &plan, &bad),
             MUX_ERR_TOO_MANY_EVENTS);
    CHECK_EQ(mux_plan_sets(many, MUX_EVENTS_MAX, &(struct mux_counters){ 1, 0 }, &plan, &bad),
             MUX_OK);
    CHECK_EQ(plan.set_count, MUX_EVENTS_MAX);
}

TEST(interval_and_sub_interval_lengths_are_checked)
{
    CHECK_EQ(mux_check_lengths(0, 1, 1), MUX_ERR_INTERVAL_ZERO);
    CHECK_EQ(mux_check_lengths(10, 0, 1), MUX_ERR_SUB_ZERO);
    CHECK_EQ(mux_check_lengths(10, 11, 1), MUX_ERR_SUB_LONGER);
    CHECK_EQ(mux_check_lengths(1000000, 100000, 11), MUX_ERR_TOO_FEW_TURNS);
    CHECK_EQ(mux_check_lengths(1000000, 100000, 10), MUX_OK);
    for (int e = MUX_OK; e <= MUX_ERR_TOO_FEW_TURNS; e++)
        for (int f = MUX_OK; f < e; f++)
            CHECK(strcmp(mux_err_text((enum mux_err)e), mux_err_text((enum mux_err)f)) != 0);
}

TEST(sets_take_turns_across_interval_boundaries)
{
    struct mux_plan plan = { .set_count = 3 };
    unsigned int got[12], share[3] = { 0, 0, 0 };
    for (unsigned int i = 0; i < 3; i++)
        for (unsigned int s = 0; s < 4; s++)
            share[got[i * 4 + s] = mux_set_at(&plan, i, s, 4)]++;
    const unsigned int want[12] = { 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2 };
    CHECK(memcmp(got, want, sizeof(got)) == 0);
    CHECK(share[0] == 4 && share[1] == 4 && share[2] == 4);
    /* huge interval numbers: the same as 128-bit arithmetic */
    plan.set_count = 7;
    uint64_t interval = (1ull << 63) + 12345, subs = (1ull << 40) + 3, sub = 17;
    unsigned __int128 turn = (unsigned __int128)interval * subs + sub;
    CHECK_EQ(mux_set_at(&plan, interval, sub, subs), (unsigned int)(turn % 7));
}

static uint64_t reference(uint64_t raw, uint64_t enabled, uint64_t running)
{
    unsigned __int128 v = ((unsigned __int128)raw * enabled + running / 2) / running;
    return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

TEST(extrapolation_matches_128_bit_arithmetic)
{
    uint64_t v = 1;
    CHECK_EQ(mux_extrapolate(500, 1000, 1000, &v), MUX_MEASURED);
    CHECK_EQ(v, 500);
    CHECK_EQ(mux_extrapolate(3, 10, 4, &v), MUX_SCALED);
    CHECK_EQ(v, 8);                                 /* 7.5, rounded to nearest */
    CHECK_EQ(mux_extrapolate(77, 1000, 0, &v), MUX_UNMEASURED);
    CHECK_EQ(v, 0);
    CHECK_EQ(mux_extrapolate(UINT64_MAX, UINT64_MAX, 2, &v), MUX_SCALED);
    CHECK_EQ(v, UINT64_MAX);                        /* saturated */
    uint64_t x = 0x243f6a8885a308d3ull;
    for (unsigned int i = 0; i < 100000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint64_t enabled = x >> (x % 64);
        uint64_t running = enabled ? (x * 0x9e3779b97f4a7c15ull) % enabled : 0;
        uint64_t raw = (x >> 3) >> ((x >> 7) % 64);
        if (running == 0)
            continue;
        CHECK_EQ(mux_extrapolate(raw, enabled, running, &v), MUX_SCALED);
        CHECK_EQ(v, reference(raw, enabled, running));
    }
}

/* Eight events of constant rates (events per instruction) over two
 * counters, N = 1M, S = 100K: every set is on the counters 2 or 3 of the
 * 10 sub-intervals of an interval, and each event's extrapolated value is
 * exactly its rate times N. */
TEST(constant_rates_extrapolate_exactly_through_the_rotation)
{
    struct mux_event_need ev[8];
    struct mux_plan plan;
    unsigned int bad;
    for (unsigned int i = 0; i < 8; i++)
        ev[i] = gp_only;
    CHECK_EQ(mux_plan_sets(ev, 8, &(struct mux_counters){ 2, 0 }, &plan, &bad), MUX_OK);
    const uint64_t n = 1000000, s = 100000, subs = n / s;
    CHECK_EQ(mux_check_lengths(n, s, plan.set_count), MUX_OK);
    for (uint64_t interval = 0; interval < 5; interval++) {
        uint64_t raw[8] = { 0 }, running[8] = { 0 };
        for (uint64_t sub = 0; sub < subs; sub++) {
            unsigned int set = mux_set_at(&plan, interval, sub, subs);
            for (unsigned int e = 0; e < 8; e++)
                if (plan.set_of[e] == set) {
                    raw[e] += (e + 1) * s;
                    running[e] += s;
                }
        }
        for (unsigned int e = 0; e < 8; e++) {
            uint64_t v;
            CHECK(running[e] == 2 * s || running[e] == 3 * s);
            CHECK_EQ(mux_extrapolate(raw[e], n, running[e], &v), MUX_SCALED);
            CHECK_EQ(v, (e + 1) * n);
        }
    }
}
