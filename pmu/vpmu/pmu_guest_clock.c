/* The guest's virtual PMU counted lazily (see pmu/vpmu/pmu_guest_clock.h). */
#include "pmu/vpmu/pmu_guest_clock.h"

void pmu_guest_clock_plan(struct pmu_guest_clock *c, const struct vpmu *p)
{
    uint64_t budget[VPMU_MODE_SETS];
    vpmu_pmi_budget(p, budget);
    for (unsigned int m = 0; m < VPMU_MODE_SETS; m++) {
        int64_t b = budget[m] < (uint64_t)PMU_GUEST_CLOCK_FAR ? (int64_t)budget[m]
                                                                : PMU_GUEST_CLOCK_FAR;
        c->short_of[m] = c->budget[m] = b - 1;
    }
}

bool pmu_guest_clock_count(struct pmu_guest_clock *c, struct vpmu *p)
{
    bool counted = false;
    for (unsigned int mode = 0; mode < VPMU_BOTH_MODES; mode++) {
        uint64_t n = (uint64_t)(c->budget[mode] - c->short_of[mode]);
        if (n == 0)
            continue;
        vpmu_count_every_event(p, (enum vpmu_mode)mode, n);
        counted = true;
    }
    return counted;
}

/* Nothing counted since the last take leaves the budgets as they are. */
void pmu_guest_clock_take(struct pmu_guest_clock *c, struct vpmu *p)
{
    if (pmu_guest_clock_count(c, p))
        pmu_guest_clock_plan(c, p);
}
