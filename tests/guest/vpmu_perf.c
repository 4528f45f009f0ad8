/* vpmu_perf: the guest's own perf events on Vertigo's virtual PMU
 * (pmu.guest=on), through the Linux kernel's perf_event_open, as perf
 * stat and PAPI use it.
 *
 *   vpmu_perf count N
 *   vpmu_perf sample N PERIOD
 *
 * Checks, each printed as "vpmu_perf: PASS: ..." or "vpmu_perf: FAIL: ...":
 *  1. CPUID leaf 0xA describes an architectural PMU (version 2).
 *  2. instructions:u (PERF_COUNT_HW_INSTRUCTIONS, kernel and hypervisor
 *     excluded) around a loop of 3 instructions per iteration run N and
 *     2N times: the difference is exactly 3N; cycles:u the same (one
 *     cycle per instruction in Bochs); instructions:k of the same windows
 *     moved (the kernel ran: the enable and disable system calls). Then
 *     one line, not a check: the 2N window's TSC ticks and the share of
 *     them that were this guest's instructions (in Bochs, below 100 % by
 *     Vertigo's exits, far below while other domains ran on the CPU).
 *  3. branches: refused (the PMU marks the event unavailable), as perf
 *     stat's "<not supported>".
 * sample:
 *  4. instructions:u sampled every PERIOD events over the 2N loop, as perf
 *     record does (a ring buffer mapped, the kernel writing a sample at
 *     each overflow from its PMI): exactly one sample per period of the
 *     event's count (the loop and the few user instructions around
 *     enabling and disabling; that count / PERIOD is the loop's alone or
 *     one more), none throttled. Exact on the software backend, whose
 *     overflows fall on the overflowing instruction (no skid): on
 *     hardware a late PMI moves the next period's start.
 * Last line "reason: ..." on failure; exit status 0 when all pass. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "guestlib/vertigo_measure.h"
#include "tests/guest/perf_event_open.h"

static int failures;

static void check(int ok, const char *what, const char *detail)
{
    printf("vpmu_perf: %s: %s (%s)\n", ok ? "PASS" : "FAIL", what, detail);
    if (!ok) {
        failures++;
        printf("reason: %s\n", what);
    }
}

/* Counts of three events over `iterations` of the loop. */
struct window {
    uint64_t instructions_u, cycles_u, instructions_k;
    uint64_t tsc_ticks;     /* the TSC's, every VCPU of the CPU and Vertigo */
};

static uint64_t read_count(int fd)
{
    uint64_t v = 0;
    if (read(fd, &v, sizeof(v)) != sizeof(v))
        return 0;
    return v;
}

static struct window measure(int fds[3], uint64_t iterations)
{
    struct window w;
    for (int i = 0; i < 3; i++)
        ioctl(fds[i], PERF_EVENT_IOC_RESET, 0);
    uint64_t tsc0 = __builtin_ia32_rdtsc();
    for (int i = 0; i < 3; i++)
        ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0);
    uint64_t sum = vertigo_loop_inc(iterations);
    for (int i = 0; i < 3; i++)
        ioctl(fds[i], PERF_EVENT_IOC_DISABLE, 0);
    w.tsc_ticks = __builtin_ia32_rdtsc() - tsc0;
    __asm__ volatile("" : : "r"(sum));
    w.instructions_u = read_count(fds[0]);
    w.cycles_u = read_count(fds[1]);
    w.instructions_k = read_count(fds[2]);
    return w;
}

static void counting(uint64_t n)
{
    char detail[256];
    int fds[3] = {
        perf_open_hw(PERF_COUNT_HW_INSTRUCTIONS, 1, 0),
        perf_open_hw(PERF_COUNT_HW_CPU_CYCLES, 1, 0),
        perf_open_hw(PERF_COUNT_HW_INSTRUCTIONS, 0, 0),
    };
    snprintf(detail, sizeof(detail), "fds %d %d %d, errno %d", fds[0], fds[1], fds[2], errno);
    check(fds[0] >= 0 && fds[1] >= 0 && fds[2] >= 0, "perf_event_open of hardware events",
          detail);
    if (fds[0] < 0 || fds[1] < 0 || fds[2] < 0)
        return;
    struct window w1 = measure(fds, n), w2 = measure(fds, 2 * n);
    uint64_t want = VERTIGO_LOOP_INC_INSTRUCTIONS * n;
    snprintf(detail, sizeof(detail), "N=%lu: u(N)=%lu u(2N)=%lu diff=%lu expected %lu; "
             "cycles:u diff=%lu; k(N)=%lu k(2N)=%lu", (unsigned long)n,
             (unsigned long)w1.instructions_u, (unsigned long)w2.instructions_u,
             (unsigned long)(w2.instructions_u - w1.instructions_u), (unsigned long)want,
             (unsigned long)(w2.cycles_u - w1.cycles_u), (unsigned long)w1.instructions_k,
             (unsigned long)w2.instructions_k);
    check(w2.instructions_u - w1.instructions_u == want, "instructions:u difference exact",
          detail);
    check(w2.cycles_u - w1.cycles_u == want, "cycles:u difference exact", detail);
    check(w1.instructions_k > 0 && w2.instructions_k > 0, "instructions:k counted the kernel",
          detail);
    /* Where a TSC tick is an instruction (Bochs), the share of the CPU the
     * guest had: below 100 % by Vertigo's exits, far below while another
     * domain ran on the CPU between this VCPU's runs. */
    uint64_t guest = w2.instructions_u + w2.instructions_k;
    printf("vpmu_perf: 2N window: %lu TSC ticks, %lu guest instructions (%lu %% of them)\n",
           (unsigned long)w2.tsc_ticks, (unsigned long)guest,
           (unsigned long)(w2.tsc_ticks ? guest * 100 / w2.tsc_ticks : 0));
    for (int i = 0; i < 3; i++)
        close(fds[i]);
}

