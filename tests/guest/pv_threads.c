/* pv_threads: per-thread counters of the guest counter library
 * (guestlib/vertigo_counters.h) on Vertigo's paravirtual counters.
 *
 *   pv_threads count ROUNDS LOOP_A LOOP_B [EVENTS_B]
 *   pv_threads bad
 *   pv_threads spin N
 *   pv_threads imode PERIOD INSTRUCTIONS SKID
 *
 * count: threads A and B, pinned to CPU 0, ping-pong through two pipes;
 * in each round a thread makes one system call on a pipe, runs its own
 * loop (LOOP_A or LOOP_B iterations) and makes the other (A writes then
 * reads, B reads then writes): exactly 2 * LOOP + 13 user instructions a
 * round (one asm block: two system calls of five instructions, MOV ECX,
 * LOOP x (DEC, JNZ), DEC, JNZ of the rounds). Each thread counts
 * instructions:u with its own set (B with EVENTS_B if given, whose first
 * event must be instructions:u) and reads it from user mode between
 * windows of 1, ROUNDS, 2 * ROUNDS and 1 rounds: the difference of its 2R
 * and R windows is exactly ROUNDS rounds of its own loop. With the same
 * events, the two threads' counts over the 2R window add up to the CPU's
 * own count (read by the same exits), and the CPUs' counters were not
 * reprogrammed; with different events, every switch reprograms them.
 * bad: the specific refusals (unknown event, too many, closed set, a set
 * or its page used by another thread, a writable mapping, the page
 * hypercall from user mode).
 * spin: N iterations of DEC, JNZ and nothing else printed (a command of
 * known count for vertigo-ctl stat: 2N + 1 instructions after its
 * start-up code).
 * imode: threads A and B on CPU 0 each run INSTRUCTIONS loop instructions
 * counting instructions:u; A's counter signals it every PERIOD events
 * (SIGRTMIN), B's has no period. A gets exactly floor(count / PERIOD)
 * signals, each with si_int 1 (counter 0) and its handler's first read
 * of the counter at most SKID events past the exact point k * PERIOD
 * (the handler's own instructions up to its read: docs/user-guide.md);
 * B gets none; then the library's refusals of bad periods and signals.
 * Prints "pv_threads: PASS: ..." or "pv_threads: FAIL: ..." per check and
 * "reason: ..." after a failure; exit status 1 if one failed. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "guestlib/kmod/vertigo_ioctl.h"
#include "guestlib/vertigo_counters.h"
#include "guestlib/vertigo_guest.h"
#include "guestlib/vertigo_thread_ctr.h"

static void spin_loop(uint64_t n);

#define ROUND_EXTRA 13u     /* MOV ECX + 2 x 5 (system calls) + DEC, JNZ */

static int failures;

static void check(int ok, const char *what, const char *detail)
{
    printf("pv_threads: %s: %s (%s)\n", ok ? "PASS" : "FAIL", what, detail);
    if (!ok) {
        failures++;
        printf("reason: %s\n", what);
    }
}

/* ---- The ping-pong -------------------------------------------------------- */

struct player {
    const char *name;
    const char *events;
    int cpu;                    /* the CPU it is pinned to */
    unsigned int loop;
    int fd_first, fd_second;    /* A: writes, then reads; B: reads, then writes */
    int nr_first, nr_second;
    uint64_t rounds;
    uint64_t count[4], vcpu[4]; /* at the ends of the windows of 1, R, 2R rounds */
    uint64_t read_cost;         /* instructions:u between two reads back to back */
    int err;
    uint8_t byte;
};

