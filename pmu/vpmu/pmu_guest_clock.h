/* The guest's virtual PMU on the software backend, counted lazily.
 *
 * Every event the software backend counts for the guest advances each of
 * the virtual PMU's available events alike: a tick of a guest run is an
 * instruction, a core cycle and a reference cycle in Bochs (elsewhere only
 * the cycle events are offered), and an instruction Vertigo emulates is one
 * of each in Bochs. So a VCPU keeps, per mode, only the events left before
 * a PMI is due, which every exit lowers with a subtraction, and the
 * virtual PMU's counters take the events since they last did only when
 * something can see them: the guest reads or writes a PMU register
 * (RDMSR, WRMSR, RDPMC) or a counter reaches its PMI. The counts, the
 * overflows and the exit at which each PMI is delivered are those of
 * counting every run at its exit (tests/unit/test_vpmu_clock.c). Portable. */
#ifndef PMU_PMU_GUEST_CLOCK_H
#define PMU_PMU_GUEST_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/vpmu/vpmu.h"

/* What a budget is when no counter of those modes raises a PMI: far
 * enough that no run reaches it (a take sets it again if one ever did). */
#define PMU_GUEST_CLOCK_FAR (1ll << 62)

struct pmu_guest_clock {
    /* Events still to count, since the last take, before a counter of
     * those modes raises its PMI, less one: in user mode, in kernel mode
     * (enum vpmu_mode), and in either (a counter of both modes); negative:
     * due. (Less one, so that an add tests each value by the sign flag
     * its subtraction leaves; a test for 0 or less takes one more
     * instruction each, as compiled.) */
    int64_t short_of[VPMU_MODE_SETS];
    int64_t budget[VPMU_MODE_SETS];     /* short_of[] at the last take */
};

/* n events in mode: true if a PMI is due, so the counters must take the
 * events now (pmu_guest_clock_take). Each budget is lowered in memory and
 * tested at once by its sign, the common case two branches not taken: 6
 * instructions with the mode's index, where OR-ing the two results for
 * one test took 9 as compiled (make bench-exit). */
static inline bool pmu_guest_clock_add(struct pmu_guest_clock *c, enum vpmu_mode mode, uint64_t n)
{
    c->short_of[mode] -= (int64_t)n;
    if (c->short_of[mode] < 0) {
        c->short_of[VPMU_BOTH_MODES] -= (int64_t)n;
        return true;
    }
    c->short_of[VPMU_BOTH_MODES] -= (int64_t)n;
    return c->short_of[VPMU_BOTH_MODES] < 0;
}

/* Events a run in mode may count before a PMI is due (at least 1 while
 * none is due; PMU_GUEST_CLOCK_FAR or about when none is set). */
static inline uint64_t pmu_guest_clock_to_pmi(const struct pmu_guest_clock *c, enum vpmu_mode mode)
{
    int64_t one = c->short_of[mode], both = c->short_of[VPMU_BOTH_MODES];
    return (uint64_t)(one < both ? one : both) + 1;
}

/* True if a PMI point was reached (the counters must take the events). */
static inline bool pmu_guest_clock_due(const struct pmu_guest_clock *c)
{
    return (c->short_of[VPMU_USER] | c->short_of[VPMU_KERNEL] | c->short_of[VPMU_BOTH_MODES]) < 0;
}

/* The counters take the events since the last take: each of p's
 * available events advances by them in their mode (a counter that wraps
 * sets its status bit and may raise a PMI through p's LVTPC, which the
 * caller refreshes first when pmu_guest_clock_due says so). Then the
 * budgets are set (pmu_guest_clock_settle): what was left of them, or
 * from p's counters where a PMI point was reached. */
void pmu_guest_clock_take(struct pmu_guest_clock *c, struct vpmu *p);

/* What the budgets must become after a take (pmu_guest_clock_settle). */
enum pmu_guest_clock_budgets {
    PMU_GUEST_CLOCK_KEEP,       /* nothing was counted: they hold */
    /* Events were counted short of every PMI point: what was left of each.
     * Every counter with a PMI advanced by exactly the events counted in
     * its modes and none wrapped (a wrap is a PMI point); a counter
     * without a PMI sets no budget, wrapped or not. */
    PMU_GUEST_CLOCK_REMAINDER,
    PMU_GUEST_CLOCK_REPLAN,     /* a PMI point was reached, or a register changed: from the counters */
};

/* pmu_guest_clock_take without setting the budgets: returns what they
 * must become, which the caller sets (pmu_guest_clock_settle) before the
 * clock is used again (after a register write, PMU_GUEST_CLOCK_REPLAN if
 * the write can move a counter or a PMI point, so the budgets are made
 * once). */
enum pmu_guest_clock_budgets pmu_guest_clock_count(struct pmu_guest_clock *c, struct vpmu *p);

/* Sets the budgets as pmu_guest_clock_count said (or REPLAN after a
 * register write; the events since the last take must have been taken). */
void pmu_guest_clock_settle(struct pmu_guest_clock *c, const struct vpmu *p,
                            enum pmu_guest_clock_budgets what);

/* The budgets again, from p's counters (at the start; then through
 * pmu_guest_clock_settle). */
void pmu_guest_clock_plan(struct pmu_guest_clock *c, const struct vpmu *p);

#endif
