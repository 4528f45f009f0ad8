/* pv_cost: what an a-mode read of the guest counter library
 * (guestlib/vertigo_counters.h) costs, per counter kind, on CPU 0:
 *
 *   every mode   "instructions" counts user and kernel mode: computed from
 *                the TSC and the VCPU's page, no exit (where the page says
 *                one TSC tick is one event: the software backend, one VCPU)
 *   other mode   "instructions:k" read from user mode stands still there:
 *                the page's sum, no exit
 *   own mode     "instructions:u" read from user mode: one VM exit
 *                (VERTIGO_HC_PV_READ)
 *
 * and, for comparison, the same counts through system calls: the
 * library's vertigo_counters_read_syscall (the module) and perf's read()
 * of an instructions:u event on the guest's virtual PMU.
 *
 * One set counts all three; counter 0 (instructions:u, exact) is the
 * ruler of user-mode reads: a read's guest instructions are the ruler's
 * difference around it less the ruler's own read; counter 1 (every mode)
 * is the ruler of system calls, whose instructions are mostly the
 * kernel's. A read's exits are the VCPU's entries around it (Vertigo
 * rewrites the VCPU's page before every entry, seq + 4: the counts, then
 * the entry's TSC). Each figure is the least of REPS tries (a timer
 * interrupt may fall into one). Then the checks:
 *   - the every-mode and other-mode reads make no exit, the own-mode one
 *     makes one;
 *   - the every-mode and other-mode reads take at most READ_TARGET (40)
 *     guest instructions (the read is inline: read_user's own, less a
 *     call of read_nothing);
 *   - within one run a TSC-computed count is exact: two windows of known
 *     loops (3 instructions an iteration) read without an exit differ by
 *     exactly their loops' difference;
 *   - the TSC-computed count and Vertigo's exact one at the next exit
 *     agree up to the same few instructions of Vertigo's entry path in
 *     every run (printed: a TSC read counts them as the guest's);
 *   - a reader written for perf's self-monitoring protocol (lock, index,
 *     cap_user_rdpmc, offset, RDPMC(index - 1), pmc_width) reads the same
 *     counts from a thread page as the library (RDPMC of
 *     VERTIGO_PV_RDPMC + i: one exit), and index is 0 while stopped;
 *   - the thread's own TSC (vertigo_counters_tsc) counts exactly the
 *     instructions of a loop within a run, and not the time it sleeps.
 * First of all (before its own sets program the CPU), what a context
 * switch costs: two threads on CPU 0 ping-pong a byte through two pipes
 * SWITCH_ROUNDS times, with no counters, both counting the same events
 * (instructions, every mode) and counting different ones (instructions
 * and cycles, one reprogramming per switch): TSC ticks (guest and
 * Vertigo instructions alike in Bochs) and VM exits per switch.
 * Prints "pv_cost: ..." lines, "pv_cost: PASS: ..." or "pv_cost: FAIL:
 * ..." per check, "reason: ..." after a failure; exit status 1 if one
 * failed. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <vertigo_counters.h>     /* installed: pkg-config vertigo_counters */

#include "guestlib/kmod/vertigo_ioctl.h"
#include "guestlib/vertigo_measure.h"
#include "guestlib/vertigo_thread_ctr.h"
#include "guestlib/vertigo_vmcall.h"
#include "tests/guest/perf_event_open.h"

#define EVENTS      "instructions:u,instructions,instructions:k"
#define REPS        16u
#define RULER       0u
#define LOOP_SHORT  1000u
#define LOOP_LONG   3000u
#define SWITCH_ROUNDS 200u
#define READ_TARGET 40u     /* guest instructions of an exit-free a-mode read */

static int failures;

static void check(int ok, const char *what, const char *detail)
{
    printf("pv_cost: %s: %s (%s)\n", ok ? "PASS" : "FAIL", what, detail);
    if (!ok) {
        failures++;
        printf("reason: %s\n", what);
    }
}

/* CPU 0's page of Vertigo's counts, mapped as the library maps it. */
struct vcpu_view {
    int fd;                     /* a second set of EVENTS, started */
    const volatile struct vertigo_pv_page *page;
    const volatile struct perf_event_mmap_page *perf;   /* its counter 0, as perf sees it */
};

/* Opens (not starts) a set of `events` on the view's fd: it programs CPU
 * 0 with them. */