/* `n` rounds, all in one asm block of 2 * loop + 13 instructions a round. */
static void rounds(struct player *p, uint64_t n)
{
    __asm__ volatile(
        "2:\n\t"
        "mov %[nr1], %%eax\n\t"
        "mov %[fd1], %%edi\n\t"
        "mov %[byte], %%rsi\n\t"
        "mov $1, %%edx\n\t"
        "syscall\n\t"
        "mov %[loop], %%ecx\n\t"
        "1:\n\t"
        "dec %%ecx\n\t"
        "jnz 1b\n\t"
        "mov %[nr2], %%eax\n\t"
        "mov %[fd2], %%edi\n\t"
        "mov %[byte], %%rsi\n\t"
        "mov $1, %%edx\n\t"
        "syscall\n\t"
        "dec %[n]\n\t"
        "jnz 2b\n\t"
        : [n] "+r"(n)
        : [loop] "r"(p->loop), [nr1] "r"(p->nr_first), [fd1] "r"(p->fd_first),
          [nr2] "r"(p->nr_second), [fd2] "r"(p->fd_second), [byte] "r"(&p->byte)
        : "rax", "rcx", "rdx", "rsi", "rdi", "r11", "memory", "cc");
}

static int pin_to(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof(set), &set);
}

static void pin_to_cpu0(void)
{
    pin_to(0);
}

