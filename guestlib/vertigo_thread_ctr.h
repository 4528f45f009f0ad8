/* Per-thread paravirtual counters: the state the guest kernel module keeps
 * per thread and the read-only page it maps into the thread, shared by the
 * module (the writer, guestlib/kmod/vertigo_threads.c) and the counter
 * library (the reader, guestlib/vertigo_counters.c). Header-only and
 * portable, so the host unit tests run it against a simulated VCPU.
 *
 * Vertigo counts per VCPU (include/vertigo/hypercall.h, HC_PV_*); the
 * module turns that into per-thread counts the Perfctr way: at each thread
 * switch it folds the outgoing thread's share, sum += vcpu - start, and
 * starts the incoming one's, start = vcpu. A thread's count now is
 * sum + (vcpu now - start) while it runs, and sum otherwise.
 *
 * The page of counter i follows Linux's perf_event_mmap_page layout and
 * rules (lock is a sequence count bumped before and after every update,
 * offset, pmc_width, time_enabled, time_running), so a perf self-monitoring
 * reader finds the fields where it looks and works unchanged: while the
 * thread runs, index is 1 + the RDPMC index of the VCPU's paravirtual
 * counter i (VERTIGO_PV_RDPMC + i, which Vertigo serves with one exit;
 * the module sets CR4.PCE for the thread) and capabilities has
 * cap_user_rdpmc, so value = offset + RDPMC(index - 1); else index is 0
 * and value = offset. Vertigo's own reader adds, in perf's reserved area,
 * pv_index: while the thread runs, i + 1 for "add the VCPU's count of
 * paravirtual counter i", else 0:
 *   value = offset + (pv_index ? vcpu count of counter pv_index - 1 : 0)
 * retried while lock was odd or changed. A thread switch (migration to
 * another VCPU included) bumps lock, so a read that straddles one is
 * retried. The VCPU's count comes without an exit where Vertigo's page of
 * that VCPU allows (the module maps every VCPU's page read-only after the
 * thread's, at page offset VERTIGO_THREAD_VCPU_PGOFF, vcpu_pages of them;
 * vcpu_page is the user address of the running thread's one, and the
 * page's counters[i].user_how says how user mode reads it), else from
 * VERTIGO_HC_PV_READ (one exit, any CPL). */
#ifndef GUESTLIB_VERTIGO_THREAD_CTR_H
#define GUESTLIB_VERTIGO_THREAD_CTR_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#endif

#include "vertigo/hypercall.h"

#define VERTIGO_THREAD_MAGIC    0x72685456u     /* "VThr" */
/* perf_event_mmap_page's capability bits while the thread runs:
 * cap_bit0_is_deprecated (bit 1, as Linux sets it), cap_user_rdpmc (bit
 * 2) and cap_user_time (bit 3: time_offset, time_mult 1, time_shift 0
 * turn the TSC now into the ticks since the thread's switch-in). */
#define VERTIGO_THREAD_CAP_USER_TIME (1ull << 3)
#define VERTIGO_THREAD_CAPS     ((1ull << 1) | (1ull << 2) | VERTIGO_THREAD_CAP_USER_TIME)
#define VERTIGO_THREAD_PAGE     4096u           /* one page per counter */
/* mmap page offset of the VCPUs' counter pages (struct vertigo_pv_page,
 * one per CPU number, read-only): after the largest set's thread pages. */
#define VERTIGO_THREAD_VCPU_PGOFF VERTIGO_PV_COUNTERS_MAX

/* perf_event_mmap_page's first fields, at perf's offsets (the library
 * checks them against <linux/perf_event.h>), then Vertigo's words in
 * perf's reserved area. */