static int view_open(struct vcpu_view *w, const char *events)
{
    struct vertigo_ctr_open req = { .flags = 0 };
    strncpy(req.events, events, sizeof(req.events) - 1);
    w->fd = open(VERTIGO_DEV_PATH, O_RDWR);
    if (w->fd < 0 || ioctl(w->fd, VERTIGO_IOC_CTR_OPEN, &req) < 0)
        return -1;
    const struct vertigo_thread_page *t = mmap(NULL, (size_t)req.count * VERTIGO_THREAD_PAGE,
                                               PROT_READ, MAP_SHARED, w->fd, 0);
    if (t == MAP_FAILED)
        return -1;
    size_t bytes = (size_t)t->vcpu_pages * VERTIGO_PV_PAGE_BYTES;
    void *m = bytes ? mmap(NULL, bytes, PROT_READ, MAP_SHARED, w->fd,
                           (off_t)VERTIGO_THREAD_VCPU_PGOFF * VERTIGO_THREAD_PAGE)
                    : MAP_FAILED;
    if (m == MAP_FAILED)
        return -1;
    w->page = m;                /* CPU 0's: the first */
    w->perf = (const volatile void *)t;
    return 0;
}

static uint32_t entries(const struct vcpu_view *w)
{
    return w->page->seq / 4;
}

/* ---- Cost per kind --------------------------------------------------------- */

struct cost {
    uint64_t instructions;
    uint32_t exits;
};

/* What one call of `read` costs. */
struct reader {
    struct vertigo_counters *set;
    unsigned int k;             /* the set's counter it reads */
    int perf_fd;
    void (*read)(const struct reader *r);
};

static void read_nothing(const struct reader *r)
{
    (void)r;
}

/* The read, its value used (in a register: a caller's next instruction). */
static void read_user(const struct reader *r)
{
    uint64_t v;
    vertigo_counters_read(r->set, r->k, &v);
    __asm__ volatile("" : : "r"(v));
}

static void read_module(const struct reader *r)
{
    uint64_t v[VERTIGO_PV_COUNTERS_MAX];
    vertigo_counters_read_syscall(r->set, v);
}

static void read_perf(const struct reader *r)
{
    uint64_t v;
    if (read(r->perf_fd, &v, sizeof(v)) != sizeof(v))
        v = 0;
}

/* The least cost of a call of r over REPS tries, measured with the set's
 * counter `ruler_k`; `base` is what the measurement itself costs (a call
 * of read_nothing). */
static struct cost cost_of(const struct reader *r, const struct vcpu_view *w, unsigned int ruler_k,
                           uint64_t base)
{
    struct cost best = { UINT64_MAX, UINT32_MAX };
    for (unsigned int t = 0; t < REPS; t++) {
        uint64_t a = 0, b = 0;
        vertigo_counters_read(r->set, ruler_k, &a);
        r->read(r);
        vertigo_counters_read(r->set, ruler_k, &b);
        uint32_t e0 = entries(w);
        r->read(r);
        uint32_t exits = entries(w) - e0;
        uint64_t n = b - a - base;
        best.instructions = n < best.instructions ? n : best.instructions;
        best.exits = exits < best.exits ? exits : best.exits;
    }
    return best;
}

/* What measuring with counter k costs: a call of read_nothing. */
static uint64_t base_cost(struct vertigo_counters *set, const struct vcpu_view *w, unsigned int k)
{
    struct reader nothing = { set, 0, -1, read_nothing };
    return cost_of(&nothing, w, k, 0).instructions;
}

/* ---- Exactness of the TSC-computed count ----------------------------------- */

/* Counter 1 (every mode) around a loop of n iterations with no exit in
 * between; 0 if every try had one. */
static uint64_t window(struct vertigo_counters *set, const struct vcpu_view *w, uint64_t n)
{
    for (unsigned int r = 0; r < REPS; r++) {
        uint64_t a = 0, b = 0;
        uint32_t e0 = entries(w);
        vertigo_counters_read(set, 1, &a);
        vertigo_loop_inc(n);
        vertigo_counters_read(set, 1, &b);
        if (entries(w) == e0)
            return b - a;
    }
    return 0;
}

/* The VCPU's count of its counter 1 from the page and the TSC, and then,
 * 4 instructions later (SHL, OR, MOV, MOV), Vertigo's exact count at the
 * VMCALL: their difference less 4 is what the TSC counts of Vertigo's
 * entry path. -1 if an exit came between the page and the TSC. */
