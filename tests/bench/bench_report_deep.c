/* A busy program with many functions and deep call chains, for the real
 * capture of tests/bench/bench_report.sh: `perf record -g` samples it,
 * and the same samples become a Vertigo log (tests/bench/perf_to_log.c),
 * so `vertigo report` and `perf report` read one profile of thousands of
 * distinct addresses in 512 functions, stacks up to 32 frames deep.
 * Each function runs a loop of a length of its own, then calls another
 * one chosen by a hash, until the chain's depth is reached; main starts
 * chains of 4 to 31 calls for argv[1] seconds. */
#include <stdlib.h>
#include <time.h>

#define NS_PER_S 1e9
#define FUNCS 512u
#define CHECK_EVERY 1024u            /* chains between two looks at the clock */
#define DEPTH_MIN 4u
#define DEPTH_SPREAD 28u

typedef void chain_fn(unsigned int depth, unsigned int seed);

static volatile unsigned long sink;
static chain_fn *const table[FUNCS];

/* Function n: a loop of 8 to 40 steps, then the next link of the chain. */
#define FN(n)                                                                         \
    __attribute__((noinline)) static void f##n(unsigned int depth, unsigned int seed) \
    {                                                                                 \
        for (unsigned int i = 0; i < 8u + (0##n % 33u); i++)                          \
            sink += i ^ seed;                                                         \
        if (depth)                                                                    \
            table[(seed ^ 0##n) % FUNCS](depth - 1, seed * 1103515245u + 12345u);     \
    }
/* 2^9 functions named by 9 binary digits (read as octal in FN: distinct). */
#define FN2(n) FN(n##0) FN(n##1)
#define FN4(n) FN2(n##0) FN2(n##1)
#define FN8(n) FN4(n##0) FN4(n##1)
#define FN16(n) FN8(n##0) FN8(n##1)
#define FN32(n) FN16(n##0) FN16(n##1)
#define FN64(n) FN32(n##0) FN32(n##1)
#define FN128(n) FN64(n##0) FN64(n##1)
#define FN256(n) FN128(n##0) FN128(n##1)
FN256(0) FN256(1)

#define REF(n) f##n,
#define REF2(n) REF(n##0) REF(n##1)
#define REF4(n) REF2(n##0) REF2(n##1)
#define REF8(n) REF4(n##0) REF4(n##1)
#define REF16(n) REF8(n##0) REF8(n##1)
#define REF32(n) REF16(n##0) REF16(n##1)
#define REF64(n) REF32(n##0) REF32(n##1)
#define REF128(n) REF64(n##0) REF64(n##1)
#define REF256(n) REF128(n##0) REF128(n##1)
static chain_fn *const table[FUNCS] = { REF256(0) REF256(1) };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / NS_PER_S;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 1.0, end = now() + seconds;
    unsigned int seed = 1;
    while (now() < end)
        for (unsigned int k = 0; k < CHECK_EVERY; k++, seed = seed * 69069u + 1u)
            table[seed % FUNCS](DEPTH_MIN + seed % DEPTH_SPREAD, seed);
    return 0;
}
