/* The fit of call-stack walk cost to depth (pmu/sample/stack_cost.c): walks
 * costing exactly fixed + per_frame * depth give back both; noise around
 * such a line gives them within what the noise allows; walks of a single
 * depth, or none, give no fit; sums too large for 64 bits give no fit
 * rather than a wrapped one. */
#include "pmu/sample/stack_cost.h"
#include "tests/unit/unit.h"

static struct stack_cost line(int64_t fixed, int64_t per_frame, unsigned int lo, unsigned int hi)
{
    struct stack_cost c = { 0 };
    for (unsigned int d = lo; d <= hi; d++)
        for (unsigned int rep = 0; rep < 3; rep++)
            stack_cost_add(&c, d, (uint64_t)(fixed + per_frame * (int64_t)d));
    return c;
}

TEST(exact_line_gives_its_fixed_part_and_slope)
{
    struct stack_cost c = line(280, 45, 0, 16);
    int64_t fixed = 0, tenths = 0;
    CHECK(stack_cost_fit(&c, &fixed, &tenths));
    CHECK_EQ(fixed, 280);
    CHECK_EQ(tenths, 450);
    CHECK_EQ(c.walks, 51);
    CHECK_EQ(c.frames, 3 * (16 * 17 / 2));
}

TEST(fractional_slope_is_kept_in_tenths)
{
    /* 7 cycles every 2 frames: 3.5 a frame */
    struct stack_cost c = { 0 };
    for (unsigned int d = 0; d <= 16; d += 2)
        stack_cost_add(&c, d, 100 + 7 * d / 2);
    int64_t fixed = 0, tenths = 0;
    CHECK(stack_cost_fit(&c, &fixed, &tenths));
    CHECK_EQ(tenths, 35);
    CHECK_EQ(fixed, 100);
}

TEST(noise_averages_out)
{
    /* +-20 cycles alternating around 300 + 50 d: the slope within a
     * tenth of a cycle per frame, the fixed part within 2 cycles */
    struct stack_cost c = { 0 };
    for (unsigned int i = 0; i < 400; i++) {
        unsigned int d = i % 17;
        int64_t noise = (i / 17) % 2 ? 20 : -20;
        stack_cost_add(&c, d, (uint64_t)(300 + 50 * (int64_t)d + noise));
    }
    int64_t fixed = 0, tenths = 0;
    CHECK(stack_cost_fit(&c, &fixed, &tenths));
    CHECK(tenths >= 499 && tenths <= 501);
    CHECK(fixed >= 298 && fixed <= 302);
}

TEST(one_depth_or_too_few_walks_give_no_fit)
{
    struct stack_cost none = { 0 }, one = { 0 }, same = line(280, 45, 7, 7);
    int64_t fixed = -1, tenths = -1;
    stack_cost_add(&one, 5, 500);
    CHECK(!stack_cost_fit(&none, &fixed, &tenths));
    CHECK(!stack_cost_fit(&one, &fixed, &tenths));
    CHECK(!stack_cost_fit(&same, &fixed, &tenths));
    CHECK_EQ(fixed, -1);
    CHECK_EQ(tenths, -1);
}

TEST(sums_beyond_64_bits_give_no_fit)
{
    struct stack_cost c = line(280, 45, 0, 16);
    c.frames_cycles = UINT64_MAX / 4;       /* n * X overflows */
    int64_t fixed = -1, tenths = -1;
    CHECK(!stack_cost_fit(&c, &fixed, &tenths));
    c = line(280, 45, 0, 16);
    c.cycles = UINT64_MAX;                  /* negative as a signed sum */
    CHECK(!stack_cost_fit(&c, &fixed, &tenths));
    CHECK_EQ(fixed, -1);
}

/* Walks are kept by depth as well: each depth's count and cycles, deeper
 * walks than the last bucket in it. */
TEST(walks_are_kept_by_depth)
{
    struct stack_cost c = { 0 };
    stack_cost_add(&c, 16, 900);
    stack_cost_add(&c, 16, 910);
    stack_cost_add(&c, 8, 500);
    stack_cost_add(&c, 40, 2000);
    CHECK_EQ(c.walks_at[16], 2);
    CHECK_EQ(c.cycles_at[16], 1810);
    CHECK_EQ(c.walks_at[8], 1);
    CHECK_EQ(c.walks_at[STACK_COST_DEPTHS - 1], 1);
    CHECK_EQ(c.cycles_at[STACK_COST_DEPTHS - 1], 2000);
    CHECK_EQ(c.walks, 4);
}