/* Threads A and B run fn(a) and fn(b) from CPU 0; returns when both end. */
static void run_pair(void *(*fn)(void *), void *a, void *b)
{
    pthread_t ta, tb;
    pin_to_cpu0();
    pthread_create(&ta, NULL, fn, a);
    pthread_create(&tb, NULL, fn, b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
}

/* One window of n rounds, then the thread's count and the CPU's. */
static int window(struct player *p, struct vertigo_counters *set, uint64_t n, unsigned int k)
{
    rounds(p, n);
    return vertigo_counters_read_pair(set, 0, &p->count[k], &p->vcpu[k]);
}

static void *play(void *arg)
{
    struct player *p = arg;
    struct vertigo_counters *set = NULL;
    pin_to(p->cpu);
    p->err = vertigo_counters_open(p->events, &set);
    if (!p->err)
        p->err = vertigo_counters_start(set);
    static const uint64_t scale[4] = { 1, 1, 2, 1 };    /* warm-up, R, 2R, tail */
    for (unsigned int k = 0; !p->err && k < 4; k++)
        p->err = window(p, set, k ? scale[k] * p->rounds : 1, k);
    uint64_t r0 = 0, r1 = 0;
    if (!p->err && !(p->err = vertigo_counters_read(set, 0, &r0)))
        p->err = vertigo_counters_read(set, 0, &r1);
    p->read_cost = r1 - r0;
    if (set && !p->err)
        p->err = vertigo_counters_stop(set);
    vertigo_counters_free(set);
    return NULL;
}

static int stats(struct vertigo_ctr_stats *s)
{
    int fd = open(VERTIGO_DEV_PATH, O_RDWR);
    int r = fd < 0 ? -1 : ioctl(fd, VERTIGO_IOC_CTR_STATS, s);
    if (fd >= 0)
        close(fd);
    return r;
}

static void check_player(const struct player *p)
{
    char what[96], detail[160];
    uint64_t r1 = p->count[1] - p->count[0], r2 = p->count[2] - p->count[1];
    uint64_t want = p->rounds * (2ull * p->loop + ROUND_EXTRA);
    snprintf(what, sizeof(what), "thread %s: instructions:u of R rounds exact", p->name);
    snprintf(detail, sizeof(detail), "2R window %lu - R window %lu = %lu, known %lu",
             (unsigned long)r2, (unsigned long)r1, (unsigned long)(r2 - r1),
             (unsigned long)want);
    check(r2 - r1 == want, what, detail);
}

/* A and B (names, events, loops, rounds and CPUs set) ping-pong through
 * two pipes from their own threads; 0 when both counted every window. */
static int play_pair(struct player *a, struct player *b)
{
    int a2b[2], b2a[2];
    char detail[200];
    if (pipe(a2b) || pipe(b2a)) {
        check(0, "set-up (pipes)", strerror(errno));
        return 1;
    }
    a->fd_first = a2b[1], a->fd_second = b2a[0], a->nr_first = SYS_write;
    a->nr_second = SYS_read, a->byte = 'a';
    b->fd_first = a2b[0], b->fd_second = b2a[1], b->nr_first = SYS_read;
    b->nr_second = SYS_write, b->byte = 'b';
    run_pair(play, a, b);
    snprintf(detail, sizeof(detail), "A: %s, B: %s", vertigo_counters_strerror(a->err),
             vertigo_counters_strerror(b->err));
    check(!a->err && !b->err, "both threads opened, started, read and stopped their sets", detail);
    for (int i = 0; i < 2; i++)
        close(a2b[i]), close(b2a[i]);
    return a->err || b->err;
}

static int run_count(uint64_t nrounds, unsigned int loop_a, unsigned int loop_b,
                     const char *events_b)
{
    struct vertigo_ctr_stats s0, s1;
    char detail[200];
    if (stats(&s0)) {
        check(0, "set-up (/dev/vertigo)", strerror(errno));
        return 1;
    }
    struct player a = { .name = "A", .events = "instructions:u", .loop = loop_a,
                        .rounds = nrounds };
    struct player b = { .name = "B", .events = events_b, .loop = loop_b, .rounds = nrounds };
    int err = play_pair(&a, &b);
    stats(&s1);
    if (err)
        return 1;
    check_player(&a);
    check_player(&b);
    printf("pv_threads: a read from user mode: %lu user instructions, 1 VM exit, no system call\n",
           (unsigned long)a.read_cost);
    uint64_t switches = s1.switches_in - s0.switches_in, programs = s1.programs - s0.programs;
    bool same = !strcmp(events_b, "instructions:u");
    if (same) {
        uint64_t threads = (a.count[2] - a.count[1]) + (b.count[2] - b.count[1]);
        uint64_t vcpu = a.vcpu[2] - a.vcpu[1];
        snprintf(detail, sizeof(detail), "A %lu + B %lu = %lu, CPU %lu",
                 (unsigned long)(a.count[2] - a.count[1]),
                 (unsigned long)(b.count[2] - b.count[1]), (unsigned long)threads,
                 (unsigned long)vcpu);
        check(threads == vcpu, "same events: the threads' counts add up to the CPU's", detail);
    }
    snprintf(detail, sizeof(detail), "%lu switches in, %lu programs, %lu kernel reads",
             (unsigned long)switches, (unsigned long)programs,
             (unsigned long)(s1.vcpu_reads - s0.vcpu_reads));
    if (same)
        check(switches >= 6 * nrounds && programs <= 1,
              "same events: no reprogramming hypercall at the switches", detail);
    else
        check(programs >= 6 * nrounds && programs <= switches + 2,
              "different events: one reprogramming hypercall per switch", detail);
    return failures != 0;
}

/* ---- Two VCPUs ------------------------------------------------------------ */

/* Why these checks and not the known counts (docs/user-guide.md): with
 * several emulated CPUs Bochs advances the TSC by the average of the
 * CPUs' turns, so a VCPU's tick count is no count of its own
 * instructions, and no per-thread count can equal a known loop size
 * there. What is exact is the split: a thread's count is its pieces of
 * the VCPUs' counts. So, with no other user code on the CPUs: a thread
 * pinned to a CPU counts exactly what the CPU counted over its window,
 * and a thread migrated back and forth counts exactly the sum of both
 * CPUs' differences over its window, nothing lost or counted twice at a
 * migration. The known counts are printed and checked within ppm. */

static void check_own_cpu(const struct player *p, uint64_t ppm)
{
    char what[96], detail[200];
    uint64_t mine = p->count[2] - p->count[1], cpu = p->vcpu[2] - p->vcpu[1];
    snprintf(what, sizeof(what), "smp: thread %s on CPU %d counts what its CPU counted",
             p->name, p->cpu);
    snprintf(detail, sizeof(detail), "2R window: thread %lu, CPU %d %lu", (unsigned long)mine,
             p->cpu, (unsigned long)cpu);
    check(mine == cpu, what, detail);
    uint64_t r1 = p->count[1] - p->count[0], d = mine - r1;
    uint64_t want = p->rounds * (2ull * p->loop + ROUND_EXTRA);
    uint64_t off = d > want ? d - want : want - d;
    snprintf(what, sizeof(what), "smp: thread %s: instructions:u of R rounds within %lu ppm",
             p->name, (unsigned long)ppm);
    snprintf(detail, sizeof(detail), "2R - R = %lu, known %lu, %lu ppm off", (unsigned long)d,
             (unsigned long)want, (unsigned long)(want ? off * 1000000 / want : 0));
    check(off * 1000000 <= want * ppm, what, detail);
}

/* The CPUs' pages of Vertigo's counts, mapped through a set of the
 * calling thread's own that it never starts: NULL on failure. */
static const struct vertigo_pv_page *map_cpu_pages(int *fd, uint32_t *cpus)
{
    struct vertigo_ctr_open req = { .events = "instructions:u" };
    *fd = open(VERTIGO_DEV_PATH, O_RDWR);
    if (*fd < 0 || ioctl(*fd, VERTIGO_IOC_CTR_OPEN, &req))
        return NULL;
    const struct vertigo_thread_page *page = mmap(NULL, 4096, PROT_READ, MAP_SHARED, *fd, 0);
    if (page == MAP_FAILED)
        return NULL;
    *cpus = page->vcpu_pages;
    void *m = mmap(NULL, (size_t)*cpus * VERTIGO_PV_PAGE_BYTES, PROT_READ, MAP_SHARED, *fd,
                   (off_t)VERTIGO_THREAD_VCPU_PGOFF * 4096);
    return m == MAP_FAILED ? NULL : m;
}

struct migration {
    unsigned int trips, loop, moved;    /* moved: trips that ran on CPU 1 */
    uint64_t thread[2], cpu0[2], cpu1[2];   /* at the window's two ends */
    int err;
};

/* The window's end: the thread's and CPU 0's counts in one read, CPU 1's
 * (idle in the kernel) from its page. */
static int migration_end(struct migration *m, struct vertigo_counters *set,
                         const struct vertigo_pv_page *pages, unsigned int k)
{
    int e = vertigo_counters_read_pair(set, 0, &m->thread[k], &m->cpu0[k]);
    if (!e && !vertigo_pv_count_parked(vertigo_vcpu_page(pages, 1), 0, 1000, &m->cpu1[k]))
        e = VERTIGO_CTR_EBACKEND;
    return e;
}

static void migrate(struct migration *m, struct vertigo_counters *set,
                    const struct vertigo_pv_page *pages)
{
    m->err = pin_to(1) || vertigo_counters_start(set) || pin_to(0) ? VERTIGO_CTR_ESYS : 0;
    if (!m->err)    /* both CPUs count instructions:u now */
        m->err = migration_end(m, set, pages, 0);
    for (unsigned int t = 0; !m->err && t < m->trips; t++) {
        pin_to(1);
        m->moved += sched_getcpu() == 1;
        spin_loop(m->loop);
        pin_to(0);
        spin_loop(m->loop);
    }
    if (!m->err)
        m->err = migration_end(m, set, pages, 1);
}

static void check_migration(uint64_t trips, unsigned int loop)
{
    struct vertigo_counters *set = NULL;
    struct migration m = { .trips = (unsigned int)trips, .loop = loop };
    uint32_t cpus = 0;
    int fd = -1;
    char detail[240];
    const struct vertigo_pv_page *pages = map_cpu_pages(&fd, &cpus);
    if (!pages || cpus < 2)
        m.err = VERTIGO_CTR_ENODEV;
    if (!m.err)
        m.err = vertigo_counters_open("instructions:u", &set);
    if (!m.err)
        migrate(&m, set, pages);
    snprintf(detail, sizeof(detail), "%s, %u CPUs' pages, %u of %u trips on CPU 1",
             vertigo_counters_strerror(m.err), cpus, m.moved, m.trips);
    check(!m.err && m.moved == m.trips, "smp: a thread migrated between CPU 0 and CPU 1 while "
          "counting", detail);
    uint64_t mine = m.thread[1] - m.thread[0], c0 = m.cpu0[1] - m.cpu0[0];
    uint64_t c1 = m.cpu1[1] - m.cpu1[0];
    snprintf(detail, sizeof(detail), "thread %lu = CPU 0 %lu + CPU 1 %lu (%lu); %u loops of %u "
             "iterations on each", (unsigned long)mine, (unsigned long)c0, (unsigned long)c1,
             (unsigned long)(c0 + c1), m.trips, loop);
    check(!m.err && mine == c0 + c1 && c1 >= m.trips,
          "smp: the migrated thread's count is the sum of its pieces on both CPUs", detail);
    if (set)
        vertigo_counters_stop(set);
    vertigo_counters_free(set);
    if (fd >= 0)
        close(fd);
}

static int run_smp(uint64_t nrounds, unsigned int loop_a, unsigned int loop_b, uint64_t ppm,
                   uint64_t trips)
{
    struct player a = { .name = "A", .events = "instructions:u", .cpu = 0, .loop = loop_a,
                        .rounds = nrounds };
    struct player b = { .name = "B", .events = "instructions:u", .cpu = 1, .loop = loop_b,
                        .rounds = nrounds };
    if (!play_pair(&a, &b)) {
        check_own_cpu(&a, ppm);
        check_own_cpu(&b, ppm);
    }
    pin_to_cpu0();
    check_migration(trips, loop_a);
    return failures != 0;
}

/* ---- Refusals ------------------------------------------------------------ */

static void expect_error(int got, int want, const char *what)
{
    char detail[160];
    snprintf(detail, sizeof(detail), "got \"%s\"", vertigo_counters_strerror(got));
    check(got == want, what, detail);
}

struct foreign {
    struct vertigo_counters *set;
    int fd;
    int read_err, start_err, mmap_errno, vcpu_mmap_errno, ioctl_errno;
};

/* Another thread tries the set through the library and the fd directly. */
static void *intrude(void *arg)
{
    struct foreign *f = arg;
    uint64_t v;
    f->read_err = vertigo_counters_read(f->set, 0, &v);
    f->start_err = vertigo_counters_start(f->set);
    void *m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, f->fd, 0);
    f->mmap_errno = m == MAP_FAILED ? errno : 0;
    m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, f->fd, (off_t)VERTIGO_THREAD_VCPU_PGOFF * 4096);
    f->vcpu_mmap_errno = m == MAP_FAILED ? errno : 0;
    f->ioctl_errno = ioctl(f->fd, VERTIGO_IOC_CTR_START) < 0 ? errno : 0;
    return NULL;
}

