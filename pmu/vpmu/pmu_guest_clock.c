/* The guest's virtual PMU counted lazily (see pmu/vpmu/pmu_guest_clock.h). */
#include "pmu/vpmu/pmu_guest_clock.h"

/* Out of line: with the budgets' loop (unrolled by the compiler) inlined,
 * pmu_guest_take grows past inlining at the reads' takes, each of which
 * then pays a call more (make bench-exit: a read +9 instructions). */
__attribute__((noinline)) void pmu_guest_clock_plan(struct pmu_guest_clock *c, const struct vpmu *p)
{
    /* No counter that raises a PMI counts: every budget is far. Linux's
     * PMI handler plans twice a PMI with GLOBAL_CTRL cleared (at its
     * writes of 0 and of OVF_CTRL), so this is the common case there; the
     * budgets are those vpmu_pmi_budget's UINT64_MAX gives below. */
    if (p->enabled.pmi_count == 0) {
        for (unsigned int m = 0; m < VPMU_MODE_SETS; m++)
            c->short_of[m] = c->budget[m] = PMU_GUEST_CLOCK_FAR - 1;
        return;
    }
    uint64_t budget[VPMU_MODE_SETS];
    vpmu_pmi_budget(p, budget);
    for (unsigned int m = 0; m < VPMU_MODE_SETS; m++) {
        int64_t b = budget[m] < (uint64_t)PMU_GUEST_CLOCK_FAR ? (int64_t)budget[m]
                                                                : PMU_GUEST_CLOCK_FAR;
        c->short_of[m] = c->budget[m] = b - 1;
    }
}

enum pmu_guest_clock_budgets pmu_guest_clock_count(struct pmu_guest_clock *c, struct vpmu *p)
{
    bool due = pmu_guest_clock_due(c);
    bool counted = false;
    for (unsigned int mode = 0; mode < VPMU_BOTH_MODES; mode++) {
        uint64_t n = (uint64_t)(c->budget[mode] - c->short_of[mode]);
        if (n == 0)
            continue;
        vpmu_count_every_event(p, (enum vpmu_mode)mode, n);
        counted = true;
    }
    return !counted ? PMU_GUEST_CLOCK_KEEP : due ? PMU_GUEST_CLOCK_REPLAN : PMU_GUEST_CLOCK_REMAINDER;
}

void pmu_guest_clock_settle(struct pmu_guest_clock *c, const struct vpmu *p,
                            enum pmu_guest_clock_budgets what)
{
    if (what == PMU_GUEST_CLOCK_REPLAN)
        pmu_guest_clock_plan(c, p);
    else if (what == PMU_GUEST_CLOCK_REMAINDER)
        for (unsigned int m = 0; m < VPMU_MODE_SETS; m++)
            c->budget[m] = c->short_of[m];      /* nothing counted since */
}

void pmu_guest_clock_take(struct pmu_guest_clock *c, struct vpmu *p)
{
    pmu_guest_clock_settle(c, p, pmu_guest_clock_count(c, p));
}