static int64_t entry_overcount(const struct vcpu_view *w)
{
    const volatile struct vertigo_pv_page *p = w->page;
    uint32_t seq = p->seq;
    uint64_t sum = p->counters[1].sum, base = p->entry_tsc, tsc;
    int64_t exact;
    __asm__ volatile("lfence\n\t"
                     "rdtsc\n\t"
                     "shl $32, %%rdx\n\t"
                     "or %%rdx, %%rax\n\t"
                     "mov %%rax, %[tsc]\n\t"
                     "mov %[nr], %%eax\n\t"
                     "vmcall"
                     : [tsc] "=&r"(tsc), "=a"(exact)
                     : [nr] "i"(VERTIGO_HC_PV_READ), "b"(1ull)
                     : "rdx", "memory");
    if (p->seq != seq + 4 || exact < 0)
        return -1;
    return (int64_t)(sum + (tsc - base)) - (exact - 4);
}

/* ---- perf's self-monitoring protocol --------------------------------------- */

static uint64_t rdpmc(uint32_t ecx)
{
    uint32_t lo, hi;
    __asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(ecx));
    return ((uint64_t)hi << 32) | lo;
}

/* The count as Linux's perf_event.h tells a self-monitoring reader to
 * take it from the page. */
static uint64_t perf_read(const volatile struct perf_event_mmap_page *pc)
{
    uint32_t seq, idx;
    uint64_t count;
    do {
        seq = pc->lock;
        __asm__ volatile("" ::: "memory");
        idx = pc->index;
        count = (uint64_t)pc->offset;
        if (pc->cap_user_rdpmc && idx) {
            unsigned int width = pc->pmc_width;
            int64_t pmc = (int64_t)rdpmc(idx - 1);
            pmc = (int64_t)((uint64_t)pmc << (64 - width)) >> (64 - width);
            count += (uint64_t)pmc;
        }
        __asm__ volatile("" ::: "memory");
    } while (pc->lock != seq);
    return count;
}

/* The raw set's instructions:u through perf's protocol against the
 * library's set over the same window: the same difference, exactly. */
static void check_perf_reader(struct vertigo_counters *set, const struct vcpu_view *w)
{
    char detail[200];
    uint64_t p1, p2, l1 = 0, l2 = 0;
    uint32_t idle = w->perf->index;
    if (ioctl(w->fd, VERTIGO_IOC_CTR_START) < 0) {
        check(0, "a perf self-monitoring reader reads the page's counts", strerror(errno));
        return;
    }
    uint32_t running = w->perf->index;
    p1 = perf_read(w->perf);
    vertigo_counters_read(set, 0, &l1);
    vertigo_loop_inc(LOOP_SHORT);
    p2 = perf_read(w->perf);
    vertigo_counters_read(set, 0, &l2);
    uint32_t e0 = entries(w);
    perf_read(w->perf);
    uint32_t exits = entries(w) - e0;
    snprintf(detail, sizeof(detail), "perf %lu, library %lu over the window; index %#x stopped, "
             "%#x running; %u exit per read", (unsigned long)(p2 - p1), (unsigned long)(l2 - l1),
             idle, running, exits);
    check(p2 - p1 == l2 - l1 && p2 - p1 >= VERTIGO_LOOP_INC_INSTRUCTIONS * LOOP_SHORT &&
          idle == 0 && running == VERTIGO_PV_RDPMC + 1 && exits == 1,
          "a perf self-monitoring reader reads the page's counts", detail);
}

/* ---- The thread's own TSC --------------------------------------------------- */

/* Its ticks around a loop of n iterations with no exit; 0 if every try had one. */
static uint64_t ticks_window(struct vertigo_counters *set, const struct vcpu_view *w, uint64_t n)
{
    for (unsigned int r = 0; r < REPS; r++) {
        uint64_t a = 0, b = 0;
        uint32_t e0 = entries(w);
        vertigo_counters_tsc(set, &a);
        vertigo_loop_inc(n);
        vertigo_counters_tsc(set, &b);
        if (entries(w) == e0)
            return b - a;
    }
    return 0;
}

static void check_thread_tsc(struct vertigo_counters *set, const struct vcpu_view *w)
{
    char detail[200];
    uint64_t d1 = ticks_window(set, w, LOOP_SHORT), d2 = ticks_window(set, w, LOOP_LONG);
    snprintf(detail, sizeof(detail), "%lu - %lu = %lu, known %u", (unsigned long)d2,
             (unsigned long)d1, (unsigned long)(d2 - d1),
             VERTIGO_LOOP_INC_INSTRUCTIONS * (LOOP_LONG - LOOP_SHORT));
    check(d1 && d2 && d2 - d1 == VERTIGO_LOOP_INC_INSTRUCTIONS * (LOOP_LONG - LOOP_SHORT),
          "the thread's own TSC counts a loop's instructions exactly", detail);
    uint64_t t0 = 0, t1 = 0, c0 = vertigo_tsc_read();
    vertigo_counters_tsc(set, &t0);
    usleep(20000);
    vertigo_counters_tsc(set, &t1);
    uint64_t real = vertigo_tsc_read() - c0;
    snprintf(detail, sizeof(detail), "its own %lu ticks, the CPU's %lu, over a 20 ms sleep",
             (unsigned long)(t1 - t0), (unsigned long)real);
    check(t1 > t0 && (t1 - t0) * 10 < real, "the thread's own TSC stands still while it sleeps",
          detail);
}

