/* pmu_exact: exact per-mode counts of the software PMU under a guest that
 * keeps entering the kernel, read with VERTIGO_HC_PMU_READ.
 *
 *   pmu_exact count IDX_U IDX_K IDX_UKH N [STEP...]
 *   pmu_exact count-within PPM IDX_U IDX_K IDX_UKH N [STEP...]
 *   pmu_exact run N
 *
 * One iteration of the workload (exactly ITER_INSTRUCTIONS user
 * instructions, all in one asm block) runs a loop of LOOP iterations,
 * getppid(), a one-byte write() to a pipe and a one-byte read() from it
 * (three SYSCALLs), and a store to a page it has never touched (a page
 * fault; the store retires once, after the fault). Timer interrupts come
 * whenever they come.
 *
 * count: at user steps (VERTIGO_HC_PMU_STEP) of the default, 1, 100 and
 * 10,000 ticks (or the STEPs given; 0 is the default), the instructions:u difference between runs of 2N and N
 * iterations is exactly N * ITER_INSTRUCTIONS, with no retry, and every
 * step gives the same counts; instructions:k moved (the kernel ran); and
 * over one run, instructions:ukh (guest user + guest kernel + Vertigo in
 * one counter) equals the TSC difference: the three modes count every tick
 * once (one tick per emulated instruction in Bochs). Prints "pmu_exact: PASS: ..."
 * or "pmu_exact: FAIL: ..." per check and "reason: ..." on failure.
 * count-within: the same, but the instructions:u difference may be off by
 * PPM millionths of the known count and the steps need not agree: for
 * Bochs with several CPUs, whose TSC is not one CPU's instruction count
 * (it advances by the average of all CPUs' instructions per round-robin
 * turn), so tick counts cannot equal a CPU's instructions there.
 * run: runs 2N iterations once (the workload of a sampling session). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "guestlib/vertigo_guest.h"

#define LOOP              1000u
/* MOV ECX + LOOP x (DEC, JNZ) + getppid (MOV, SYSCALL) + write (5) + read
 * (5) + the store + ADD, DEC, JNZ of the outer loop. */
#define ITER_INSTRUCTIONS (1u + 2u * LOOP + 2u + 5u + 5u + 1u + 3u)
#define PAGE              4096u
#define STEPS_MAX         8

static int failures;
static uint64_t tolerance_ppm;      /* 0: exact */

static void check(int ok, const char *what, const char *detail)
{
    printf("pmu_exact: %s: %s (%s)\n", ok ? "PASS" : "FAIL", what, detail);
    if (!ok) {
        failures++;
        printf("reason: %s\n", what);
    }
}

/* `iterations` iterations over fresh pages starting at `pages`. */
static void workload(uint64_t iterations, uint8_t *pages, int fd_w, int fd_r, uint8_t *byte)
{
    uint64_t n = iterations;
    uint8_t *p = pages;
    __asm__ volatile(
        "2:\n\t"
        "mov %[loop], %%ecx\n\t"
        "1:\n\t"
        "dec %%ecx\n\t"
        "jnz 1b\n\t"
        "mov %[nr_getppid], %%eax\n\t"
        "syscall\n\t"
        "mov %[nr_write], %%eax\n\t"
        "mov %[fd_w], %%edi\n\t"
        "mov %[byte], %%rsi\n\t"
        "mov $1, %%edx\n\t"
        "syscall\n\t"
        "mov %[nr_read], %%eax\n\t"
        "mov %[fd_r], %%edi\n\t"
        "mov %[byte], %%rsi\n\t"
        "mov $1, %%edx\n\t"
        "syscall\n\t"
        "mov %%eax, (%[p])\n\t"
        "add %[page], %[p]\n\t"
        "dec %[n]\n\t"
        "jnz 2b\n\t"
        : [n] "+r"(n), [p] "+r"(p)
        : [loop] "i"(LOOP), [nr_getppid] "i"(SYS_getppid), [nr_write] "i"(SYS_write),
          [nr_read] "i"(SYS_read), [fd_w] "r"(fd_w), [fd_r] "r"(fd_r), [byte] "r"(byte),
          [page] "i"(PAGE)
        : "rax", "rcx", "rdx", "rsi", "rdi", "r11", "memory", "cc");
}

struct counts {
    uint64_t user, kernel, all, tsc;
};

struct rig {
    uint64_t idx_u, idx_k, idx_ukh;
    int fds[2];
    uint8_t byte;
};

/* Runs `iterations` over freshly mapped pages between two sets of reads;
 * both sets are the same instruction sequence, so their own cost cancels. */