struct vertigo_thread_page {
    uint32_t version;           /* 0 */
    uint32_t compat_version;    /* 0 */
    uint32_t lock;              /* sequence count: odd while the module writes */
    uint32_t index;             /* RDPMC ECX + 1 while the thread runs
                                   (VERTIGO_PV_RDPMC + i + 1), else 0 */
    int64_t offset;             /* sum (stopped) or sum - start (running) */
    uint64_t time_enabled;      /* TSC ticks the counter was enabled, up to the
                                   last switch of its thread */
    uint64_t time_running;      /* TSC ticks it counted: = time_enabled (no
                                   multiplexing) */
    uint64_t capabilities;      /* VERTIGO_THREAD_CAPS while the thread runs
                                   (user RDPMC), else 0; never user time */
    uint16_t pmc_width;         /* 64 */
    uint16_t time_shift;
    uint32_t time_mult;
    uint64_t time_offset;
    uint64_t time_zero;
    uint32_t size;              /* bytes of this structure */
    uint32_t reserved_1;
    uint64_t time_cycles;
    uint64_t time_mask;
    /* perf's __reserved area starts here (offset 96) */
    uint32_t magic;             /* VERTIGO_THREAD_MAGIC */
    uint32_t pv_index;          /* i + 1 while the thread runs, else 0 */
    uint32_t vcpu;              /* the VCPU it last ran on */
    uint32_t counter;           /* i: which counter of the set this page is */
    uint32_t vcpu_pages;        /* VCPU pages at VERTIGO_THREAD_VCPU_PGOFF */
    uint32_t reserved;
    uint64_t vcpu_page;         /* while the thread runs: the user address of
                                   its VCPU's page in the thread's mapping of
                                   them (VERTIGO_THREAD_VCPU_PGOFF), else 0 */
};

_Static_assert(sizeof(struct vertigo_thread_page) == 128, "thread page layout");

/* A thread's counter set, kept by the module. */
struct vertigo_thread_set {
    uint32_t count;                             /* counters, <= VERTIGO_PV_COUNTERS_MAX */
    bool started;                               /* start ioctl without stop */
    bool running;                               /* started and on a VCPU now */
    uint64_t sum[VERTIGO_PV_COUNTERS_MAX];      /* counted before start[] */
    uint64_t start[VERTIGO_PV_COUNTERS_MAX];    /* the VCPU's counts at switch-in */
    uint64_t enabled_ticks;                     /* TSC ticks started, up to in_tsc */
    uint64_t in_tsc;                            /* TSC at switch-in */
    /* i-mode: counter i signals its thread every period[i] events */
    uint64_t period[VERTIGO_PV_COUNTERS_MAX];   /* 0: no overflow signal */
    uint64_t next[VERTIGO_PV_COUNTERS_MAX];     /* the thread's count of the next one */
};

/* The thread goes off its VCPU (vcpu[i]: the VCPU's counts now): its
 * share since the switch-in joins sum. */
static inline void vertigo_thread_fold(struct vertigo_thread_set *s, const uint64_t *vcpu,
                                       uint64_t tsc)
{
    if (!s->running)
        return;
    for (uint32_t i = 0; i < s->count; i++)
        s->sum[i] += vcpu[i] - s->start[i];
    s->enabled_ticks += tsc - s->in_tsc;
    s->running = false;
}

/* The thread comes onto a VCPU whose counters count its events (vcpu[i]:
 * their counts now). */
static inline void vertigo_thread_resume(struct vertigo_thread_set *s, const uint64_t *vcpu,
                                         uint64_t tsc)
{
    if (!s->started)
        return;
    for (uint32_t i = 0; i < s->count; i++)
        s->start[i] = vcpu[i];
    s->in_tsc = tsc;
    s->running = true;
}

/* The thread's count of counter i, with vcpu_i the VCPU's count now. */
static inline uint64_t vertigo_thread_value(const struct vertigo_thread_set *s, uint32_t i,
                                            uint64_t vcpu_i)
{
    return s->running ? s->sum[i] + (vcpu_i - s->start[i]) : s->sum[i];
}

/* ---- i-mode: overflow periods ----------------------------------------------
 * Counter i with a period N overflows each time the thread's own count
 * reaches next[i] = (count when the period was set) + k * N. While the
 * thread runs, the VCPU's paravirtual counter i must raise its interrupt
 * when the VCPU's count reaches start[i] + (next[i] - sum[i]): the
 * module writes that into the VCPU's page (overflow_at[i]) at the thread's
 * switch-in and clears it at its switch-out, so only the owner's counts
 * can reach it. The module checks the thread's counts against next[] at
 * the interrupt and again at every fold and switch-in, so an overflow the
 * interrupt did not reach in time is still its thread's, found late but
 * never lost or given to another thread. */
#define VERTIGO_THREAD_PERIOD_MIN 1000ull           /* events: fewer would flood the thread */
#define VERTIGO_THREAD_PERIOD_MAX (1ull << 48)

