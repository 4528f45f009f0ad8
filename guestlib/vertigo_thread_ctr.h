/* Per-thread paravirtual counters: the state the guest kernel module keeps
 * per thread and how it writes the read-only page it maps into the thread,
 * shared by the module (the writer, guestlib/kmod/vertigo_threads.c) and
 * the counter library (guestlib/vertigo_counters.c). Header-only and
 * portable, so the host unit tests run it against a simulated VCPU.
 *
 * Vertigo counts per VCPU (include/vertigo/hypercall.h, HC_PV_*); the
 * module turns that into per-thread counts the Perfctr way: at each thread
 * switch it folds the outgoing thread's share, sum += vcpu - start, and
 * starts the incoming one's, start = vcpu. A thread's count now is
 * sum + (vcpu now - start) while it runs, and sum otherwise.
 *
 * The module maps the thread one read-only page per counter, the
 * per-thread counter page of include/vertigo/thread_page.h (perf's
 * mmap-page layout and protocol; the user-mode read is there too): it
 * writes it here, from the set, at every switch of the thread. The
 * VCPU's count comes without an exit where Vertigo's page of that VCPU
 * allows (vertigo_pv_count_now), else from VERTIGO_HC_PV_READ (one exit,
 * any CPL). */
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
#include "vertigo/thread_page.h"

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
    p->vcpu_counter = p->vcpu_page ? p->vcpu_page + offsetof(struct vertigo_pv_page, counters) +
                                         (uint64_t)i * sizeof(struct vertigo_pv_counter)
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
