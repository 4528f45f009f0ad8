/* A VCPU's paravirtual counters (VERTIGO_HC_PV_*, include/vertigo/hypercall.h):
 * up to VERTIGO_PV_COUNTERS_MAX guest events the guest kernel programs,
 * counted by guest mode from the runs the software backend measures, and
 * their Start/Sum state published in a page of guest RAM the guest
 * registered, so the guest can fold and start per-thread counts at its own
 * thread switches without an exit. Vertigo's VCPU switches (its exits)
 * are the guest's blind spot: the page is rewritten before every entry.
 * Portable: the page is plain memory to it. */
#ifndef PMU_PMU_PV_H
#define PMU_PMU_PV_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/backend/pmu_events.h"
#include "vertigo/hypercall.h"

struct pmu_pv {
    struct vertigo_pv_page *page;       /* the guest's page, NULL: none */
    uint32_t vcpu;                      /* written to the page */
    uint32_t seq;                       /* the page's sequence count */
    unsigned int count;                 /* counters programmed */
    uint8_t modes[VERTIGO_PV_COUNTERS_MAX];     /* bit cpl-mode: 1 kernel, 2 user */
    uint64_t counts[VERTIGO_PV_COUNTERS_MAX];
    uint64_t generation;                /* programs that succeeded */
    bool tsc_counts_events;             /* one TSC tick is one event of this
                                           VCPU's (software backend, one VCPU):
                                           the page says VERTIGO_PV_TICKS */
    bool published;                     /* the page was written for the coming
                                           entry: pmu_pv_entering completes it */
    /* Hardware backend (pmu/hw/pv_hw.h), for the coming run: counter i is
     * read by user mode as sum + RDPMC where rdpmc_how[i] is not 0
     * (VERTIGO_PV_READ_RDPMC | ECX; the counter starts from 0). */
    uint32_t rdpmc_how[VERTIGO_PV_COUNTERS_MAX];
    bool rdpmc_native;                  /* their last run passed RDPMC through */
    /* Overflow interrupts (VERTIGO_HC_PV_VECTOR) */
    uint32_t vector;                    /* 0: none, VERTIGO_PV_VECTOR_NMI */
    uint64_t interrupts;                /* raised, published in the page */
    uint64_t fired[VERTIGO_PV_COUNTERS_MAX];   /* the overflow_at value each last
                                                  raised one for: one per value */
};

/* Mode bits of pmu_pv.modes. */
#define PMU_PV_KERNEL 1u
#define PMU_PV_USER   2u

/* Programs pv with the comma-separated events (perf-style names, parsed
 * with caps): every count restarts at 0, "" stops them all. Returns the
 * number of counters, or -VERTIGO_EINVAL (pv unchanged) for an event the
 * parser refuses, a software event, one counting Vertigo (:h) or more
 * than VERTIGO_PV_COUNTERS_MAX events; *why (may be NULL) says which. */
int64_t pmu_pv_program(struct pmu_pv *pv, const char *events, const struct pmu_event_caps *caps,
                       const char **why);

/* The guest ran n events (ticks, or one emulated instruction) at
 * privilege level cpl: counted on the counters of that mode. Inline: runs
 * at every exit. */
static inline void pmu_pv_count(struct pmu_pv *pv, unsigned int cpl, uint64_t n)
{
    uint8_t mode = cpl ? PMU_PV_USER : PMU_PV_KERNEL;
    for (unsigned int i = 0; i < pv->count; i++)
        if (pv->modes[i] & mode)
            pv->counts[i] += n;
}

/* VERTIGO_HC_PV_VECTOR: NULL if vector may be registered (0 or
 * VERTIGO_PV_VECTOR_NMI), else why not. */
const char *pmu_pv_vector_refusal(uint64_t vector);

/* Registers vector (0: no interrupts): 0, or -VERTIGO_EINVAL and *why
 * (may be NULL) for a refused one, pv unchanged. */
int64_t pmu_pv_set_vector(struct pmu_pv *pv, uint64_t vector, const char **why);

/* How many events the guest may run at privilege level cpl before a
 * counter of that mode reaches the overflow_at the guest wrote (1 if one
 * already passed it without its interrupt), UINT64_MAX if none will: the
 * software backend's deadline, so the run exits at the exact instruction. */
uint64_t pmu_pv_events_to_overflow(const struct pmu_pv *pv, unsigned int cpl);

/* After counting: the counters whose count reached their overflow_at
 * (bit i), each once per value written; if any, an interrupt is due and
 * pv->interrupts has counted it. Out of line only when armed. */
uint32_t pmu_pv_find_overflows(struct pmu_pv *pv);
static inline uint32_t pmu_pv_take_overflows(struct pmu_pv *pv)
{
    return pv->vector && pv->page ? pmu_pv_find_overflows(pv) : 0;
}

/* Counter i's count, or -VERTIGO_EINVAL for an index past the program. */
int64_t pmu_pv_read(const struct pmu_pv *pv, uint64_t index);

/* RDPMC with ECX = VERTIGO_PV_RDPMC + i, i a programmed counter: true and
 * its count; false for any other ECX (the guest's virtual PMU's, or #GP). */
bool pmu_pv_rdpmc(const struct pmu_pv *pv, uint32_t ecx, uint64_t *value);

/* True if some counter counts one guest mode only (the software backend
 * must see every change of mode to count it exactly). */
bool pmu_pv_needs_modes(const struct pmu_pv *pv);

/* Sets the guest's page (NULL: none) and writes it at once. */
void pmu_pv_set_page(struct pmu_pv *pv, struct vertigo_pv_page *page, uint32_t vcpu);

/* Before an entry at privilege level cpl, at TSC entry_tsc: the page gets
 * every counter's sum and the entry's TSC and CPL, between two increments
 * of seq (odd while it is written). Nothing without a page. */
void pmu_pv_publish(struct pmu_pv *pv, uint64_t entry_tsc, unsigned int cpl);

/* The last TSC before the entry instruction (after the timer, the NMI and
 * everything else the entry path does since pmu_pv_publish): the page's
 * entry_tsc becomes it, so a guest computing a count from the TSC (sum +
 * TSC now - entry_tsc) counts only the entry instruction's own path as
 * the guest's, the same few instructions at every entry. Inline: runs
 * before every entry; nothing unless the page was published for it. */
static inline void pmu_pv_entering(struct pmu_pv *pv, uint64_t tsc)
{
    if (!pv->published || !pv->page)
        return;
    pv->published = false;
    pv->seq += 2;
    __atomic_store_n(&pv->page->seq, pv->seq - 1, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    pv->page->entry_tsc = tsc;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&pv->page->seq, pv->seq, __ATOMIC_RELAXED);
}

#endif
