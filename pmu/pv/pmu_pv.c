/* A VCPU's paravirtual counters (see pmu/pv/pmu_pv.h). */
#include "pmu/pv/pmu_pv.h"

#include "lib/mem.h"

static uint8_t modes_of(const struct pmu_event *ev)
{
    return (uint8_t)((ev->kernel ? PMU_PV_KERNEL : 0) | (ev->user ? PMU_PV_USER : 0));
}

/* Why ev cannot be a paravirtual counter, or NULL. */
static const char *refusal(const struct pmu_event *ev)
{
    if (ev->source != PMU_EVENT_HW)
        return "a software event (exits:...) is not a guest counter";
    if (ev->hypervisor)
        return "a guest counter cannot count Vertigo (:h)";
    if (!ev->user && !ev->kernel)
        return "the event counts no guest mode";
    return NULL;
}

/* Checks every event of list; NULL or the reason one is refused. */
static const char *check_list(const struct pmu_event_list *list)
{
    if (list->count > VERTIGO_PV_COUNTERS_MAX)
        return "more events than paravirtual counters";
    for (unsigned int i = 0; i < list->count; i++) {
        const char *why = refusal(&list->events[i]);
        if (why)
            return why;
    }
    return NULL;
}

int64_t pmu_pv_program(struct pmu_pv *pv, const char *events, const struct pmu_event_caps *caps,
                       const char **why)
{
    struct pmu_event_list list = { 0 };
    const char *reason = NULL;
    enum pmu_event_err err = events[0] ? pmu_event_list_parse(events, caps, &list, NULL)
                                       : PMU_EVERR_NONE;
    if (err != PMU_EVERR_NONE)
        reason = pmu_event_err_text(err);
    else
        reason = check_list(&list);
    if (why)
        *why = reason;
    if (reason)
        return -VERTIGO_EINVAL;
    pv->count = list.count;
    for (unsigned int i = 0; i < VERTIGO_PV_COUNTERS_MAX; i++) {
        pv->modes[i] = i < list.count ? modes_of(&list.events[i]) : 0;
        pv->counts[i] = 0;
        pv->fired[i] = 0;
        pv->rdpmc_how[i] = 0;
    }
    pv->generation++;
    return list.count;
}

int64_t pmu_pv_read(const struct pmu_pv *pv, uint64_t index)
{
    if (index >= pv->count)
        return -VERTIGO_EINVAL;
    return (int64_t)(pv->counts[index] & (uint64_t)INT64_MAX);
}

bool pmu_pv_rdpmc(const struct pmu_pv *pv, uint32_t ecx, uint64_t *value)
{
    if (ecx < VERTIGO_PV_RDPMC)
        return false;
    int64_t n = pmu_pv_read(pv, ecx - VERTIGO_PV_RDPMC);
    if (n < 0)
        return false;
    *value = (uint64_t)n;
    return true;
}

/* ---- Overflow interrupts ---------------------------------------------------- */

const char *pmu_pv_vector_refusal(uint64_t vector)
{
    if (vector == 0 || vector == VERTIGO_PV_VECTOR_NMI)
        return NULL;
    if (vector > 255)
        return "not an interrupt vector (above 255)";
    if (vector < 32)
        return "an exception vector";
    return "fixed vectors are not delivered: only NMI (2)";
}

int64_t pmu_pv_set_vector(struct pmu_pv *pv, uint64_t vector, const char **why)
{
    const char *reason = pmu_pv_vector_refusal(vector);
    if (why)
        *why = reason;
    if (reason)
        return -VERTIGO_EINVAL;
    pv->vector = (uint32_t)vector;
    return 0;
}

/* The guest writes overflow_at at any time; one load of each value. */
static uint64_t overflow_at(const struct pmu_pv *pv, unsigned int i)
{
    return __atomic_load_n(&pv->page->overflow_at[i], __ATOMIC_RELAXED);
}

uint64_t pmu_pv_events_to_overflow(const struct pmu_pv *pv, unsigned int cpl)
{
    uint8_t mode = cpl ? PMU_PV_USER : PMU_PV_KERNEL;
    uint64_t nearest = UINT64_MAX;
    if (!pv->vector || !pv->page)
        return nearest;
    for (unsigned int i = 0; i < pv->count; i++) {
        uint64_t at = overflow_at(pv, i);
        if (!at || at == pv->fired[i] || !(pv->modes[i] & mode))
            continue;
        uint64_t n = at > pv->counts[i] ? at - pv->counts[i] : 1;
        nearest = n < nearest ? n : nearest;
    }
    return nearest;
}

