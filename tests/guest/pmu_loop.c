/* pmu_loop: checks Vertigo's counting session from a guest user program,
 * reading the calling VCPU's counts with VERTIGO_HC_PMU_READ.
 *
 *   pmu_loop IDX_U IDX_K N TRIES BIG_N
 *
 * IDX_U / IDX_K are the positions of instructions:u and instructions:k in
 * Vertigo's pmu.events= list. Checks, each printed as "pmu_loop: PASS: ..."
 * or "pmu_loop: FAIL: ...":
 *  1. block: a straight-line block of BLOCK_NOPS NOPs between two reads
 *     counts exactly BLOCK_NOPS + BLOCK_EXTRA user instructions at user
 *     step 1 (Bochs overshoots the timer inside straight-line code; see
 *     docs/pmu.md), retried like 2 when the kernel ran in the window;
 *  2. exact: a loop of VERTIGO_LOOP_INC_INSTRUCTIONS (3) instructions per
 *     iteration (vertigo_loop_inc), run N and 2N times, at user step 1
 *     (VERTIGO_HC_PMU_STEP): the difference of the two instructions:u
 *     deltas is exactly 3 N. A window the guest kernel entered (an
 *     interrupt: instructions:k moved) is disturbed and measured again, up
 *     to TRIES times;
 *  3. default step: the same with BIG_N and 2 BIG_N iterations at pmu.step:
 *     instructions:k of each run below 5% of its loop instructions and the
 *     instructions:u difference within 5% of 3 BIG_N (a kernel entry inside
 *     a step is charged to the step's mode: up to one step of error per
 *     interrupt).
 * Last line "reason: ..." on failure; exit status 0 when all pass. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "guestlib/vertigo_guest.h"

#define BLOCK_NOPS  1000
/* The first read's VMCALL (+1 emulated), MOV RAX->R8, then MOV EAX, MOV EBX
 * before the second VMCALL (which counts after its own read). */
#define BLOCK_EXTRA 4
#define STR(x)      #x
#define XSTR(x)     STR(x)

static int failures;

/* One line per check; the numbers only with the first check of a group
 * (detail NULL: same numbers as the line before). */
static void check(int ok, const char *what, const char *detail)
{
    if (detail)
        printf("pmu_loop: %s: %s (%s)\n", ok ? "PASS" : "FAIL", what, detail);
    else
        printf("pmu_loop: %s: %s\n", ok ? "PASS" : "FAIL", what);
    if (!ok) {
        failures++;
        printf("reason: %s\n", what);
    }
}

/* Count of event idx between two reads around BLOCK_NOPS NOPs. */
static uint64_t block_delta(uint64_t idx)
{
    uint64_t before, after;
    __asm__ volatile(
        "mov %[nr], %%eax\n\t"
        "mov %k[idx], %%ebx\n\t"
        "vmcall\n\t"
        "mov %%rax, %%r8\n\t"
        ".rept " XSTR(BLOCK_NOPS) "\n\tnop\n\t.endr\n\t"
        "mov %[nr], %%eax\n\t"
        "mov %k[idx], %%ebx\n\t"
        "vmcall\n\t"
        "mov %%r8, %[before]\n\t"
        : "=&a"(after), [before] "=&r"(before)
        : [nr] "i"(VERTIGO_HC_PMU_READ), [idx] "r"(idx)
        : "rbx", "r8", "memory");
    return after - before;
}

struct run {
    uint64_t user, kernel;
};

/* Reads both counts, runs the loop `iterations` times, reads again. */
static __attribute__((noinline)) struct run loop_run(uint64_t idx_u, uint64_t idx_k,
                                                     uint64_t iterations)
{
    uint64_t u0 = (uint64_t)vertigo_pmu_read(idx_u);
    uint64_t k0 = (uint64_t)vertigo_pmu_read(idx_k);
    vertigo_loop_inc(iterations);
    uint64_t k1 = (uint64_t)vertigo_pmu_read(idx_k);
    uint64_t u1 = (uint64_t)vertigo_pmu_read(idx_u);
    struct run r = { u1 - u0, k1 - k0 };
    return r;
}

