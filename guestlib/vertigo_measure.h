/* Measurement primitives for guest programs that check counts: a fenced
 * TSC read and loops with a known number of instructions an iteration.
 * Each is forced inline and is one fixed instruction sequence, so a
 * measured window holds exactly what its caller puts there (tests/e2e and
 * tests/bench compare exact instruction counts). Header-only; user space. */
#ifndef GUESTLIB_VERTIGO_MEASURE_H
#define GUESTLIB_VERTIGO_MEASURE_H

#include <stdint.h>

#define VERTIGO_LOOP_INC_INSTRUCTIONS 3   /* INC, DEC, JNZ */
#define VERTIGO_LOOP_MIX_INSTRUCTIONS 5   /* ADD, XOR, ROR, DEC, JNZ */

/* The TSC between two LFENCEs: earlier instructions have completed before
 * the read, later ones start after it (Intel SDM Vol. 2B, RDTSC). */
static inline __attribute__((always_inline)) uint64_t vertigo_tsc_read(void)
{
    uint32_t lo, hi;
    __asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
    return ((uint64_t)hi << 32) | lo;
}

/* Runs `iterations` (at least 1) iterations of INC, DEC, JNZ: exactly
 * VERTIGO_LOOP_INC_INSTRUCTIONS instructions each, no memory access.
 * Returns `iterations` (the INC's count). */
static inline __attribute__((always_inline)) uint64_t vertigo_loop_inc(uint64_t iterations)
{
    uint64_t n = iterations, sum = 0;
    __asm__ volatile("1:\n\t"
                     "inc %[sum]\n\t"
                     "dec %[n]\n\t"
                     "jnz 1b\n\t"
                     : [n] "+r"(n), [sum] "+r"(sum) : : "cc");
    return sum;
}

/* Runs `iterations` (at least 1) iterations of ADD, XOR, ROR, DEC, JNZ
 * mixing them into `seed`: exactly VERTIGO_LOOP_MIX_INSTRUCTIONS
 * instructions each, no memory access. Returns the mixed value (callers
 * print it so the work cannot be dropped). */
static inline __attribute__((always_inline)) uint64_t vertigo_loop_mix(uint64_t iterations,
                                                                      uint64_t seed)
{
    uint64_t acc = seed;
    __asm__ volatile("1:\n\t"
                     "add %[it], %[acc]\n\t"
                     "xor $0x5a5a, %[acc]\n\t"
                     "ror $7, %[acc]\n\t"
                     "dec %[it]\n\t"
                     "jnz 1b"
                     : [acc] "+r"(acc), [it] "+r"(iterations) : : "cc");
    return acc;
}

#endif
