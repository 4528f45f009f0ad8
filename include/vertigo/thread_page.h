/* The per-thread counter page: the ABI between the guest kernel module
 * (guestlib/kmod/, its writer) and the programs of the guest that read
 * their threads' counts from user mode (guestlib/vertigo_counters.h, whose
 * inline read is built on vertigo_thread_try_read below; installed with
 * it). Header-only and portable, so the host unit tests run the reader
 * against simulated pages.
 *
 * The module maps one page per counter of a thread's set, read-only, into
 * the thread. It follows Linux's perf_event_mmap_page layout and rules
 * (lock is a sequence count bumped before and after every update, index,
 * offset, pmc_width, time_enabled, time_running, capabilities), so a perf
 * self-monitoring reader finds the fields where it looks and works
 * unchanged: while the thread runs, index is 1 + the RDPMC index of the
 * VCPU's paravirtual counter i (VERTIGO_PV_RDPMC + i, which Vertigo serves
 * with one exit; the module sets CR4.PCE for the thread) and capabilities
 * has cap_user_rdpmc, so value = offset + RDPMC(index - 1); else index is
 * 0 and value = offset.
 *
 * Vertigo's own reader uses the words in perf's reserved area instead:
 * vcpu_page points, while the thread runs, at its VCPU's page of
 * paravirtual counters (struct vertigo_pv_page, include/vertigo/
 * hypercall.h) in the thread's read-only mapping of every VCPU's page
 * (page offset VERTIGO_THREAD_VCPU_PGOFF of the module's device, vcpu_pages
 * of them), vcpu_counter at that page's counters[i], whose user_how says
 * how user mode reads the VCPU's count with no exit, or that only
 * VERTIGO_HC_PV_READ (one exit) gives it:
 *   value = offset + the VCPU's count of paravirtual counter i
 * retried while lock changed (a thread switch, migration to another VCPU
 * included, came in the middle) or the VCPU's page seq changed (an exit
 * came in the middle). Neither is ever seen odd by the thread itself: the
 * module writes the thread's page while the thread is off its VCPU, and
 * Vertigo writes a VCPU's page while that VCPU is out of the guest. */
#ifndef VERTIGO_THREAD_PAGE_H
#define VERTIGO_THREAD_PAGE_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
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

/* perf_event_mmap_page's first fields, at perf's offsets (the counter
 * library checks them against <linux/perf_event.h>), then Vertigo's words
 * in perf's reserved area. */
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
                                   (user RDPMC and user time: time_offset,
                                   time_mult and time_shift are valid), else 0 */
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
    uint64_t vcpu_counter;      /* with vcpu_page: the user address of that
                                   page's counters[counter], else 0 */
};

VERTIGO_STATIC_ASSERT(sizeof(struct vertigo_thread_page) == 136, "thread page layout");

/* The a-mode read, one attempt: the thread's count of its counter i
 * (< VERTIGO_PV_COUNTERS_MAX) from its page and, while it runs, its
 * VCPU's count as that VCPU's page tells user mode: the sum
 * (VERTIGO_PV_READ_FIXED), the sum plus the TSC ticks since the entry
 * (VERTIGO_PV_READ_TICKS; tsc() reads the TSC after every earlier load),
 * the sum plus read_pmc(ECX) (VERTIGO_PV_READ_RDPMC | ECX: the hardware
 * backend's counter, started from 0 at the entry and passed through; with
 * read_pmc NULL such a counter returns -1, so that an inline caller keeps
 * RDPMC's registers out of its fast path and reads it out of line), or
 * exit_read(i) (VERTIGO_PV_READ_EXIT, or a kind this reader does not know:
 * VERTIGO_HC_PV_READ, one exit, which rewrites the page). Returns 1 and *value; 0 when a thread switch
 * or an exit came in the middle (try again: the next attempt sees the new
 * pages); -1 when the thread runs but its VCPU's page is not mapped, or
 * exit_read failed (the general way then). Kept short: a thread makes
 * this read in the code it measures, and every instruction of it counts
 * there. */
static inline int vertigo_thread_try_read(const volatile struct vertigo_thread_page *page,
                                          uint32_t i, uint64_t (*tsc)(void),
                                          uint64_t (*read_pmc)(uint32_t ecx),
                                          int64_t (*exit_read)(uint32_t k), uint64_t *value)
{
    /* The pointers and the first sequence counts are volatile loads (made
     * once: a pointer tested is the pointer used); the other fields are
     * plain loads between compiler barriers, which the compiler may fold
     * into the instruction that uses them: a page that changed under them
     * fails the checks at the end. */
    const struct vertigo_thread_page *p = (const struct vertigo_thread_page *)page;
    uint32_t lock = page->lock;
    __asm__ volatile("" ::: "memory");
    const struct vertigo_pv_counter *c =
        (const struct vertigo_pv_counter *)(uintptr_t)page->vcpu_counter;
    uint64_t v;
    if (c) {
        const volatile struct vertigo_pv_page *vpage =
            (const volatile struct vertigo_pv_page *)(uintptr_t)page->vcpu_page;
        const struct vertigo_pv_page *vp = (const struct vertigo_pv_page *)vpage;
        uint32_t seq = vpage->seq;
        __asm__ volatile("" ::: "memory");
        if (__builtin_expect(c->user_how == VERTIGO_PV_READ_TICKS, 1)) {
            v = (uint64_t)p->offset + c->sum - vp->entry_tsc;
            v += tsc();
        } else if (c->user_how == VERTIGO_PV_READ_FIXED) {
            v = (uint64_t)p->offset + c->sum;
        } else if (c->user_how & VERTIGO_PV_READ_RDPMC) {
            if (!read_pmc)
                return -1;
            v = (uint64_t)p->offset + c->sum;
            v += read_pmc(c->user_how & ~VERTIGO_PV_READ_RDPMC);
        } else {
            int64_t n = exit_read(i);
            if (n < 0)
                return -1;
            v = (uint64_t)p->offset + (uint64_t)n;
            seq = vp->seq;              /* the exit rewrote the page */
        }
        __asm__ volatile("" ::: "memory");
        if (vp->seq != seq)
            return 0;
    } else if (p->pv_index) {
        return -1;      /* running, but the VCPUs' pages are not mapped */
    } else {
        v = (uint64_t)p->offset;
    }
    __asm__ volatile("" ::: "memory");
    if (p->lock != lock)
        return 0;
    *value = v;
    return 1;
}

#endif