/* A period the module accepts: 0 (off) or MIN..MAX. */
static inline bool vertigo_thread_period_ok(uint64_t period)
{
    return period == 0 ||
           (period >= VERTIGO_THREAD_PERIOD_MIN && period <= VERTIGO_THREAD_PERIOD_MAX);
}

/* Counter i gets period (0: none), counting from the thread's count now. */
static inline void vertigo_thread_set_period(struct vertigo_thread_set *s, uint32_t i,
                                             uint64_t period, uint64_t value_now)
{
    s->period[i] = period;
    s->next[i] = period ? value_now + period : 0;
}

/* The counts restart at 0: so do the periods. */
static inline void vertigo_thread_restart_periods(struct vertigo_thread_set *s)
{
    for (uint32_t i = 0; i < s->count; i++)
        s->next[i] = s->period[i];
}

/* The VCPU count at which running counter i overflows: the overflow_at
 * the module writes; 0 (none) without a period or while not running. */
static inline uint64_t vertigo_thread_overflow_at(const struct vertigo_thread_set *s, uint32_t i)
{
    if (!s->running || !s->period[i])
        return 0;
    return s->start[i] + (s->next[i] - s->sum[i]);
}

/* value[i]: the thread's counts now. Every counter whose count reached
 * next[i] moves next[i] past it by whole periods; returns their bits and
 * adds to *overflows (may be NULL) how many periods were crossed (more
 * than one bit's worth when a check came late). */
static inline uint32_t vertigo_thread_overflows(struct vertigo_thread_set *s,
                                                const uint64_t *value, uint64_t *overflows)
{
    uint32_t mask = 0;
    for (uint32_t i = 0; i < s->count; i++) {
        if (!s->period[i] || value[i] < s->next[i])
            continue;
        uint64_t k = (value[i] - s->next[i]) / s->period[i] + 1;
        s->next[i] += k * s->period[i];
        mask |= 1u << i;
        if (overflows)
            *overflows += k;
    }
    return mask;
}

/* Writes counter i's page from s, between two bumps of lock. The
 * compiler must not move the field stores across the bumps; x86 keeps
 * stores in order, and the reader runs on the same VCPU or retries. */
static inline void vertigo_thread_page_write(volatile struct vertigo_thread_page *p,
                                             const struct vertigo_thread_set *s, uint32_t i,
                                             uint32_t vcpu, uint32_t vcpu_pages,
                                             uint64_t vcpu_pages_uaddr)
{
    p->lock++;
    __asm__ volatile("" ::: "memory");
    p->offset = (int64_t)(s->running ? s->sum[i] - s->start[i] : s->sum[i]);
    p->time_enabled = s->enabled_ticks;
    p->time_running = s->enabled_ticks;
    p->pmc_width = 64;
    p->size = sizeof(struct vertigo_thread_page);
    p->magic = VERTIGO_THREAD_MAGIC;
    p->time_offset = s->running ? 0 - s->in_tsc : 0;
    p->time_mult = 1;
    p->time_shift = 0;
    p->pv_index = s->running ? i + 1 : 0;
    p->index = s->running ? VERTIGO_PV_RDPMC + i + 1 : 0;
    p->capabilities = s->running ? VERTIGO_THREAD_CAPS : 0;
    p->vcpu = vcpu;
    p->counter = i;
    p->vcpu_pages = vcpu_pages;
    p->vcpu_page = s->running && vcpu_pages_uaddr && vcpu < vcpu_pages
                       ? vcpu_pages_uaddr + (uint64_t)vcpu * VERTIGO_PV_PAGE_BYTES
                       : 0;
    __asm__ volatile("" ::: "memory");
    p->lock++;
}

/* The count of paravirtual counter k (< VERTIGO_PV_COUNTERS_MAX) of the
 * VCPU whose page is vp, as code running on that VCPU in guest mode
 * `mode` (VERTIGO_PV_USER or VERTIGO_PV_KERNEL) sees it, with no exit,
 * where the page allows:
 *   a counter that does not count `mode` stands still while the caller
 *   runs in it (Vertigo exits at every change of mode while a counter
 *   counts one mode only): its sum;
 *   one that counts every guest mode, one TSC tick an event
 *   (VERTIGO_PV_ALL_MODES | VERTIGO_PV_TICKS): sum + (TSC now - entry_tsc),
 *   tsc() being the TSC read after the page's fields.
 * One attempt: 1 and *count; 0 when Vertigo rewrote the page meanwhile
 * (it does before every entry: the read straddled an exit; try again);
 * -1 when only an exit gives the count (a counter of `mode` only, a page
 * without ticks, k past the program: no flags). Code on the page's own
 * VCPU only: Vertigo writes the page while that VCPU is out of the guest. */
