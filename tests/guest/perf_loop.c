/* perf_loop: the known loop the guest's own `perf stat` measures
 * (tests/guest/scenarios/perf).
 *
 *   perf_loop N    runs N (1..10^18) iterations of vertigo_loop_mix
 *                  (VERTIGO_LOOP_MIX_INSTRUCTIONS = 5 instructions each) and
 *                  exits 0, printing nothing
 *
 * Everything else it does costs the same user instructions for every N of
 * the same number of digits (the digits are parsed by one fixed loop, nothing
 * is printed), so the instructions:u of runs with N and 2N differ by exactly
 * 5 N when N and 2N have as many digits (N = 100000, say). Bad input:
 * a message on stderr and exit status 2. */
#include <stdint.h>
#include <stdio.h>

#include "guestlib/vertigo_measure.h"

#define MAX_DIGITS 18

/* N from decimal digits, 0 for anything else (empty, too long, not digits). */
static uint64_t parse_count(const char *text)
{
    uint64_t n = 0;
    int digits = 0;
    for (; *text; text++, digits++) {
        if (*text < '0' || *text > '9' || digits == MAX_DIGITS)
            return 0;
        n = n * 10 + (uint64_t)(*text - '0');
    }
    return n;
}

int main(int argc, char **argv)
{
    uint64_t n = argc == 2 ? parse_count(argv[1]) : 0;
    if (n == 0) {
        fprintf(stderr, "perf_loop: usage: perf_loop N (N: 1 to %d decimal digits, not 0)\n",
                MAX_DIGITS);
        return 2;
    }
    (void)vertigo_loop_mix(n, 1);     /* asm volatile: never dropped */
    return 0;
}
