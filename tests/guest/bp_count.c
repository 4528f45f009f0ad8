/* bp_count: counts writes with a hardware breakpoint (the guest kernel's
 * perf breakpoint event, which programs DR0-DR3 and DR7), to show that a
 * domain's debug registers are its own while another domain runs on the
 * same CPU (tests/e2e/domains.sh).
 *
 *   bp_count SLOT ROUNDS WRITES [MAX]   SLOT 0 or 1, ROUNDS 1..1000,
 *                                       WRITES 1..10^7, MAX 1..10000
 *
 * Each round opens a write breakpoint on slots[SLOT] and, in one loop,
 * writes slots[SLOT] WRITES times and the other slot twice as often; the
 * breakpoint must count exactly WRITES. Two domains running the same
 * static binary with different SLOTs watch two addresses of the same
 * layout: if one domain's DR0 were left in the CPU for the other, the
 * other would count the wrong slot's writes (2 WRITES) or none.
 *
 * With MAX (the domain that waits for the other's rounds), a last round
 * keeps its breakpoint armed while it waits: WRITES writes, then windows
 * until IDLE_WINDOWS in a row had the CPU to itself (the other domain
 * finished its rounds and went idle), then windows until one is shared
 * again (it is back), at most MAX windows each (else FAIL), then WRITES
 * more; the count must be 2 WRITES. A window is a known loop of
 * ALONE_LOOP_INSTRUCTIONS whose TSC ticks, in Bochs one per instruction
 * of the CPU, are near its count when no other domain ran in it and
 * about twice as many or more when one did: a Bochs-only measure. The
 * waiting computes without writing, so it costs the other domain no more
 * than any busy domain would.
 *
 * Prints one line per round, the TSC at the first round's start and the
 * last one's end (the domains share the TSC, so the test can check that
 * the two runs overlapped) and `bp_count: PASS` or `FAIL`. Exit status 0
 * when every round was exact (and, with MAX, the other domain went idle
 * and came back), 1 when not, 2 for bad arguments or a breakpoint the
 * kernel refused. */
#include <errno.h>
#include <stdbool.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "guestlib/vertigo_measure.h"

#define MAX_ROUNDS 1000ull
#define MAX_WRITES 10000000ull
#define MAX_WAIT_WINDOWS 10000ull
/* The window after each round: 1 M instructions, two 10 ms slices of
 * guest time in Bochs, so a domain sharing the CPU runs inside it. */
#define ALONE_LOOP_ITERATIONS 200000ull
#define ALONE_LOOP_INSTRUCTIONS (ALONE_LOOP_ITERATIONS * VERTIGO_LOOP_MIX_INSTRUCTIONS)
/* A window had the CPU alone at this share or more. Two busy domains
 * share it about half and half (less for the one whose work exits less
 * often); an idle Linux domain still takes its timer ticks, which with
 * Vertigo's mode traps cost this one 10-20 % of the CPU. */
#define ALONE_PERCENT 65ull
/* The other domain is idle when this many windows in a row had the CPU
 * alone (10 M instructions, 0.2 s of guest time): a Linux domain busy
 * with its own work can pause for less (in the test, 87 % of one window
 * while the other domain was starting a program). */
#define IDLE_WINDOWS 10u

/* Two slots a cache line apart: a length-8 breakpoint on one never
 * matches the other. */
static volatile uint64_t slots[2][8] __attribute__((aligned(64)));

/* A decimal number in [lo, hi], or 0 if text is not one. */
static uint64_t parse_in(const char *text, uint64_t lo, uint64_t hi)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(text, &end, 10);
    if (errno || end == text || *end || n < lo || n > hi)
        return 0;
    return n;
}

/* "0" or "1" as a slot, -1 for anything else. */
static int parse_slot(const char *text)
{
    return (text[0] == '0' || text[0] == '1') && !text[1] ? text[0] - '0' : -1;
}

/* A write breakpoint on the 8 bytes at addr, user mode, disabled. */
static int open_breakpoint(volatile void *addr)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof(a));
    a.size = sizeof(a);
    a.type = PERF_TYPE_BREAKPOINT;
    a.bp_type = HW_BREAKPOINT_W;
    a.bp_addr = (uintptr_t)addr;
    a.bp_len = HW_BREAKPOINT_LEN_8;
    a.sample_period = 1;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

/* The watched slot's writes and twice as many to the other slot. */
static void write_slots(unsigned int slot, uint64_t writes)
{
    volatile uint64_t *watched = &slots[slot][0], *other = &slots[1 - slot][0];
    for (uint64_t i = 0; i < writes; i++) {
        *watched = i;
        *other = i;
        *other = i + 1;
    }
}

/* The share of the CPU (%) a known loop had: its instructions over
 * its TSC ticks. */