/* The CPUs' pages: read-only, all of them, at their offset only. */
static void bad_vcpu_maps(int fd)
{
    const struct vertigo_thread_page *page = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
    size_t cpus = page == MAP_FAILED ? 1 : page->vcpu_pages;
    off_t at = (off_t)VERTIGO_THREAD_VCPU_PGOFF * 4096;
    void *w = mmap(NULL, cpus * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, at);
    check(w == MAP_FAILED && errno == EINVAL, "a writable mapping of the CPUs' pages is refused",
          w == MAP_FAILED ? strerror(errno) : "mapped");
    void *big = mmap(NULL, (cpus + 1) * 4096, PROT_READ, MAP_SHARED, fd, at);
    check(big == MAP_FAILED && errno == EINVAL, "a mapping past the CPUs' pages is refused",
          big == MAP_FAILED ? strerror(errno) : "mapped");
    void *odd = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, at + 4096 * 8);
    check(odd == MAP_FAILED && errno == EINVAL, "a mapping at another page offset is refused",
          odd == MAP_FAILED ? strerror(errno) : "mapped");
}

static void bad_foreign_thread(void)
{
    struct foreign f = { NULL, -1, 0, 0, 0, 0, 0 };
    struct vertigo_ctr_open req = { .events = "instructions:u" };
    expect_error(vertigo_counters_open("instructions:u", &f.set), 0, "a set opens");
    f.fd = open(VERTIGO_DEV_PATH, O_RDWR);
    check(f.fd >= 0 && ioctl(f.fd, VERTIGO_IOC_CTR_OPEN, &req) == 0 && req.count == 1,
          "a raw set opens on /dev/vertigo", strerror(errno));
    void *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, f.fd, 0);
    check(w == MAP_FAILED && errno == EINVAL, "a writable mapping of the page is refused",
          w == MAP_FAILED ? strerror(errno) : "mapped");
    pthread_t t;
    pthread_create(&t, NULL, intrude, &f);
    pthread_join(t, NULL);
    expect_error(f.read_err, VERTIGO_CTR_ETHREAD, "another thread's read: wrong thread");
    expect_error(f.start_err, VERTIGO_CTR_ETHREAD, "another thread's start: wrong thread");
    check(f.mmap_errno == EPERM, "another thread cannot map the page (EPERM)",
          strerror(f.mmap_errno));
    check(f.vcpu_mmap_errno == EPERM, "another thread cannot map the CPUs' pages (EPERM)",
          strerror(f.vcpu_mmap_errno));
    bad_vcpu_maps(f.fd);
    check(f.ioctl_errno == EPERM, "another thread cannot start the set (EPERM)",
          strerror(f.ioctl_errno));
    close(f.fd);
    expect_error(vertigo_counters_close(f.set), 0, "the set closes");
    uint64_t v;
    expect_error(vertigo_counters_read(f.set, 0, &v), VERTIGO_CTR_ECLOSED,
                 "reading a closed set");
    expect_error(vertigo_counters_start(f.set), VERTIGO_CTR_ECLOSED, "starting a closed set");
    vertigo_counters_free(f.set);
}

