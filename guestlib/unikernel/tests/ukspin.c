/* ukspin: the compute loop of the domain-sharing benchmark
 * (tests/bench/bench_domains.sh).
 *
 *   module2 ukspin.elf ukspin ROUNDS ITERATIONS
 *
 * Runs ROUNDS rounds of ITERATIONS iterations of vertigo_loop_inc (3
 * instructions each) and prints each round's TSC ticks:
 *   ukspin: round R: instructions I ticks T
 * The TSC is the machine's, not the domain's to set. In Bochs one tick is
 * one instruction the machine emulated, so T / I is the loop's slowdown:
 * about 1 with its CPU to itself, about the number of busy domains
 * sharing the CPU otherwise, and what is beyond that is the cost of
 * sharing (VCPU switches, the other domains' interrupts). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "guestlib/unikernel/vertigo_uk.h"

static uint64_t tsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

int main(int argc, char **argv)
{
    unsigned long rounds = argc > 2 ? strtoul(argv[1], NULL, 0) : 0;
    unsigned long iterations = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;

    if (!rounds || !iterations) {
        printf("ukspin: usage: ukspin ROUNDS ITERATIONS (both above 0)\n");
        return 2;
    }
    for (unsigned long r = 0; r < rounds; r++) {
        uint64_t t0 = tsc();
        vertigo_loop_inc(iterations);
        uint64_t t1 = tsc();
        printf("ukspin: round %lu: instructions %llu ticks %llu\n", r,
               (unsigned long long)VERTIGO_LOOP_INC_INSTRUCTIONS * iterations,
               (unsigned long long)(t1 - t0));
    }
    return 0;
}
