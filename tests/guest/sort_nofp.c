/* A workload without frame pointers (built -fomit-frame-pointer, as
 * Debian builds glibc) whose time goes to a qsort() callback, for user
 * call stacks unwound on the host from DWARF call-frame information
 * (vertigo-ctl start --call-graph dwarf): its samples must show
 * main -> run_sorts -> glibc's qsort -> ... -> cmp, which no frame-pointer
 * walk can recover (neither this code nor glibc keeps RBP as a frame
 * pointer).
 *
 *   sort_nofp ROUNDS [wait]   sorts a 16-element array ROUNDS times (the
 *                             comparison spins, so samples land in it);
 *                             with "wait" it first reads one byte from
 *                             stdin (the profiler ships its maps first)
 * Prints the rounds and a checksum and exits 0. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guestlib/vertigo_measure.h"

#define ELEMENTS 16
#define CMP_SPIN 40u                /* loop iterations per comparison */

static int values[ELEMENTS];

__attribute__((noinline)) static int cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    uint64_t r = vertigo_loop_mix(CMP_SPIN, (uint64_t)(unsigned int)x);
    __asm__ volatile("" : : "r"(r));
    return (x > y) - (x < y);
}

__attribute__((noinline)) static uint64_t run_sorts(unsigned long rounds)
{
    uint64_t sum = 0;
    for (unsigned long r = 0; r < rounds; r++) {
        for (int i = 0; i < ELEMENTS; i++)
            values[i] = (int)((i * 7919u + r * 104729u) % 1000u);
        qsort(values, ELEMENTS, sizeof(values[0]), cmp);
        sum += (uint64_t)values[0] + (uint64_t)values[ELEMENTS - 1];
    }
    return sum;
}

int main(int argc, char **argv)
{
    unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 0) : 0;
    char go;
    if (rounds == 0 || rounds > 1000000) {
        fprintf(stderr, "sort_nofp: ROUNDS must be 1..1000000\n");
        return 2;
    }
    if (argc > 2 && (strcmp(argv[2], "wait") || read(STDIN_FILENO, &go, 1) != 1)) {
        fprintf(stderr, "sort_nofp: the second argument must be 'wait', then one byte on stdin\n");
        return 2;
    }
    printf("sort_nofp: %lu rounds of qsort on %d elements, checksum %llu\n", rounds, ELEMENTS,
           (unsigned long long)run_sorts(rounds));
    return 0;
}