static int run_bad(void)
{
    struct vertigo_counters *set = NULL;
    expect_error(vertigo_counters_open("instructions:u,no-such-event", &set),
                 VERTIGO_CTR_EUNKNOWN, "unknown event");
    expect_error(vertigo_counters_open("cycles,instructions,ref-cycles,cycles:u,cycles:k", &set),
                 VERTIGO_CTR_ETOOMANY, "more events than per-thread counters");
    expect_error(vertigo_counters_open("exits:all", &set), VERTIGO_CTR_EUNSUPPORTED,
                 "a software event");
    expect_error(vertigo_counters_open("instructions:u", &set), 0, "a set opens");
    uint64_t v;
    expect_error(vertigo_counters_read(set, 1, &v), VERTIGO_CTR_EINDEX, "a counter past the set");
    vertigo_counters_free(set);
    bad_foreign_thread();
    int64_t r = vertigo_hypercall1(VERTIGO_HC_PV_PAGE, 0x100000);
    check(r == -VERTIGO_EPERM, "the page hypercall from user mode: EPERM", vertigo_strerror(r));
    return failures != 0;
}

/* ---- i-mode ---------------------------------------------------------------- */

#define IMODE_MAX_SIGNALS 1024u

/* The calling thread's signals (the handler is the process's). */
static __thread struct vertigo_counters *imode_set;
static __thread uint64_t imode_at[IMODE_MAX_SIGNALS];
static __thread unsigned int imode_signals, imode_bad_info;

