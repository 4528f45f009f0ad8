/* ukloop: a unikernel test program of known instruction counts. Vertigo
 * counts its VCPU's instructions:u; nothing but this program runs at CPL 3
 * in the domain and no interrupt reaches it, so every window below has an
 * exact count.
 *
 *   module2 ukloop.elf ukloop IDX_U N
 *
 * IDX_U is the position of instructions:u in Vertigo's pmu.events= list.
 * Checks, each printed as "ukloop: PASS: ..." or "ukloop: FAIL: ...":
 *  1. block: BLOCK_NOPS NOPs between two reads count BLOCK_NOPS +
 *     BLOCK_EXTRA exactly;
 *  2. loop: vertigo_loop_inc over N and 2N iterations (3 instructions
 *     each): the difference of the two counts is 3 N exactly, and a second
 *     run of N counts the same as the first;
 *  3. the runtime: malloc of 1 MiB from the heap, the TSC clocks moving
 *     forward (clock_gettime, then gettimeofday no earlier), clock(),
 *     printf's number formatting (newlib).
 * The line "ukloop: counted block B loop L" gives the measured block count
 * and the N-vs-2N difference for the e2e test; exit status 0 when all pass
 * (the domain's verdict). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "guestlib/unikernel/vertigo_uk.h"

#define BLOCK_NOPS  1000
/* After the first read: its VMCALL (counted once it retires), MOV RAX->RDX
 * and MOV to EAX; the second VMCALL reads before it retires. */
#define BLOCK_EXTRA 3
#define HEAP_TEST_BYTES (1u << 20)
#define STR(x)  #x
#define XSTR(x) STR(x)

static int passes, failures;

static void check(int ok, const char *what)
{
    printf("ukloop: %s: %s\n", ok ? "PASS" : "FAIL", what);
    failures += !ok;
    passes += ok;
}

/* instructions:u across BLOCK_NOPS NOPs, as one fixed instruction sequence. */
static uint64_t block_count(uint64_t idx)
{
    uint64_t first, second;
    __asm__ volatile("vmcall\n\t"
                     "mov %%rax, %%rdx\n\t"
                     "mov %[nr], %%eax\n\t"
                     ".rept " XSTR(BLOCK_NOPS) "\n\tnop\n\t.endr\n\t"
                     "vmcall"
                     : "=a"(second), "=&d"(first)
                     : "a"((uint64_t)VERTIGO_HC_PMU_READ), "b"(idx), [nr] "i"(VERTIGO_HC_PMU_READ)
                     : "memory");
    return second - first;
}

static __attribute__((noinline)) uint64_t loop_count(uint64_t idx, uint64_t n)
{
    uint64_t before = (uint64_t)vertigo_uk_pmu_read(idx);
    vertigo_loop_inc(n);
    return (uint64_t)vertigo_uk_pmu_read(idx) - before;
}

static void check_runtime(void)
{
    char *p = malloc(HEAP_TEST_BYTES);
    struct timespec t0, t1;
    char text[64];

    if (p)
        memset(p, 0x5a, HEAP_TEST_BYTES);
    check(p && p[HEAP_TEST_BYTES - 1] == 0x5a, "malloc of 1 MiB from the free range");
    free(p);
    int clock_ok = clock_gettime(CLOCK_MONOTONIC, &t0) == 0;
    vertigo_loop_inc(1000);
    clock_ok = clock_ok && clock_gettime(CLOCK_MONOTONIC, &t1) == 0 &&
               (t1.tv_sec > t0.tv_sec || (t1.tv_sec == t0.tv_sec && t1.tv_nsec > t0.tv_nsec));
    check(clock_ok, "clock_gettime from the TSC moves forward");
    struct timeval tv;
    check(gettimeofday(&tv, NULL) == 0 && tv.tv_usec < 1000000 && clock() != (clock_t)-1 &&
          (tv.tv_sec > t1.tv_sec || (tv.tv_sec == t1.tv_sec && tv.tv_usec * 1000 >= t1.tv_nsec / 1000 * 1000)),
          "gettimeofday and clock from the TSC");
    snprintf(text, sizeof(text), "%llu %x %5.2f %s", 18446744073709551615ull, 0xbeefu, 3.25, "ok");
    check(strcmp(text, "18446744073709551615 beef  3.25 ok") == 0, "printf formatting");
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        printf("usage: ukloop IDX_U N (the module's command line)\n");
        return 2;
    }
    const struct vertigo_uk_start *info = vertigo_uk_info();
    uint64_t idx = strtoull(argv[1], NULL, 0), n = strtoull(argv[2], NULL, 0);
    int64_t events = vertigo_uk_pmu_events();
    printf("ukloop: domain %u, %llu MiB, TSC %llu Hz, %lld events\n", info->domain_id,
           (unsigned long long)(info->mem_bytes >> 20), (unsigned long long)info->tsc_hz,
           (long long)events);
    if (events <= (int64_t)idx) {
        printf("ukloop: FAIL: no counting session with event %llu\n", (unsigned long long)idx);
        return 1;
    }

    uint64_t block = block_count(idx);
    uint64_t once = loop_count(idx, n), twice = loop_count(idx, 2 * n);
    uint64_t again = loop_count(idx, n);
    printf("ukloop: counted block %llu loop %llu (N=%llu: %llu, 2N: %llu, N again: %llu)\n",
           (unsigned long long)block, (unsigned long long)(twice - once),
           (unsigned long long)n, (unsigned long long)once, (unsigned long long)twice,
           (unsigned long long)again);
    check(block == BLOCK_NOPS + BLOCK_EXTRA, "straight-line block counted exactly (" XSTR(BLOCK_NOPS) " + 3)");
    check(twice - once == n * VERTIGO_LOOP_INC_INSTRUCTIONS, "loop N vs 2N differs by exactly 3 N");
    check(again == once, "a second run of N counts the same");
    check_runtime();
    printf("ukloop: %d passed, %d failed\n", passes, failures);
    return failures ? 1 : 0;
}