uint32_t pmu_pv_find_overflows(struct pmu_pv *pv)
{
    uint32_t mask = 0;
    for (unsigned int i = 0; i < pv->count; i++) {
        uint64_t at = overflow_at(pv, i);
        if (at && at != pv->fired[i] && pv->counts[i] >= at) {
            pv->fired[i] = at;
            mask |= 1u << i;
        }
    }
    if (mask)
        pv->interrupts++;
    return mask;
}

bool pmu_pv_needs_modes(const struct pmu_pv *pv)
{
    for (unsigned int i = 0; i < pv->count; i++)
        if (pv->modes[i] != (PMU_PV_KERNEL | PMU_PV_USER))
            return true;
    return false;
}

/* The flags the page shows for counter i: its modes, and whether one TSC
 * tick is one of its events (every event the software backend counts,
 * where the TSC is the VCPU's own instruction clock: one VCPU). */
static uint32_t flags_of(const struct pmu_pv *pv, unsigned int i)
{
    uint32_t flags = pv->tsc_counts_events ? VERTIGO_PV_TICKS : 0;
    if (pv->modes[i] & PMU_PV_USER)
        flags |= VERTIGO_PV_USER;
    if (pv->modes[i] & PMU_PV_KERNEL)
        flags |= VERTIGO_PV_KERNEL;
    if (pv->modes[i] == (PMU_PV_KERNEL | PMU_PV_USER))
        flags |= VERTIGO_PV_ALL_MODES;
    return flags;
}

/* A reader on another VCPU must see seq odd before any field changes and
 * even only after all of them did. x86 keeps stores in program order, so
 * only the compiler must not move the field stores across these. */
static void seq_bump(struct pmu_pv *pv)
{
    pv->seq++;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&pv->page->seq, pv->seq, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* How user mode on this VCPU reads counter i with no exit (the page's
 * user_how): a counter that does not count user mode stands still there;
 * one whose events are TSC ticks and that counts every mode has counted
 * every tick since the entry (with the few instructions of Vertigo's
 * entry path after the entry_tsc pmu_pv_entering writes: the same in
 * every run). A counter of user mode only is read by an exit: its reads
 * must equal Vertigo's exact count, which has none of those entry
 * instructions. */
static uint32_t user_how_of(const struct pmu_pv *pv, unsigned int i)
{
    if (pv->rdpmc_how[i])
        return pv->rdpmc_how[i];
    if (!(pv->modes[i] & PMU_PV_USER))
        return VERTIGO_PV_READ_FIXED;
    if (pv->tsc_counts_events && pv->modes[i] & PMU_PV_KERNEL)
        return VERTIGO_PV_READ_TICKS;
    return VERTIGO_PV_READ_EXIT;
}

void pmu_pv_publish(struct pmu_pv *pv, uint64_t entry_tsc, unsigned int cpl)
{
    struct vertigo_pv_page *page = pv->page;
    if (!page)
        return;
    seq_bump(pv);
    page->magic = VERTIGO_PV_MAGIC;
    page->abi_version = VERTIGO_PV_ABI;
    page->count = pv->count;
    page->generation = pv->generation;
    page->entry_tsc = entry_tsc;
    page->entry_cpl = cpl;
    page->vcpu = pv->vcpu;
    pv->published = true;
    page->interrupts = pv->interrupts;
    for (unsigned int i = 0; i < VERTIGO_PV_COUNTERS_MAX; i++) {
        bool on = i < pv->count;
        page->counters[i] = (struct vertigo_pv_counter){
            .sum = on ? pv->counts[i] : 0, .flags = on ? flags_of(pv, i) : 0,
            .user_how = on ? user_how_of(pv, i) : VERTIGO_PV_READ_EXIT,
        };
    }
    seq_bump(pv);
}

void pmu_pv_set_page(struct pmu_pv *pv, struct vertigo_pv_page *page, uint32_t vcpu)
{
    pv->page = page;
    pv->vcpu = vcpu;
    if (page) {
        memset(page, 0, VERTIGO_PV_PAGE_BYTES);
        pv->seq = 0;
        pmu_pv_publish(pv, 0, 0);
    }
}