static void on_overflow(int sig, siginfo_t *info, void *uc)
{
    uint64_t v = 0;
    (void)sig;
    (void)uc;
    if (imode_set && vertigo_counters_read(imode_set, 0, &v) != 0)
        v = 0;
    if (info->si_code != SI_QUEUE || info->si_value.sival_int != 1 || info->si_pid != 0)
        imode_bad_info++;
    if (imode_signals < IMODE_MAX_SIGNALS)
        imode_at[imode_signals] = v;
    imode_signals++;
}

struct spinner {
    const char *name;
    uint64_t period, iterations;
    uint64_t count;                 /* instructions:u at the loop's end */
    uint64_t skid_min, skid_max;    /* the handler's read past k * period */
    unsigned int signals, bad_info, early;
    int err;
};

static void spin_loop(uint64_t n)
{
    __asm__ volatile("1:\n\t"
                     "dec %[n]\n\t"
                     "jnz 1b\n\t"
                     : [n] "+r"(n) : : "cc");
}

static void spinner_skids(struct spinner *s)
{
    s->skid_min = UINT64_MAX;
    for (unsigned int k = 0; k < s->signals && k < IMODE_MAX_SIGNALS; k++) {
        uint64_t point = (k + 1) * s->period;
        if (imode_at[k] < point) {
            s->early++;
            continue;
        }
        uint64_t d = imode_at[k] - point;
        s->skid_min = d < s->skid_min ? d : s->skid_min;
        s->skid_max = d > s->skid_max ? d : s->skid_max;
    }
}

