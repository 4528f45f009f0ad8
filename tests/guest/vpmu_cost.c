/* vpmu_cost: the VM exits each guest PMU operation costs on Vertigo's
 * virtual PMU (pmu.guest=on), for `make bench-vpmu`
 * (tests/bench/bench_vpmu.sh). Vertigo runs a counting session of its own
 * software events; their counts around each window come by hypercall:
 *
 *   vpmu_cost READS ROUNDTRIPS LOOP PERIOD
 *
 * with pmu.events=exits:all,exits:rdmsr,exits:wrmsr,exits:rdpmc,
 * exits:ept_violation,exits:preemption_timer,exits:nmi_window (that order).
 * Three operations, each against the same window without it:
 *  read    READS read()s of an enabled instructions:u counter (Linux reads
 *          a counter of its CPU with RDPMC);
 *  pmi     LOOP iterations of a 3-instruction user loop sampled by
 *          instructions:u every PERIOD events (a ring buffer mapped as perf
 *          record maps it): exits per PMI, the PMIs counted in the ring;
 *  switch  ROUNDTRIPS pipe round trips between this process and a child
 *          whose instructions:u counter is enabled (every switch to and
 *          from it schedules the counter in or out), against a child
 *          without one: exits per context switch of a counted thread.
 * Prints "vpmu_cost: OP: N ops exits E per-op X (rdmsr .. wrmsr .. rdpmc
 * .. ept .. timer .. nmi-window ..)" per operation, then "vpmu_cost:
 * done"; "reason: ..." and exit status 1 when a measurement failed. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guestlib/vertigo_guest.h"
#include "guestlib/vertigo_measure.h"
#include "tests/guest/perf_event_open.h"

#define KINDS 7
static const char *const kind_names[KINDS] = {
    "all", "rdmsr", "wrmsr", "rdpmc", "ept", "timer", "nmi-window",
};

struct exits {
    int64_t n[KINDS];
};

static struct exits read_exits(void)
{
    struct exits e;
    for (int i = 0; i < KINDS; i++)
        e.n[i] = vertigo_pmu_read((uint64_t)i);
    return e;
}

static struct exits minus(struct exits a, struct exits b)
{
    for (int i = 0; i < KINDS; i++)
        a.n[i] -= b.n[i];
    return a;
}

static int fail(const char *what)
{
    printf("reason: %s (errno %d: %s)\n", what, errno, strerror(errno));
    return 1;
}

/* with - without, per op, each kind. */
static void report(const char *op, uint64_t ops, struct exits with, struct exits without)
{
    struct exits d = minus(with, without);
    printf("vpmu_cost: %s: %lu ops exits %ld per-op %.2f (", op, (unsigned long)ops,
           (long)d.n[0], ops ? (double)d.n[0] / (double)ops : 0.0);
    for (int i = 1; i < KINDS; i++)
        printf("%s%s %.2f", i > 1 ? " " : "", kind_names[i],
               ops ? (double)d.n[i] / (double)ops : 0.0);
    printf(")\n");
}

/* ---- read() of a counting counter ----------------------------------------- */

static struct exits reads(int fd, uint64_t n)
{
    uint64_t v;
    struct exits before = read_exits();
    for (uint64_t i = 0; i < n; i++)
        if (read(fd, &v, sizeof(v)) != sizeof(v))
            break;
    return minus(read_exits(), before);
}

static int cost_of_reads(uint64_t n)
{
    int fd = perf_open_hw(PERF_COUNT_HW_INSTRUCTIONS, 1, 0);
    if (fd < 0)
        return fail("perf_event_open of instructions:u");
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    struct exits with = reads(fd, n);
    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    close(fd);
    /* Without: the same number of read() system calls of 8 bytes, from
     * /dev/zero, which touches no counter. */
    FILE *zero = fopen("/dev/zero", "r");
    if (!zero)
        return fail("open /dev/zero");
    struct exits without = reads(fileno(zero), n);
    fclose(zero);
    report("read", n, with, without);
    return 0;
}

/* ---- PMIs ------------------------------------------------------------------ */