/* ---- Context switches ------------------------------------------------------- */

struct player {
    int in, out;                /* pipes: read one byte, write one byte */
    const char *events;         /* NULL: no counters */
    bool first;                 /* writes before it reads */
    int err;
};

static void pin_cpu0(void)
{
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    CPU_SET(0, &cpus);
    sched_setaffinity(0, sizeof(cpus), &cpus);
}

static void *play(void *arg)
{
    struct player *p = arg;
    struct vertigo_counters *set = NULL;
    char byte = 'x';
    pin_cpu0();
    if (p->events && !(p->err = vertigo_counters_open(p->events, &set)))
        p->err = vertigo_counters_start(set);
    for (unsigned int r = 0; !p->err && r < SWITCH_ROUNDS; r++) {
        if (p->first && write(p->out, &byte, 1) != 1)
            p->err = -1;
        if (read(p->in, &byte, 1) != 1)
            p->err = -1;
        if (!p->first && write(p->out, &byte, 1) != 1)
            p->err = -1;
    }
    vertigo_counters_free(set);
    return NULL;
}

/* Ticks and exits per switch of a ping-pong whose threads count a_events
 * and b_events (NULL: nothing); false if it could not run. */
static bool switch_cost(const struct vcpu_view *w, const char *a_events, const char *b_events,
                        uint64_t *ticks, uint64_t *exits)
{
    int ab[2], ba[2];
    if (pipe(ab) || pipe(ba))
        return false;
    struct player a = { ba[0], ab[1], a_events, true, 0 }, b = { ab[0], ba[1], b_events, false, 0 };
    pthread_t ta, tb;
    uint32_t e0 = entries(w);
    uint64_t t0 = vertigo_tsc_read();
    pthread_create(&ta, NULL, play, &a);
    pthread_create(&tb, NULL, play, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    *ticks = (vertigo_tsc_read() - t0) / (2 * SWITCH_ROUNDS);
    *exits = (uint64_t)(entries(w) - e0) / (2 * SWITCH_ROUNDS);
    close(ab[0]), close(ab[1]), close(ba[0]), close(ba[1]);
    return !a.err && !b.err;
}

/* Prints each run's cost; checks that threads counting the same events
 * switch with no more exits than threads counting nothing (the mode
 * traps of a counting session of Vertigo's, if one runs, exit at their
 * system calls either way). */
static void report_switches(const struct vcpu_view *w)
{
    uint64_t none = UINT64_MAX;
    static const struct { const char *what, *a, *b; } runs[] = {
        { "no counters", NULL, NULL },
        { "same events", "instructions", "instructions" },
        { "different events", "instructions", "cycles" },
    };
    for (unsigned int i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
        uint64_t ticks = 0, exits = 0;
        bool ok = switch_cost(w, runs[i].a, runs[i].b, &ticks, &exits);
        if (!ok)
            printf("pv_cost: context switch, %s: not measured\n", runs[i].what);
        else
            printf("pv_cost: context switch, %-18s %6lu ticks, %lu VM exits per switch "
                   "(a pipe round trip / 2)\n", runs[i].what, (unsigned long)ticks,
                   (unsigned long)exits);
        if (i == 0 && ok)
            none = exits;
        if (i == 1) {
            char detail[80];
            snprintf(detail, sizeof(detail), "%lu per switch, %lu without counters",
                     (unsigned long)exits, (unsigned long)none);
            check(ok && exits == none,
                  "threads counting the same events switch with no VM exit of their own",
                  ok ? detail : "not measured");
        }
    }
}

/* ---- Main ------------------------------------------------------------------ */

static void report(const char *what, const char *event, struct cost c)
{
    printf("pv_cost: %-28s %-15s %5lu guest instructions, %u VM exits\n", what, event,
           (unsigned long)c.instructions, c.exits);
}

/* For comparison: the module's system call, and perf's read() of an
 * instructions:u event of the guest's virtual PMU, measured in every
 * mode (counter 1). */
static void report_syscalls(struct vertigo_counters *set, const struct vcpu_view *w)
{
    uint64_t ruler_read = base_cost(set, w, 1);
    struct reader module = { set, 0, -1, read_module };
    report("system call (module)", "instructions:u", cost_of(&module, w, 1, ruler_read));
    struct reader perf = { set, 0, perf_open_hw(PERF_COUNT_HW_INSTRUCTIONS, 1, 0), read_perf };
    if (perf.perf_fd < 0 || ioctl(perf.perf_fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
        printf("pv_cost: perf read() not measured: %s\n", strerror(errno));
        return;
    }
    report("perf read(), virtual PMU", "instructions:u", cost_of(&perf, w, 1, ruler_read));
    close(perf.perf_fd);
}

static int run(void)
{
    struct vertigo_counters *set = NULL;
    struct vcpu_view w;
    char detail[160];
    struct vcpu_view sw;
    if (view_open(&sw, "instructions")) {      /* no :u counter: no mode traps */
        check(0, "set-up (CPU 0's page)", strerror(errno));
        return 1;
    }
    report_switches(&sw);
    close(sw.fd);
    int e = vertigo_counters_open(EVENTS, &set);
    if (!e)
        e = vertigo_counters_start(set);
    if (e || view_open(&w, EVENTS)) {
        check(0, "set-up (the set, CPU 0's page)", e ? vertigo_counters_strerror(e)
                                                     : strerror(errno));
        return 1;
    }
    uint64_t ruler_read = base_cost(set, &w, RULER);
    struct reader own_r = { set, 0, -1, read_user }, all_r = { set, 1, -1, read_user },
                  other_r = { set, 2, -1, read_user };
    struct cost own = cost_of(&own_r, &w, RULER, ruler_read);
    struct cost all = cost_of(&all_r, &w, RULER, ruler_read);
    struct cost other = cost_of(&other_r, &w, RULER, ruler_read);
    report("a-mode read, every mode", "instructions", all);
    report("a-mode read, other mode", "instructions:k", other);
    report("a-mode read, own mode", "instructions:u", own);
    report_syscalls(set, &w);
    snprintf(detail, sizeof(detail), "every mode %u, other mode %u, own mode %u", all.exits,
             other.exits, own.exits);
    check(all.exits == 0 && other.exits == 0 && own.exits == 1,
          "reads of every-mode and other-mode counters make no VM exit, own-mode ones one", detail);
    snprintf(detail, sizeof(detail), "every mode %lu, other mode %lu, own mode %lu + 1 exit; "
             "target %u", (unsigned long)all.instructions, (unsigned long)other.instructions,
             (unsigned long)own.instructions, READ_TARGET);
    check(all.instructions <= READ_TARGET && other.instructions <= READ_TARGET,
          "exit-free a-mode reads take at most 40 guest instructions", detail);

    uint64_t d1 = window(set, &w, LOOP_SHORT), d2 = window(set, &w, LOOP_LONG);
    snprintf(detail, sizeof(detail), "%lu - %lu = %lu, known %u", (unsigned long)d2,
             (unsigned long)d1, (unsigned long)(d2 - d1),
             VERTIGO_LOOP_INC_INSTRUCTIONS * (LOOP_LONG - LOOP_SHORT));
    check(d1 && d2 && d2 - d1 == VERTIGO_LOOP_INC_INSTRUCTIONS * (LOOP_LONG - LOOP_SHORT),
          "a TSC-computed count is exact within a run", detail);

    int64_t first = -1;
    unsigned int same = 0, tries = 0;
    for (unsigned int r = 0; r < REPS; r++) {
        int64_t b = entry_overcount(&w);
        if (b < 0)
            continue;
        tries++;
        first = first < 0 ? b : first;
        same += b == first;
    }
    snprintf(detail, sizeof(detail), "%ld instructions in %u of %u runs", (long)first, same, tries);
    check(tries >= REPS / 2 && same == tries && first >= 0 && first < 200,
          "a TSC-computed count counts the same few entry instructions in every run", detail);
    printf("pv_cost: a TSC-computed count includes %ld instructions of Vertigo's entry path\n",
           (long)first);
    check_perf_reader(set, &w);
    check_thread_tsc(set, &w);
    vertigo_counters_free(set);
    return failures != 0;
}

int main(void)
{
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    CPU_SET(0, &cpus);
    if (sched_setaffinity(0, sizeof(cpus), &cpus)) {
        check(0, "pinned to CPU 0", strerror(errno));
        return 1;
    }
    return run();
}
