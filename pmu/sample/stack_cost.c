/* The least-squares fit of walk cost to depth (see pmu/sample/stack_cost.h). */
#include "pmu/sample/stack_cost.h"

#define TENTHS 10

/* a * b - c * d in *out, false on overflow. */
static bool cross(int64_t a, int64_t b, int64_t c, int64_t d, int64_t *out)
{
    int64_t ab, cd;
    return !__builtin_mul_overflow(a, b, &ab) && !__builtin_mul_overflow(c, d, &cd) &&
           !__builtin_sub_overflow(ab, cd, out);
}

/* With n walks, depth sums D (depth) and Q (depth^2), cycle sum C and
 * cross sum X (depth * cycles): slope = (n X - D C) / (n Q - D^2) and
 * intercept = (C - slope D) / n. The intercept is taken from the slope in
 * tenths, so rounding the slope does not move it by up to D / n cycles. */
bool stack_cost_fit(const struct stack_cost *c, int64_t *fixed, int64_t *per_frame_tenths)
{
    int64_t n = (int64_t)c->walks, d = (int64_t)c->frames, q = (int64_t)c->frames_sq;
    int64_t cy = (int64_t)c->cycles, x = (int64_t)c->frames_cycles;
    int64_t den, num, num10, slope_d;
    if (n < 2 || d < 0 || q < 0 || cy < 0 || x < 0 || !cross(n, q, d, d, &den) || den <= 0 ||
        !cross(n, x, d, cy, &num) || __builtin_mul_overflow(num, TENTHS, &num10))
        return false;
    *per_frame_tenths = num10 / den;
    if (__builtin_mul_overflow(*per_frame_tenths, d, &slope_d))
        return false;
    *fixed = (cy - slope_d / TENTHS) / n;
    return true;
}
