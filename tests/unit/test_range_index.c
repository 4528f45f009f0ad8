/* The symbolizer's range index against a brute-force scan: random nested,
 * overlapping and identical ranges in a few groups, every kind of point
 * (range ends, just inside and outside, other groups), priority limits;
 * and the edges: no ranges, empty ranges, a range ending at 2^64 - 1. */
#include "host-tools/range_index.h"
#include "tests/unit/unit.h"

#include <stdlib.h>

#define RANGES 300u
#define QUERIES 4000u
#define GROUPS 3u

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* What range_index_stab must answer, by looking at every range. */
static bool brute(const struct range_item *r, size_t n, uint64_t group, uint64_t addr,
                  uint64_t limit, uint64_t *low, uint64_t *high)
{
    bool found = false;
    for (size_t i = 0; i < n; i++) {
        if (r[i].group != group || addr < r[i].start || addr >= r[i].end || r[i].prio >= limit)
            continue;
        if (!found || r[i].prio < *low)
            *low = r[i].prio;
        if (!found || r[i].prio > *high)
            *high = r[i].prio;
        found = true;
    }
    return found;
}

TEST(stabbing_matches_a_scan_of_every_range)
{
    static struct range_item r[RANGES];
    uint64_t rng = 99;
    for (size_t i = 0; i < RANGES; i++) {
        uint64_t start = rng_next(&rng) % 1000, len = rng_next(&rng) % 3 ? rng_next(&rng) % 100 : 0;
        r[i] = (struct range_item){ rng_next(&rng) % GROUPS, start, start + len,
                                    rng_next(&rng) % (RANGES / 2) };
    }
    r[1] = r[0];                                  /* identical ranges */
    struct range_index *ix = range_index_build(r, RANGES);
    unsigned wrong = 0;
    for (size_t q = 0; q < QUERIES; q++) {
        const struct range_item *near = &r[rng_next(&rng) % RANGES];
        uint64_t addr = near->start + rng_next(&rng) % 3 - 1;   /* just before, at, after */
        if (q % 3 == 1)
            addr = near->end + rng_next(&rng) % 3 - 1;
        uint64_t group = q % 7 ? near->group : GROUPS;
        uint64_t limit = q % 2 ? UINT64_MAX : rng_next(&rng) % (RANGES / 2);
        uint64_t want_low = 0, want_high = 0;
        size_t low = RANGES, high = RANGES;
        bool want = brute(r, RANGES, group, addr, limit, &want_low, &want_high);
        bool got = range_index_stab(ix, group, addr, limit, &low, &high);
        if (got != want || (got && (r[low].prio != want_low || r[high].prio != want_high ||
                                    r[low].group != group || addr < r[low].start ||
                                    addr >= r[high].end)))
            wrong++;
    }
    CHECK_EQ(wrong, 0);
    range_index_free(ix);
}

TEST(edges_no_ranges_empty_ranges_and_the_top_address)
{
    size_t low, high;
    struct range_index *ix = range_index_build(NULL, 0);
    CHECK(!range_index_stab(ix, 0, 0, UINT64_MAX, &low, &high));
    range_index_free(ix);
    struct range_item r[] = {
        { 0, 10, 10, 1 },                            /* empty */
        { 0, 20, 5, 2 },                             /* empty (end below start) */
        { 1, UINT64_MAX - 4, UINT64_MAX, 3 },
    };
    ix = range_index_build(r, 3);
    CHECK(!range_index_stab(ix, 0, 10, UINT64_MAX, &low, &high));
    CHECK(range_index_stab(ix, 1, UINT64_MAX - 1, UINT64_MAX, &low, &high) && low == 2 && high == 2);
    CHECK(!range_index_stab(ix, 1, UINT64_MAX, UINT64_MAX, &low, &high));
    CHECK(!range_index_stab(ix, 1, UINT64_MAX - 1, 3, &low, &high));   /* the limit excludes it */
    range_index_free(ix);
}