static inline int vertigo_pv_try_count(const volatile struct vertigo_pv_page *vp, uint32_t k,
                                       uint32_t mode, uint64_t (*tsc)(void), uint64_t *count)
{
    const uint32_t ticking = VERTIGO_PV_ALL_MODES | VERTIGO_PV_TICKS;
    const volatile struct vertigo_pv_counter *c = &vp->counters[k];
    uint32_t seq = vp->seq;
    __asm__ volatile("" ::: "memory");
    uint32_t flags = c->flags;
    uint64_t n = c->sum;
    if (!flags || ((flags & mode) && (flags & ticking) != ticking))
        return -1;
    if (flags & mode)
        n += tsc() - vp->entry_tsc;
    __asm__ volatile("" ::: "memory");
    if (vp->seq != seq)     /* odd while Vertigo writes: never seen by its own VCPU */
        return 0;
    *count = n;
    return 1;
}

/* vertigo_pv_try_count until the page stood still: true and *count, or
 * false when only an exit gives it (or k is past the counters). */
static inline bool vertigo_pv_count_now(const volatile struct vertigo_pv_page *vp, uint32_t k,
                                        uint32_t mode, uint64_t (*tsc)(void), uint64_t *count)
{
    int r = 0;
    if (k >= VERTIGO_PV_COUNTERS_MAX)
        return false;
    while (!(r = vertigo_pv_try_count(vp, k, mode, tsc, count)))
        ;
    return r > 0;
}

/* The count of paravirtual counter k of another VCPU, read from its page
 * with no exit, where that is exact: the counter does not count kernel
 * mode and the VCPU's last entry was to kernel mode (entry_cpl 0), so the
 * count stands still until that VCPU's next exit, which rewrites the page
 * (the mode traps exit at every change of mode while a counter counts one
 * mode). A VCPU idle in the kernel (halted) is such a VCPU: no user
 * instruction of a thread that left it, or is to come onto it, is missing
 * from the count read. One attempt: 1 and *count; 0 when Vertigo was
 * writing the page or rewrote it meanwhile (try again); -1 when the page
 * does not give the count (the VCPU was entered in user mode, the counter
 * counts kernel mode, k is past the program). */
static inline int vertigo_pv_try_parked(const volatile struct vertigo_pv_page *vp, uint32_t k,
                                        uint64_t *count)
{
    uint32_t seq = vp->seq;
    __asm__ volatile("" ::: "memory");
    uint32_t flags = k < VERTIGO_PV_COUNTERS_MAX ? vp->counters[k].flags : 0;
    uint64_t n = k < VERTIGO_PV_COUNTERS_MAX ? vp->counters[k].sum : 0;
    uint32_t cpl = vp->entry_cpl;
    __asm__ volatile("" ::: "memory");
    if ((seq & 1) || vp->seq != seq)
        return 0;
    if (!(flags & VERTIGO_PV_USER) || (flags & (VERTIGO_PV_KERNEL | VERTIGO_PV_ALL_MODES)) ||
        cpl != 0)
        return -1;
    *count = n;
    return 1;
}

/* vertigo_pv_try_parked until the page stood still (at most `tries`
 * attempts): true and *count, or false. */
static inline bool vertigo_pv_count_parked(const volatile struct vertigo_pv_page *vp, uint32_t k,
                                           unsigned int tries, uint64_t *count)
{
    for (unsigned int t = 0; t < tries; t++) {
        int r = vertigo_pv_try_parked(vp, k, count);
        if (r)
            return r > 0;
    }
    return false;
}

/* VCPU vcpu's page among the module's mapping of them all, which starts
 * at base: one page each, by CPU number. */
static inline const volatile struct vertigo_pv_page *vertigo_vcpu_page(const volatile void *base,
                                                                        uint32_t vcpu)
{
    return (const volatile struct vertigo_pv_page *)((const volatile char *)base +
                                                     (size_t)vcpu * VERTIGO_PV_PAGE_BYTES);
}