static void *spinner_run(void *arg)
{
    struct spinner *s = arg;
    pin_to_cpu0();
    s->err = vertigo_counters_open("instructions:u", &imode_set);
    if (!s->err && s->period)
        s->err = vertigo_counters_overflow(imode_set, 0, s->period, SIGRTMIN);
    if (!s->err)
        s->err = vertigo_counters_start(imode_set);
    if (!s->err) {
        spin_loop(s->iterations);
        s->err = vertigo_counters_read(imode_set, 0, &s->count);
    }
    if (!s->err)
        s->err = vertigo_counters_stop(imode_set);
    s->signals = imode_signals;
    s->bad_info = imode_bad_info;
    if (s->period)
        spinner_skids(s);
    vertigo_counters_free(imode_set);
    imode_set = NULL;
    return NULL;
}

static void imode_refusals(void)
{
    struct vertigo_counters *set = NULL;
    expect_error(vertigo_counters_open("instructions:u", &set), 0, "a set opens");
    expect_error(vertigo_counters_overflow(set, 0, 999, SIGRTMIN), VERTIGO_CTR_EPERIOD,
                 "i-mode: a period below 1000");
    expect_error(vertigo_counters_overflow(set, 0, (1ull << 48) + 1, SIGRTMIN),
                 VERTIGO_CTR_EPERIOD, "i-mode: a period above 2^48");
    expect_error(vertigo_counters_overflow(set, 0, 100000, SIGKILL), VERTIGO_CTR_ESIGNAL,
                 "i-mode: SIGKILL as the signal");
    expect_error(vertigo_counters_overflow(set, 0, 100000, 65), VERTIGO_CTR_ESIGNAL,
                 "i-mode: signal 65");
    expect_error(vertigo_counters_overflow(set, 1, 100000, SIGRTMIN), VERTIGO_CTR_EINDEX,
                 "i-mode: a counter past the set");
    /* the module's own checks, past the library's */
    int fd = open(VERTIGO_DEV_PATH, O_RDWR);
    struct vertigo_ctr_open req = { .events = "instructions:u" };
    struct vertigo_ctr_period bad = { .index = 0, .signo = SIGSTOP, .period = 100000 };
    int r = fd >= 0 && ioctl(fd, VERTIGO_IOC_CTR_OPEN, &req) == 0
                ? ioctl(fd, VERTIGO_IOC_CTR_PERIOD, &bad) : 0;
    check(r < 0 && errno == EINVAL, "i-mode: the module refuses SIGSTOP (EINVAL)",
          r < 0 ? strerror(errno) : "accepted");
    bad = (struct vertigo_ctr_period){ .index = 0, .signo = SIGRTMIN, .period = 10 };
    r = fd >= 0 ? ioctl(fd, VERTIGO_IOC_CTR_PERIOD, &bad) : 0;
    check(r < 0 && errno == EINVAL, "i-mode: the module refuses a period of 10 (EINVAL)",
          r < 0 ? strerror(errno) : "accepted");
    if (fd >= 0)
        close(fd);
    vertigo_counters_free(set);
}

