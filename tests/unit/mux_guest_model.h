/* The guest the hardware multiplexing tests run on the register-level
 * PMU model (tests/unit/test_mux_hw_run.c, tests/unit/test_pmu_mux_hw.c):
 * instructions retired one at a time, 700 in user mode then 300 in
 * kernel mode of every 1000, each with its cycles, reference cycles and
 * now and then a branch and a branch miss, so every event of a session
 * counts at its own rate and mode. Test code. */
#ifndef TESTS_UNIT_MUX_GUEST_MODEL_H
#define TESTS_UNIT_MUX_GUEST_MODEL_H

#include <stdint.h>

#include "pmu/backend/pmu_events.h"
#include "tests/unit/pmu_model.h"

/* What one guest instruction (a unit) makes the PMU count. */
struct mux_unit {
    uint64_t instructions, cycles, ref_cycles, branches, branch_misses;
};

/* The privilege level guest instruction number `unit` runs at. */
unsigned int mux_unit_cpl(uint64_t unit);

/* The events of guest instruction number `unit`. */
struct mux_unit mux_unit_of(uint64_t unit);

/* How many of u's events event ev counts (its event select), whatever
 * its mode. */
uint64_t mux_unit_amount(const struct pmu_event *ev, const struct mux_unit *u);

/* u happens on the model at privilege level cpl, its instruction last
 * (so a clock that wraps on it freezes the counters at the unit's end). */
void mux_unit_count(struct pmu_model *m, const struct mux_unit *u, unsigned int cpl);

#endif