/* The a-mode read, one attempt: the thread's count of its counter i
 * (< VERTIGO_PV_COUNTERS_MAX) from its page p and, while it runs, the
 * count of its VCPU as that VCPU's page tells user mode
 * (vertigo_pv_page's counters[i].user_how; vcpu_page points at it in the
 * thread's mapping, 0 when the thread did not map them), or from
 * exit_read(i) (VERTIGO_HC_PV_READ, one exit) where only an exit gives
 * it. Returns 1 and *value; 0 when a thread switch or an exit came in the
 * middle (try again: the next attempt sees the new pages); -1 when the
 * pages are not mapped or exit_read failed (the general way then).
 * Kept short: this is the read a thread makes in its measured code. The
 * thread's own page never shows it an odd lock (the module writes it
 * while the thread is off its VCPU), nor its VCPU's page (Vertigo writes
 * it while the VCPU is out of the guest). */
static inline int vertigo_thread_try_read(const volatile struct vertigo_thread_page *p, uint32_t i,
                                          uint64_t (*tsc)(void),
                                          int64_t (*exit_read)(uint32_t k), uint64_t *value)
{
    uint32_t lock = p->lock;
    __asm__ volatile("" ::: "memory");
    const volatile struct vertigo_pv_page *vp =
        (const volatile struct vertigo_pv_page *)(uintptr_t)p->vcpu_page;
    uint64_t v = (uint64_t)p->offset;
    if (vp) {
        uint32_t seq = vp->seq;
        __asm__ volatile("" ::: "memory");
        uint32_t how = vp->counters[i].user_how;
        if (how == VERTIGO_PV_READ_EXIT) {
            int64_t c = exit_read(i);       /* rewrites the page: no seq check */
            if (c < 0)
                return -1;
            v += (uint64_t)c;
        } else {
            v += vp->counters[i].sum;
            if (how == VERTIGO_PV_READ_TICKS) {
                v -= vp->entry_tsc;
                __asm__ volatile("" : "+r"(v));     /* before the TSC: fewer registers live */
                v += tsc();
            }
            __asm__ volatile("" ::: "memory");
            if (vp->seq != seq)
                return 0;
        }
    } else if (p->pv_index) {
        return -1;      /* running, but the CPUs' pages are not mapped */
    }
    __asm__ volatile("" ::: "memory");
    if (p->lock != lock)
        return 0;
    *value = v;
    return 1;
}

/* The thread's TSC ticks while its set was started, from page p: a TSC
 * virtualized per thread (not advancing while the thread is off its
 * CPU): time_enabled, up to its last switch, plus time_offset + the TSC
 * now (the ticks since its switch-in) while it runs, as perf's
 * cap_user_time reader computes its delta with time_mult 1, time_shift
 * 0. Retried while the page changed. */
static inline uint64_t vertigo_thread_ticks(const volatile struct vertigo_thread_page *p,
                                            uint64_t (*tsc)(void))
{
    for (;;) {
        uint32_t seq = p->lock;
        __asm__ volatile("" ::: "memory");
        uint64_t ticks = p->time_enabled;
        if (p->capabilities & VERTIGO_THREAD_CAP_USER_TIME)
            ticks += p->time_offset + tsc();
        __asm__ volatile("" ::: "memory");
        if (!(seq & 1) && p->lock == seq)
            return ticks;
    }
}

/* Reads counter value from page p: read_vcpu(ctx, vcpu, k) gives VCPU
 * vcpu's count of paravirtual counter k (the caller runs on it).
 * Retries while the page is being written or was written meanwhile;
 * *retries (may be NULL) counts them. Returns 0 and *value, or the
 * negative result of read_vcpu. */
static inline int64_t vertigo_thread_page_read(const volatile struct vertigo_thread_page *p,
                                               int64_t (*read_vcpu)(void *ctx, uint32_t vcpu,
                                                                    uint32_t k),
                                               void *ctx, uint64_t *value, uint32_t *retries)
{
    for (;;) {
        uint32_t seq = p->lock;
        __asm__ volatile("" ::: "memory");
        uint64_t offset = (uint64_t)p->offset;
        uint32_t pv = p->pv_index, vcpu = p->vcpu;
        int64_t count = 0;
        if (!(seq & 1) && pv)
            count = read_vcpu(ctx, vcpu, pv - 1);
        __asm__ volatile("" ::: "memory");
        if (!(seq & 1) && p->lock == seq) {
            if (count < 0)
                return count;
            *value = offset + (uint64_t)count;
            return 0;
        }
        if (retries)
            (*retries)++;
    }
}

#endif