static int run_imode(uint64_t period, uint64_t instructions, uint64_t skid)
{
    struct spinner a = { .name = "A", .period = period, .iterations = instructions / 2 };
    struct spinner b = { .name = "B", .iterations = instructions / 2 };
    struct sigaction sa = { .sa_sigaction = on_overflow, .sa_flags = SA_SIGINFO | SA_RESTART };
    struct vertigo_ctr_stats s0, s1;
    char detail[240];
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGRTMIN, &sa, NULL) || stats(&s0)) {
        check(0, "i-mode: set-up (sigaction, /dev/vertigo)", strerror(errno));
        return 1;
    }
    run_pair(spinner_run, &a, &b);
    stats(&s1);
    snprintf(detail, sizeof(detail), "A: %s, B: %s", vertigo_counters_strerror(a.err),
             vertigo_counters_strerror(b.err));
    check(!a.err && !b.err, "i-mode: both threads counted their loops", detail);
    if (a.err || b.err)
        return 1;
    uint64_t want = a.count / period;
    snprintf(detail, sizeof(detail), "%u signals, count %lu / period %lu = %lu; %lu loop "
             "instructions / period = %lu", a.signals, (unsigned long)a.count,
             (unsigned long)period, (unsigned long)want, (unsigned long)instructions,
             (unsigned long)(instructions / period));
    check(a.signals == want && a.signals + 1 >= instructions / period &&
          a.signals <= instructions / period + 1,
          "i-mode: thread A got one signal per period of its own count", detail);
    snprintf(detail, sizeof(detail), "%u with another si_code, si_int or si_pid", a.bad_info);
    check(a.bad_info == 0, "i-mode: each signal's siginfo names counter 0 (si_int 1)", detail);
    snprintf(detail, sizeof(detail), "handler's read past k * period: %lu to %lu events, %u "
             "before it; documented at most %lu", (unsigned long)a.skid_min,
             (unsigned long)a.skid_max, a.early, (unsigned long)skid);
    check(a.early == 0 && a.skid_max <= skid, "i-mode: every signal within the skid", detail);
    snprintf(detail, sizeof(detail), "%u signals, count %lu", b.signals, (unsigned long)b.count);
    check(b.signals == 0, "i-mode: thread B, same CPU, no period: no signal", detail);
    snprintf(detail, sizeof(detail), "%lu switches in, %lu NMIs, %lu overflows (%lu late), "
             "%lu signals sent, %lu lost, largest count past the point at its NMI %lu",
             (unsigned long)(s1.switches_in - s0.switches_in),
             (unsigned long)(s1.interrupts - s0.interrupts),
             (unsigned long)(s1.overflows - s0.overflows), (unsigned long)(s1.late - s0.late),
             (unsigned long)(s1.signals - s0.signals),
             (unsigned long)(s1.signals_lost - s0.signals_lost), (unsigned long)s1.skid_max);
    check(s1.overflows - s0.overflows == a.signals && s1.signals_lost == s0.signals_lost &&
          s1.skid_max == 0 && s1.switches_in - s0.switches_in >= 2,
          "i-mode: every overflow found at its exact event, none lost", detail);
    imode_refusals();
    return failures != 0;
}

static int spin(uint64_t n)
{
    __asm__ volatile("1:\n\t"
                     "dec %[n]\n\t"
                     "jnz 1b\n\t"
                     : [n] "+r"(n) : : "cc");
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc >= 5 && !strcmp(argv[1], "count"))
        return run_count(strtoull(argv[2], NULL, 0), (unsigned int)strtoul(argv[3], NULL, 0),
                         (unsigned int)strtoul(argv[4], NULL, 0),
                         argc > 5 ? argv[5] : "instructions:u");
    if (argc == 7 && !strcmp(argv[1], "smp"))
        return run_smp(strtoull(argv[2], NULL, 0), (unsigned int)strtoul(argv[3], NULL, 0),
                       (unsigned int)strtoul(argv[4], NULL, 0), strtoull(argv[5], NULL, 0),
                       strtoull(argv[6], NULL, 0));
    if (argc == 2 && !strcmp(argv[1], "bad"))
        return run_bad();
    if (argc == 3 && !strcmp(argv[1], "spin") && strtoull(argv[2], NULL, 0))
        return spin(strtoull(argv[2], NULL, 0));
    if (argc == 5 && !strcmp(argv[1], "imode") && strtoull(argv[2], NULL, 0))
        return run_imode(strtoull(argv[2], NULL, 0), strtoull(argv[3], NULL, 0),
                         strtoull(argv[4], NULL, 0));
    fprintf(stderr, "usage: pv_threads count ROUNDS LOOP_A LOOP_B [EVENTS_B] | pv_threads bad | "
                    "pv_threads spin N | pv_threads imode PERIOD INSTRUCTIONS SKID | "
                    "pv_threads smp ROUNDS LOOP_A LOOP_B PPM TRIPS\n");
    return 2;
}