static struct counts measure(struct rig *r, uint64_t iterations)
{
    uint8_t *pages = mmap(NULL, iterations * PAGE, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct counts c = { 0 };
    if (pages == MAP_FAILED)
        return c;
    uint64_t t0, t1;
    uint64_t a0 = (uint64_t)vertigo_pmu_read_tsc(r->idx_ukh, &t0);
    uint64_t u0 = (uint64_t)vertigo_pmu_read(r->idx_u);
    uint64_t k0 = (uint64_t)vertigo_pmu_read(r->idx_k);
    workload(iterations, pages, r->fds[1], r->fds[0], &r->byte);
    uint64_t a1 = (uint64_t)vertigo_pmu_read_tsc(r->idx_ukh, &t1);
    uint64_t u1 = (uint64_t)vertigo_pmu_read(r->idx_u);
    uint64_t k1 = (uint64_t)vertigo_pmu_read(r->idx_k);
    munmap(pages, iterations * PAGE);
    c = (struct counts){ u1 - u0, k1 - k0, a1 - a0, t1 - t0 };
    return c;
}

/* N and 2N at one user step (0: the default); the u difference. */
static uint64_t at_step(struct rig *r, uint64_t step, uint64_t n, struct counts *c1,
                        struct counts *c2)
{
    vertigo_pmu_set_step(step);
    *c1 = measure(r, n);
    *c2 = measure(r, 2 * n);
    vertigo_pmu_set_step(0);
    return c2->user - c1->user;
}

static int count_mode(struct rig *r, uint64_t n, const uint64_t *steps, unsigned int nsteps)
{
    uint64_t expected = n * ITER_INSTRUCTIONS, first_u = 0;
    char detail[256];
    int same = 1;
    for (unsigned int i = 0; i < nsteps; i++) {
        struct counts c1, c2;
        uint64_t diff = at_step(r, steps[i], n, &c1, &c2);
        snprintf(detail, sizeof(detail), "step %lu: u(N)=%lu u(2N)=%lu diff=%lu expected %lu; "
                 "k(N)=%lu k(2N)=%lu", (unsigned long)steps[i], (unsigned long)c1.user,
                 (unsigned long)c2.user, (unsigned long)diff, (unsigned long)expected,
                 (unsigned long)c1.kernel, (unsigned long)c2.kernel);
        if (tolerance_ppm) {
            uint64_t off = diff > expected ? diff - expected : expected - diff;
            check(off * 1000000u <= expected * tolerance_ppm,
                  "instructions:u difference within the tolerance", detail);
        } else {
            check(diff == expected, "instructions:u difference exact", detail);
        }
        check(c1.kernel > 0 && c2.kernel > c1.kernel, "the kernel ran in the windows", detail);
        if (i == 0)
            first_u = c1.user;
        same &= c1.user == first_u;
        if (i == 0) {
            snprintf(detail, sizeof(detail), "u=%lu k=%lu ukh=%lu tsc=%lu diff=%ld",
                     (unsigned long)c1.user, (unsigned long)c1.kernel, (unsigned long)c1.all,
                     (unsigned long)c1.tsc, (long)(c1.all - c1.tsc));
            check(c1.all == c1.tsc, "instructions:ukh equals the TSC difference", detail);
        }
    }
    snprintf(detail, sizeof(detail), "u(N)=%lu at every step", (unsigned long)first_u);
    if (!tolerance_ppm)
        check(same, "every step gives the same counts", detail);
    return failures;
}

int main(int argc, char **argv)
{
    struct rig r = { 0 };
    if (argc == 3 && strcmp(argv[1], "run") == 0) {
        uint64_t n = strtoull(argv[2], NULL, 0);
        uint8_t *pages = mmap(NULL, 2 * n * PAGE, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (pipe(r.fds) || pages == MAP_FAILED)
            return 1;
        workload(2 * n, pages, r.fds[1], r.fds[0], &r.byte);
        printf("pmu_exact: ran %lu iterations of %u user instructions\n",
               (unsigned long)(2 * n), ITER_INSTRUCTIONS);
        return 0;
    }
    if (argc > 2 && strcmp(argv[1], "count-within") == 0) {
        tolerance_ppm = strtoull(argv[2], NULL, 0);
        argv++;
        argc--;
        if (tolerance_ppm == 0)
            argc = 0;                   /* usage */
    } else if (argc > 1 && strcmp(argv[1], "count") != 0) {
        argc = 0;
    }
    if (argc < 6 || argc > 6 + STEPS_MAX) {
        fprintf(stderr, "usage: pmu_exact count IDX_U IDX_K IDX_UKH N [STEP...] | "
                        "pmu_exact count-within PPM IDX_U IDX_K IDX_UKH N [STEP...] | "
                        "pmu_exact run N\n");
        return 2;
    }
    uint64_t steps[STEPS_MAX] = { 0, 1, 100, 10000 };
    unsigned int nsteps = 4;
    if (argc > 6) {
        nsteps = (unsigned int)(argc - 6);
        for (unsigned int i = 0; i < nsteps; i++)
            steps[i] = strtoull(argv[6 + i], NULL, 0);
    }
    r.idx_u = strtoull(argv[2], NULL, 0);
    r.idx_k = strtoull(argv[3], NULL, 0);
    r.idx_ukh = strtoull(argv[4], NULL, 0);
    if (!vertigo_has_features(VERTIGO_FEAT_PMU) || pipe(r.fds)) {
        printf("reason: not running under Vertigo with the PMU hypercalls\n");
        return 1;
    }
    count_mode(&r, strtoull(argv[5], NULL, 0), steps, nsteps);
    printf("pmu_exact: %d failed\n", failures);
    return failures ? 1 : 0;
}