static void unavailable(void)
{
    char detail[64];
    int fd = perf_open_hw(PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1, 0);
    snprintf(detail, sizeof(detail), "fd %d, errno %d (%s)", fd, errno, strerror(errno));
    check(fd < 0, "branches refused (not supported)", detail);
    if (fd >= 0)
        close(fd);
}

/* Samples the kernel wrote into the event's ring buffer (mmap'ed as perf
 * record does): PERF_RECORD_SAMPLE records between the tail and the head. */
static unsigned int throttles;

static unsigned int ring_samples(const struct perf_event_mmap_page *meta, size_t data_size)
{
    const uint8_t *data = (const uint8_t *)meta + meta->data_offset;
    uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
    unsigned int samples = 0;
    for (uint64_t at = meta->data_tail; at < head;) {
        struct perf_event_header h;
        memcpy(&h, data + at % data_size, sizeof(h));     /* headers never wrap: 8-aligned */
        if (h.size == 0)
            break;
        samples += h.type == PERF_RECORD_SAMPLE;
        throttles += h.type == PERF_RECORD_THROTTLE;
        at += h.size;
    }
    return samples;
}

/* instructions:u sampled every `period` events around the 2N loop, the
 * samples read from the ring buffer: one per period of the window's user
 * instructions (the loop and the few around ENABLE and DISABLE). */
static void sampling(uint64_t n, uint64_t period)
{
    char detail[160];
    const size_t page = 4096, data_pages = 16;
    int fd = perf_open_hw(PERF_COUNT_HW_INSTRUCTIONS, 1, period);
    void *ring = fd < 0 ? MAP_FAILED : mmap(NULL, (1 + data_pages) * page,
                                            PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (ring == MAP_FAILED) {
        snprintf(detail, sizeof(detail), "fd %d, errno %d", fd, errno);
        check(0, "sampling event opened and mapped", detail);
        return;
    }
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    uint64_t sum = vertigo_loop_inc(2 * n);
    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    __asm__ volatile("" : : "r"(sum));
    uint64_t loop = VERTIGO_LOOP_INC_INSTRUCTIONS * 2 * n / period;
    uint64_t counted = read_count(fd);
    uint64_t want = counted / period;
    unsigned int got = ring_samples(ring, data_pages * page);
    snprintf(detail, sizeof(detail), "%u samples in the ring buffer, expected %lu = the event's "
             "%lu / period %lu (the loop's alone: %lu); %u throttled", got, (unsigned long)want,
             (unsigned long)counted, (unsigned long)period, (unsigned long)loop, throttles);
    check(got == want && want >= loop && want <= loop + 1 && throttles == 0,
          "one sample per period of instructions:u", detail);
    munmap(ring, (1 + data_pages) * page);
    close(fd);
}

static int cpuid_version(void)
{
    uint32_t a, b, c, d;
    __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0xa), "c"(0));
    return (int)(a & 0xff);
}

int main(int argc, char **argv)
{
    bool count = argc == 3 && strcmp(argv[1], "count") == 0;
    bool sample = argc == 4 && strcmp(argv[1], "sample") == 0;
    if (!count && !sample) {
        fprintf(stderr, "usage: vpmu_perf count N | vpmu_perf sample N PERIOD\n");
        return 2;
    }
    uint64_t n = strtoull(argv[2], NULL, 0);
    char detail[32];
    snprintf(detail, sizeof(detail), "version %d", cpuid_version());
    check(cpuid_version() == 2, "CPUID leaf 0xA: architectural PMU version 2", detail);
    if (count) {
        counting(n);
        unavailable();
    } else {
        sampling(n, strtoull(argv[3], NULL, 0));
    }
    printf("vpmu_perf: %d failed\n", failures);
    return failures ? 1 : 0;
}