static uint64_t window_share(void)
{
    uint64_t t0 = vertigo_tsc_read();
    uint64_t mixed = vertigo_loop_mix(ALONE_LOOP_ITERATIONS, t0);
    uint64_t ticks = vertigo_tsc_read() - t0;
    __asm__ volatile("" : : "r"(mixed));
    return ticks ? 100 * ALONE_LOOP_INSTRUCTIONS / ticks : 100;
}

/* Windows until IDLE_WINDOWS in a row were alone, at most max: true if
 * they were (the other domain went idle). */
static bool wait_idle(uint64_t max)
{
    unsigned int alone = 0;
    for (uint64_t w = 0; w < max; w++) {
        uint64_t share = window_share();
        if (share < ALONE_PERCENT) {
            if (alone)
                printf("bp_count: %u windows alone, then one at %llu %% of the CPU\n", alone,
                       (unsigned long long)share);
            alone = 0;
        } else if (++alone == IDLE_WINDOWS) {
            printf("bp_count: %u windows in a row had the CPU alone after %llu windows\n",
                   IDLE_WINDOWS, (unsigned long long)w + 1);
            return true;
        }
    }
    printf("bp_count: the other domain never went idle within %llu windows\n",
           (unsigned long long)max);
    return false;
}

/* Windows until one is shared again, at most max: true if one was. */
static bool wait_shared(uint64_t max)
{
    for (uint64_t w = 0; w < max; w++) {
        uint64_t share = window_share();
        if (share < ALONE_PERCENT) {
            printf("bp_count: shared again after %llu windows (%llu %% of the CPU)\n",
                   (unsigned long long)w + 1, (unsigned long long)share);
            return true;
        }
    }
    printf("bp_count: never shared again within %llu windows\n", (unsigned long long)max);
    return false;
}

/* One round: the watched slot's writes as the breakpoint counted them, or
 * -1 (said why). wait_max > 0: the round that waits, armed, between its
 * two halves of writes (*waited: whether the other domain went idle and
 * came back). */
static int64_t round_count(unsigned int slot, uint64_t writes, uint64_t wait_max, bool *waited)
{
    int fd = open_breakpoint(&slots[slot][0]);
    if (fd < 0) {
        fprintf(stderr, "bp_count: perf_event_open (breakpoint): %s\n", strerror(errno));
        return -1;
    }
    uint64_t count = 0;
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    write_slots(slot, writes);
    if (wait_max) {
        *waited = wait_idle(wait_max) && wait_shared(wait_max);
        write_slots(slot, writes);
    }
    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    ssize_t got = read(fd, &count, sizeof(count));
    close(fd);
    if (got != (ssize_t)sizeof(count)) {
        fprintf(stderr, "bp_count: reading the breakpoint's count failed\n");
        return -1;
    }
    return (int64_t)count;
}

/* Round r (the waiting one if wait_max): whether it counted exactly, or
 * -1. */
static int run_round(int slot, uint64_t r, uint64_t writes, uint64_t wait_max, bool *waited)
{
    uint64_t want = wait_max ? 2 * writes : writes;
    int64_t n = round_count((unsigned int)slot, writes, wait_max, waited);
    if (n < 0)
        return -1;
    printf("bp_count: round %llu%s: slot %d written %llu times, the breakpoint counted %lld\n",
           (unsigned long long)r, wait_max ? " (armed while waiting)" : "", slot,
           (unsigned long long)want, (long long)n);
    return (uint64_t)n == want;
}

int main(int argc, char **argv)
{
    bool args = argc == 4 || argc == 5;
    int slot = args ? parse_slot(argv[1]) : -1;
    uint64_t rounds = args ? parse_in(argv[2], 1, MAX_ROUNDS) : 0;
    uint64_t writes = args ? parse_in(argv[3], 1, MAX_WRITES) : 0;
    uint64_t wait_max = argc == 5 ? parse_in(argv[4], 1, MAX_WAIT_WINDOWS) : 0;
    if (slot < 0 || !rounds || !writes || (argc == 5 && !wait_max)) {
        fprintf(stderr, "bp_count: usage: bp_count SLOT ROUNDS WRITES [MAX] (SLOT 0 or 1, "
                "ROUNDS 1..%llu, WRITES 1..%llu, MAX 1..%llu)\n", MAX_ROUNDS, MAX_WRITES,
                MAX_WAIT_WINDOWS);
        return 2;
    }
    uint64_t exact = 0, all = rounds + (wait_max ? 1 : 0);
    bool waited = !wait_max;
    uint64_t start = vertigo_tsc_read();
    for (uint64_t r = 0; r < all; r++) {
        int ok = run_round(slot, r, writes, r == rounds ? wait_max : 0, &waited);
        if (ok < 0)
            return 2;
        exact += (uint64_t)ok;
    }
    printf("bp_count: tsc %llu to %llu\n", (unsigned long long)start,
           (unsigned long long)vertigo_tsc_read());
    bool pass = exact == all && waited;
    printf("bp_count: %s: %llu of %llu rounds exact\n", pass ? "PASS" : "FAIL",
           (unsigned long long)exact, (unsigned long long)all);
    return pass ? 0 : 1;
}