/* At user step 1, measured again while the kernel ran inside the window. */
static void check_block(uint64_t idx_u, uint64_t idx_k, unsigned int tries)
{
    char detail[160];
    uint64_t prev = (uint64_t)vertigo_pmu_set_step(1);
    uint64_t got = 0;
    unsigned int disturbed = 0;
    for (unsigned int t = 0; t < tries; t++) {
        uint64_t k0 = (uint64_t)vertigo_pmu_read(idx_k);
        got = block_delta(idx_u);
        if ((uint64_t)vertigo_pmu_read(idx_k) == k0)
            break;
        disturbed++;
    }
    vertigo_pmu_set_step(0);
    snprintf(detail, sizeof(detail), "counted %lu, expected %d; %u windows disturbed by the "
             "kernel; default step was %lu", (unsigned long)got, BLOCK_NOPS + BLOCK_EXTRA,
             disturbed, (unsigned long)prev);
    check(got == BLOCK_NOPS + BLOCK_EXTRA, "straight-line block counted exactly", detail);
}

/* An undisturbed run (no kernel instruction between the reads). */
static int clean_run(uint64_t idx_u, uint64_t idx_k, uint64_t n, unsigned int tries,
                     struct run *out, unsigned int *disturbed)
{
    for (unsigned int t = 0; t < tries; t++) {
        *out = loop_run(idx_u, idx_k, n);
        if (out->kernel == 0)
            return 1;
        (*disturbed)++;
    }
    return 0;
}

static void check_exact(uint64_t idx_u, uint64_t idx_k, uint64_t n, unsigned int tries)
{
    char detail[192];
    struct run r1, r2;
    unsigned int disturbed = 0;
    uint64_t expected = n * VERTIGO_LOOP_INC_INSTRUCTIONS;
    vertigo_pmu_set_step(1);
    int ok = clean_run(idx_u, idx_k, n, tries, &r1, &disturbed) &&
             clean_run(idx_u, idx_k, 2 * n, tries, &r2, &disturbed);
    vertigo_pmu_set_step(0);
    snprintf(detail, sizeof(detail), "N=%lu: u(N)=%lu u(2N)=%lu diff=%ld expected %lu; "
             "%u windows disturbed by the kernel", (unsigned long)n, (unsigned long)r1.user,
             (unsigned long)r2.user, (long)(r2.user - r1.user), (unsigned long)expected,
             disturbed);
    check(ok, "undisturbed windows found", detail);
    check(ok && r2.user - r1.user == expected, "instructions:u difference exact", NULL);
}

static void check_default_step(uint64_t idx_u, uint64_t idx_k, uint64_t n)
{
    char detail[192];
    uint64_t expected = n * VERTIGO_LOOP_INC_INSTRUCTIONS;
    struct run r1 = loop_run(idx_u, idx_k, n);
    struct run r2 = loop_run(idx_u, idx_k, 2 * n);
    int64_t diff = (int64_t)(r2.user - r1.user);
    int64_t err = diff - (int64_t)expected;
    snprintf(detail, sizeof(detail), "N=%lu: u(N)=%lu k(N)=%lu u(2N)=%lu k(2N)=%lu "
             "diff=%ld expected %lu", (unsigned long)n, (unsigned long)r1.user,
             (unsigned long)r1.kernel, (unsigned long)r2.user, (unsigned long)r2.kernel,
             (long)diff, (unsigned long)expected);
    check(r1.kernel * 20 < expected && r2.kernel * 20 < 2 * expected,
          "instructions:k below 5% of the loop", detail);
    check((err < 0 ? -err : err) * 20 <= (int64_t)expected,
          "instructions:u difference within 5% at the default step", NULL);
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: pmu_loop IDX_U IDX_K N TRIES BIG_N\n");
        return 2;
    }
    uint64_t idx_u = strtoull(argv[1], NULL, 0), idx_k = strtoull(argv[2], NULL, 0);
    uint64_t n = strtoull(argv[3], NULL, 0), big_n = strtoull(argv[5], NULL, 0);
    unsigned int tries = (unsigned int)strtoul(argv[4], NULL, 0);
    if (!vertigo_has_features(VERTIGO_FEAT_PMU)) {
        printf("reason: not running under Vertigo with the PMU hypercalls\n");
        return 1;
    }
    int64_t events = vertigo_pmu_event_count();
    printf("pmu_loop: the counting session has %ld events\n", (long)events);
    if (events <= (int64_t)idx_u || events <= (int64_t)idx_k) {
        printf("reason: no counting session with events %lu and %lu\n",
               (unsigned long)idx_u, (unsigned long)idx_k);
        return 1;
    }
    check_block(idx_u, idx_k, tries);
    check_exact(idx_u, idx_k, n, tries);
    check_default_step(idx_u, idx_k, big_n);
    printf("pmu_loop: %d failed\n", failures);
    return failures ? 1 : 0;
}