static unsigned int ring_samples(const struct perf_event_mmap_page *meta, size_t size)
{
    const unsigned char *data = (const unsigned char *)meta + meta->data_offset;
    uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
    unsigned int samples = 0;
    for (uint64_t at = meta->data_tail; at < head;) {
        struct perf_event_header h;
        memcpy(&h, data + at % size, sizeof(h));
        if (h.size == 0)
            break;
        samples += h.type == PERF_RECORD_SAMPLE;
        at += h.size;
    }
    return samples;
}

static struct exits loop_window(uint64_t n)
{
    struct exits before = read_exits();
    uint64_t sum = vertigo_loop_inc(n);
    __asm__ volatile("" : : "r"(sum));
    return minus(read_exits(), before);
}

static int cost_of_pmis(uint64_t n, uint64_t period)
{
    const size_t page = 4096, data_pages = 64;
    int fd = perf_open_hw(PERF_COUNT_HW_INSTRUCTIONS, 1, period);
    void *ring = fd < 0 ? MAP_FAILED : mmap(NULL, (1 + data_pages) * page,
                                            PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (ring == MAP_FAILED)
        return fail("sampling instructions:u opened and mapped");
    struct exits without = loop_window(n);
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    struct exits with = loop_window(n);
    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    unsigned int pmis = ring_samples(ring, data_pages * page);
    munmap(ring, (1 + data_pages) * page);
    close(fd);
    if (pmis == 0)
        return fail("no sample in the ring buffer");
    report("pmi", pmis, with, without);
    return 0;
}

/* ---- Context switches of a counted thread --------------------------------- */

/* ROUNDTRIPS pipe round trips with a child that counts instructions:u
 * (counted) or not: two switches each (to the child and back). */
static int pingpong(uint64_t n, int counted, struct exits *out)
{
    int to_child[2], to_parent[2];
    if (pipe(to_child) || pipe(to_parent))
        return fail("pipe");
    pid_t pid = fork();
    if (pid < 0)
        return fail("fork");
    char byte = 'x';
    if (pid == 0) {
        int fd = counted ? perf_open_hw(PERF_COUNT_HW_INSTRUCTIONS, 1, 0) : -1;
        if (fd >= 0)
            ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
        int ok = write(to_parent[1], &byte, 1) == 1;        /* ready */
        for (uint64_t i = 0; ok && i < n; i++)
            ok = read(to_child[0], &byte, 1) == 1 && write(to_parent[1], &byte, 1) == 1;
        _exit(ok && (!counted || fd >= 0) ? 0 : 1);
    }
    int ok = read(to_parent[0], &byte, 1) == 1;
    struct exits before = read_exits();
    for (uint64_t i = 0; ok && i < n; i++)
        ok = write(to_child[1], &byte, 1) == 1 && read(to_parent[0], &byte, 1) == 1;
    *out = minus(read_exits(), before);
    int status = 0;
    waitpid(pid, &status, 0);
    for (int i = 0; i < 2; i++) {
        close(to_child[i]);
        close(to_parent[i]);
    }
    if (!ok || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return fail(counted ? "ping-pong with a counted child" : "ping-pong");
    return 0;
}

static int cost_of_switches(uint64_t n)
{
    struct exits with, without;
    if (pingpong(n, 0, &without) || pingpong(n, 1, &with))
        return 1;
    report("switch", 2 * n, with, without);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: vpmu_cost READS ROUNDTRIPS LOOP PERIOD\n");
        return 2;
    }
    if (vertigo_pmu_event_count() < KINDS) {
        printf("reason: Vertigo counts fewer than %d events (pmu.events)\n", KINDS);
        return 1;
    }
    uint64_t reads_n = strtoull(argv[1], NULL, 0), trips = strtoull(argv[2], NULL, 0);
    uint64_t loop = strtoull(argv[3], NULL, 0), period = strtoull(argv[4], NULL, 0);
    int failed = cost_of_reads(reads_n) || cost_of_pmis(loop, period) ||
                 cost_of_switches(trips);
    if (!failed)
        printf("vpmu_cost: done\n");
    return failed;
}
