/* pmu_bench: the software PMU's slowdown of a guest user loop, for
 * `make bench-pmu` (tests/bench/bench_pmu.sh). Times the same loop with
 * RDTSC (guest-visible; in Bochs with clock sync=none one tick is one
 * emulated instruction, hypervisor included, so the ratios are exact) at
 * each user step granularity set with VERTIGO_HC_PMU_STEP:
 *
 *   pmu_bench IDX_U IDX_X N REPS STEP...
 *
 * STEP "base" is the baseline: a step longer than the VMX-preemption timer
 * can count, so the loop is never stepped; "0" is back to pmu.step. Each
 * step runs the loop of N iterations REPS times and prints
 *   pmu_bench: step S: N iterations, min T ticks, max T ticks, step exits X, instructions:u U
 * (over the fastest run's window: X the session's exits:preemption_timer,
 * index IDX_X of pmu.events, and U its instructions:u, index IDX_U). Last
 * line "pmu_bench: done" on success, else "reason: ..." and exit status 1. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guestlib/vertigo_guest.h"

/* Longer than the 32-bit VMX-preemption timer can count: no stepping. */
#define BASELINE_STEP   (1ull << 40)

struct timing {
    uint64_t ticks;             /* TSC ticks of the loop */
    uint64_t user;              /* instructions:u over the same window */
    uint64_t exits;             /* exits:preemption_timer over the same window */
};

struct session_idx {
    uint64_t user, exits;       /* positions in pmu.events */
};

/* The measured loop: INC, DEC, JNZ per iteration, between two TSC reads. */
static __attribute__((noinline)) struct timing timed_loop(struct session_idx idx,
                                                          uint64_t iterations)
{
    uint64_t x0 = (uint64_t)vertigo_pmu_read(idx.exits);
    uint64_t u0 = (uint64_t)vertigo_pmu_read(idx.user);
    uint64_t t0 = vertigo_tsc_read();
    vertigo_loop_inc(iterations);
    uint64_t t1 = vertigo_tsc_read();
    uint64_t u1 = (uint64_t)vertigo_pmu_read(idx.user);
    uint64_t x1 = (uint64_t)vertigo_pmu_read(idx.exits);
    struct timing t = { t1 - t0, u1 - u0, x1 - x0 };
    return t;
}

static int measure(const char *step_text, struct session_idx idx, uint64_t n, unsigned int reps)
{
    uint64_t step = strcmp(step_text, "base") == 0 ? BASELINE_STEP
                                                    : strtoull(step_text, NULL, 0);
    if (vertigo_pmu_set_step(step) < 0) {
        printf("reason: VERTIGO_HC_PMU_STEP refused step %s (no software-PMU session?)\n",
               step_text);
        return 0;
    }
    struct timing best = { UINT64_MAX, 0, 0 };
    uint64_t worst = 0;
    for (unsigned int r = 0; r < reps; r++) {
        struct timing t = timed_loop(idx, n);
        if (t.ticks < best.ticks)
            best = t;
        if (t.ticks > worst)
            worst = t.ticks;
    }
    vertigo_pmu_set_step(0);
    printf("pmu_bench: step %s: %lu iterations, min %lu ticks, max %lu ticks, step exits %lu, "
           "instructions:u %lu\n", step_text, (unsigned long)n, (unsigned long)best.ticks,
           (unsigned long)worst, (unsigned long)best.exits, (unsigned long)best.user);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: pmu_bench IDX_U IDX_X N REPS STEP...\n");
        return 2;
    }
    struct session_idx idx = { strtoull(argv[1], NULL, 0), strtoull(argv[2], NULL, 0) };
    uint64_t n = strtoull(argv[3], NULL, 0);
    unsigned int reps = (unsigned int)strtoul(argv[4], NULL, 0);
    if (!vertigo_has_features(VERTIGO_FEAT_PMU)) {
        printf("reason: not running under Vertigo with the PMU hypercalls\n");
        return 1;
    }
    int64_t events = vertigo_pmu_event_count();
    if (events <= (int64_t)idx.user || events <= (int64_t)idx.exits) {
        printf("reason: no counting session with events %lu and %lu\n",
               (unsigned long)idx.user, (unsigned long)idx.exits);
        return 1;
    }
    if (n == 0 || reps == 0) {
        printf("reason: N and REPS must be positive\n");
        return 1;
    }
    for (int i = 5; i < argc; i++)
        if (!measure(argv[i], idx, n, reps))
            return 1;
    printf("pmu_bench: done\n");
    return 0;
}
