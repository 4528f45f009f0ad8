/* bench_sample: a guest user workload timed from inside the guest, for
 * `make bench-sample` (tests/bench/bench_sample.sh), which runs it with
 * and without a sampling session and compares the times. In Bochs with
 * clock sync=none the TSC counts emulated instructions, hypervisor
 * included, so the guest-visible slowdown is exact.
 *
 *   bench_sample LABEL N REPS
 *
 * Runs a loop of N iterations of a fixed 5-instruction body
 * (vertigo_loop_mix, as tests/guest/workload.c does) REPS times (1..64),
 * each between two RDTSCs, at the bottom of a call chain main -> run -> nest x
 * NEST_DEPTH -> spin whose frames keep their frame pointers, so a session
 * with call stacks walks a realistic stack. Prints
 *   bench_sample: LABEL: N iterations x 5 instructions, min T ticks, median T ticks, max T ticks
 * (the median of an even count is the lower middle run: a time one run
 * took) and exits 0; on bad arguments "reason: ..." and exit status 1. */
#pragma GCC optimize("no-omit-frame-pointer", "no-optimize-sibling-calls")

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "guestlib/vertigo_measure.h"

#define NEST_DEPTH     6
#define MAX_ITERATIONS (1ull << 40)
#define MAX_REPS       64

/* The frame at the bottom of the chain: 5 instructions per iteration. */
static __attribute__((noinline)) uint64_t spin(uint64_t iterations, uint64_t seed)
{
    return vertigo_loop_mix(iterations, seed);
}

/* depth frames above spin; the empty asm keeps each call a real call. */
static __attribute__((noinline)) uint64_t nest(unsigned int depth, uint64_t iterations)
{
    uint64_t r = depth ? nest(depth - 1, iterations) : spin(iterations, depth + 1);
    __asm__ volatile("" : "+r"(r));
    return r;
}

/* TSC ticks of one run of the loop. */
static __attribute__((noinline)) uint64_t run(uint64_t iterations, uint64_t *result)
{
    uint64_t t0 = vertigo_tsc_read();
    *result ^= nest(NEST_DEPTH, iterations);
    uint64_t t1 = vertigo_tsc_read();
    return t1 - t0;
}

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: bench_sample LABEL N REPS\n");
        return 2;
    }
    uint64_t n = strtoull(argv[2], NULL, 0);
    unsigned long reps = strtoul(argv[3], NULL, 0);
    if (n == 0 || n > MAX_ITERATIONS || reps == 0 || reps > MAX_REPS) {
        printf("reason: N must be 1..2^40 and REPS 1..%d (got '%s', '%s')\n", MAX_REPS,
               argv[2], argv[3]);
        return 1;
    }
    uint64_t ticks[MAX_REPS], result = 0;
    for (unsigned long r = 0; r < reps; r++)
        ticks[r] = run(n, &result);
    qsort(ticks, reps, sizeof ticks[0], by_value);
    printf("bench_sample: %s: %llu iterations x %d instructions, min %llu ticks, median %llu ticks,"
           " max %llu ticks (result %#llx)\n", argv[1], (unsigned long long)n,
           VERTIGO_LOOP_MIX_INSTRUCTIONS, (unsigned long long)ticks[0],
           (unsigned long long)ticks[(reps - 1) / 2], (unsigned long long)ticks[reps - 1],
           (unsigned long long)result);
    return 0;
}
