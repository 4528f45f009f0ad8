/* pmu_cost: what the software PMU's mode traps cost a guest, for `make
 * bench-pmu` (tests/bench/bench_pmu.sh). Times a compute loop and a loop
 * of pipe round trips (one-byte write() and read(): two system calls each)
 * with RDTSC (in Bochs with clock sync=none one tick is one emulated
 * instruction, hypervisor included, and the guest cannot change that
 * clock), and, when Vertigo runs a counting session, reads its exit counts
 * over the same windows:
 *
 *   pmu_cost N_COMPUTE N_ROUNDTRIPS [IDX_EXITS IDX_INTERRUPTS]
 *
 * IDX_EXITS / IDX_INTERRUPTS: positions of exits:all and exits:1 (external
 * interrupt exits) in pmu.events. Prints, fastest of three runs each:
 *   pmu_cost: compute N ticks T [exits E interrupts I]
 *   pmu_cost: roundtrips N ticks T [exits E interrupts I]
 * and "pmu_cost: done"; "reason: ..." and exit status 1 on failure. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "guestlib/vertigo_guest.h"
#include "guestlib/vertigo_measure.h"

#define RUNS 3

struct window {
    uint64_t ticks, exits, interrupts;
};

struct probe {
    int counting;
    uint64_t idx_exits, idx_interrupts;
};

static void read_counts(const struct probe *p, uint64_t *exits, uint64_t *interrupts)
{
    *exits = p->counting ? (uint64_t)vertigo_pmu_read(p->idx_exits) : 0;
    *interrupts = p->counting ? (uint64_t)vertigo_pmu_read(p->idx_interrupts) : 0;
}

static uint64_t mixed;          /* printed: the compute loop's work is kept */

static void compute(uint64_t n)
{
    mixed ^= vertigo_loop_mix(n, mixed);
}

static int roundtrips(uint64_t n, const int fds[2])
{
    char byte = 'x';
    for (uint64_t i = 0; i < n; i++)
        if (write(fds[1], &byte, 1) != 1 || read(fds[0], &byte, 1) != 1)
            return -1;
    return 0;
}

/* The fastest of RUNS windows around one loop (kind 0 compute, 1 pipe). */
static int measure(const struct probe *p, int kind, uint64_t n, const int fds[2],
                   struct window *best)
{
    best->ticks = UINT64_MAX;
    for (int r = 0; r < RUNS; r++) {
        struct window w;
        uint64_t e0, i0, e1, i1;
        read_counts(p, &e0, &i0);
        uint64_t t0 = vertigo_tsc_read();
        if (kind == 0)
            compute(n);
        else if (roundtrips(n, fds))
            return -1;
        uint64_t t1 = vertigo_tsc_read();
        read_counts(p, &e1, &i1);
        w = (struct window){ t1 - t0, e1 - e0, i1 - i0 };
        if (w.ticks < best->ticks)
            *best = w;
    }
    return 0;
}

static void print(const struct probe *p, const char *what, uint64_t n, const struct window *w)
{
    printf("pmu_cost: %s %lu ticks %lu", what, (unsigned long)n, (unsigned long)w->ticks);
    if (p->counting)
        printf(" exits %lu interrupts %lu", (unsigned long)w->exits,
               (unsigned long)w->interrupts);
    printf("\n");
}

int main(int argc, char **argv)
{
    struct probe p = { 0 };
    struct window w;
    int fds[2];
    if (argc != 3 && argc != 5) {
        fprintf(stderr, "usage: pmu_cost N_COMPUTE N_ROUNDTRIPS [IDX_EXITS IDX_INTERRUPTS]\n");
        return 2;
    }
    uint64_t n_compute = strtoull(argv[1], NULL, 0), n_trips = strtoull(argv[2], NULL, 0);
    if (argc == 5) {
        p.counting = 1;
        p.idx_exits = strtoull(argv[3], NULL, 0);
        p.idx_interrupts = strtoull(argv[4], NULL, 0);
    }
    if (pipe(fds) || measure(&p, 0, n_compute, fds, &w)) {
        printf("reason: no pipe\n");
        return 1;
    }
    print(&p, "compute", n_compute, &w);
    if (measure(&p, 1, n_trips, fds, &w)) {
        printf("reason: a pipe round trip failed\n");
        return 1;
    }
    print(&p, "roundtrips", n_trips, &w);
    printf("pmu_cost: done (%lx)\n", (unsigned long)mixed);
    return 0;
}
