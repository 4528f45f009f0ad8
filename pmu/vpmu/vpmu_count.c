/* The virtual PMU's counting (see pmu/vpmu/vpmu.h): which counters an event
 * advances, exact overflow at the counter width, GLOBAL_STATUS, and the
 * PMI delivered through the guest's LVTPC as its local APIC would. */
#include "pmu/vpmu/vpmu.h"

#define COUNTER_MASK      ((1ull << VPMU_WIDTH) - 1)

/* Event select and unit mask of each architectural event, and the fixed
 * counter that counts it (-1: none) (SDM Vol. 3B table 20-1, 20.2.2). */
static const struct {
    uint8_t select, umask;
    int8_t fixed;
} arch_events[VPMU_EV_COUNT] = {
    [VPMU_EV_CYCLES] = { 0x3c, 0x00, 1 },
    [VPMU_EV_INSTRUCTIONS] = { 0xc0, 0x00, 0 },
    [VPMU_EV_REF_CYCLES] = { 0x3c, 0x01, 2 },
    [VPMU_EV_LLC_REFERENCES] = { 0x2e, 0x4f, -1 },
    [VPMU_EV_LLC_MISSES] = { 0x2e, 0x41, -1 },
    [VPMU_EV_BRANCHES] = { 0xc4, 0x00, -1 },
    [VPMU_EV_BRANCH_MISSES] = { 0xc5, 0x00, -1 },
};

static uint64_t *counter_reg(struct vpmu *p, unsigned int bit)
{
    return bit >= 32 ? &p->fixed[bit - 32] : &p->pmc[bit];
}

static uint64_t counter_value(const struct vpmu *p, unsigned int bit)
{
    return bit >= 32 ? p->fixed[bit - 32] : p->pmc[bit];
}

static bool counts_in(bool os, bool usr, enum vpmu_mode mode)
{
    return mode == VPMU_KERNEL ? os : usr;
}

/* The counter mask, its inversion and edge detection (SDM Vol. 3B
 * 20.2.1.1): a counter with CMASK c counts the cycles in which the event
 * happened at least c times (fewer than c with INV). Every event the
 * backend counts happens at most once a cycle (one instruction retires
 * per tick, and a cycle or reference cycle is one tick), so CMASK 1
 * counts as without a mask, CMASK 2 or more counts nothing (and with INV
 * counts every occurrence); edge detection, which counts the condition's
 * transitions, is not modelled: such a counter counts nothing. */
static bool passes_counter_mask(uint64_t s)
{
    unsigned int cmask = (unsigned int)(s >> VPMU_EVTSEL_CMASK_SHIFT) & 0xffu;
    if (s & VPMU_EVTSEL_EDGE)
        return false;
    if (cmask == 0)
        return true;
    return (cmask <= 1) != ((s & VPMU_EVTSEL_INV) != 0);
}

static bool gp_counts(const struct vpmu *p, unsigned int k, enum vpmu_arch_event ev,
                      enum vpmu_mode mode)
{
    uint64_t s = p->evtsel[k];
    return (s & VPMU_EVTSEL_EN) && (p->global_ctrl & (1ull << k)) &&
           (uint8_t)s == arch_events[ev].select && (uint8_t)(s >> 8) == arch_events[ev].umask &&
           counts_in(s & VPMU_EVTSEL_OS, s & VPMU_EVTSEL_USR, mode) && passes_counter_mask(s);
}

static unsigned int fixed_field(const struct vpmu *p, unsigned int j)
{
    return (unsigned int)(p->fixed_ctrl >> (4 * j)) & 0xfu;
}

/* The counters ev advances in mode; none for an event the backend cannot
 * count (the guest was told it is unavailable). */
static unsigned int live_counters(const struct vpmu *p, enum vpmu_arch_event ev,
                                  enum vpmu_mode mode, struct vpmu_live *out)
{
    unsigned int n = 0;
    if (ev >= VPMU_EV_COUNT || !(p->config.available & (1u << ev)))
        return 0;
    for (unsigned int k = 0; k < p->config.gp_counters; k++)
        if (gp_counts(p, k, ev, mode))
            out[n++] = (struct vpmu_live){ (uint8_t)k, (p->evtsel[k] & VPMU_EVTSEL_INT) != 0 };
    int j = arch_events[ev].fixed;
    if (j >= 0 && (unsigned int)j < p->config.fixed_counters &&
        (p->global_ctrl & (1ull << (32 + j)))) {
        unsigned int field = fixed_field(p, (unsigned int)j);
        if (counts_in(field & VPMU_FIXED_OS, field & VPMU_FIXED_USR, mode))
            out[n++] = (struct vpmu_live){ (uint8_t)(32 + j), (field & VPMU_FIXED_PMI) != 0 };
    }
    return n;
}

/* The local APIC takes a PMI through LVTPC (SDM Vol. 3A 11.5.1): lost
 * while masked; else delivered by its mode, and the mask bit is set, so
 * the guest's handler must unmask it for the next one. */
static void deliver_pmi(struct vpmu *p)
{
    if (p->lvtpc & VPMU_LVT_MASKED) {
        p->pmis_masked++;
        return;
    }
    if ((p->lvtpc & VPMU_LVT_MODE_MASK) == VPMU_LVT_MODE_NMI)
        p->nmis_pending++;
    else
        p->vectors_pending++;
    p->pmis_delivered++;
    p->lvtpc |= VPMU_LVT_MASKED;
}

/* The usual case: no live counter wraps within n events (a run ends at
 * the wrap of a counter that raises a PMI), so each adds n; false, with
 * nothing added, if one would wrap. */
static bool advance_short_of_wraps(struct vpmu *p, const struct vpmu_live *live,
                                   unsigned int count, uint64_t n)
{
    for (unsigned int i = 0; i < count; i++)
        if (n > COUNTER_MASK - counter_value(p, live[i].bit))
            return false;
    for (unsigned int i = 0; i < count; i++)
        *counter_reg(p, live[i].bit) += n;
    return true;
}

/* The live counters advance by n, each wrap seen: a counter that wraps
 * sets its GLOBAL_STATUS bit, and the wraps of one step (counters that
 * wrap at the same event) raise one PMI. */
static void advance(struct vpmu *p, const struct vpmu_live *live, unsigned int count, uint64_t n)
{
    if (advance_short_of_wraps(p, live, count, n))
        return;
    while (n > 0 && count > 0) {
        uint64_t step = n;      /* up to the first wrap, so each is seen */
        for (unsigned int i = 0; i < count; i++) {
            uint64_t to_wrap = COUNTER_MASK - counter_value(p, live[i].bit) + 1;
            step = to_wrap < step ? to_wrap : step;
        }
        bool pmi = false;
        for (unsigned int i = 0; i < count; i++) {
            uint64_t *reg = counter_reg(p, live[i].bit);
            *reg = (*reg + step) & COUNTER_MASK;
            if (*reg == 0) {
                p->global_status |= 1ull << live[i].bit;
                pmi |= live[i].pmi;
            }
        }
        n -= step;
        if (pmi)
            deliver_pmi(p);
    }
}

void vpmu_count(struct vpmu *p, enum vpmu_arch_event ev, enum vpmu_mode mode, uint64_t n)
{
    struct vpmu_live live[VPMU_LIVE_MAX];
    advance(p, live, live_counters(p, ev, mode, live), n);
}

/* The architectural event of a GP counter's select and unit mask
 * (VPMU_EV_COUNT: none of them), and each fixed counter's. */
static unsigned int gp_event(uint64_t evtsel)
{
    for (unsigned int ev = 0; ev < VPMU_EV_COUNT; ev++)
        if ((uint8_t)evtsel == arch_events[ev].select &&
            (uint8_t)(evtsel >> 8) == arch_events[ev].umask)
            return ev;
    return VPMU_EV_COUNT;
}

static const uint8_t fixed_events[VPMU_MAX_FIXED] = {
    VPMU_EV_INSTRUCTIONS, VPMU_EV_CYCLES, VPMU_EV_REF_CYCLES,
};

/* A counter of bit `bit` counting in kernel mode (os), user mode (usr)
 * or both: one mode only puts its bit in one_mode_bits; one that counts
 * an available event (counts) and some mode joins the programmed list. */
static void add_programmed(struct vpmu *p, unsigned int bit, bool os, bool usr, bool counts,
                           bool pmi)
{
    if (os != usr)
        p->one_mode_bits |= 1ull << bit;
    if (!counts || !(os || usr))
        return;
    uint8_t modes = os && usr ? VPMU_BOTH_MODES : os ? VPMU_ONLY_KERNEL : VPMU_ONLY_USER;
    p->programmed[p->programmed_count++] = (struct vpmu_programmed){ (uint8_t)bit, pmi, modes };
}

/* A GP counter: enabled in its select, counting an available event. */
static void derive_gp(struct vpmu *p, unsigned int k)
{
    uint64_t s = p->evtsel[k];
    if (!(s & VPMU_EVTSEL_EN))
        return;
    unsigned int ev = gp_event(s);
    bool counts = passes_counter_mask(s) && ev < VPMU_EV_COUNT &&
                  (p->config.available & (1u << ev));
    add_programmed(p, k, s & VPMU_EVTSEL_OS, s & VPMU_EVTSEL_USR, counts,
                   (s & VPMU_EVTSEL_INT) != 0);
}

static void derive_fixed(struct vpmu *p, unsigned int j)
{
    unsigned int field = fixed_field(p, j);
    add_programmed(p, 32 + j, field & VPMU_FIXED_OS, field & VPMU_FIXED_USR,
                   (p->config.available & (1u << fixed_events[j])) != 0,
                   (field & VPMU_FIXED_PMI) != 0);
}

/* Every counter as if GLOBAL_CTRL enabled it, in the order of their bits,
 * then GLOBAL_CTRL's filter. */
void vpmu_derive(struct vpmu *p)
{
    p->programmed_count = 0;
    p->one_mode_bits = 0;
    for (unsigned int k = 0; k < p->config.gp_counters; k++)
        derive_gp(p, k);
    for (unsigned int j = 0; j < p->config.fixed_counters; j++)
        derive_fixed(p, j);
    p->memo_valid = false;      /* a new programming: GLOBAL_CTRL's values enable anew */
    vpmu_derive_enabled(p);
}

/* The programmed counters GLOBAL_CTRL enables (Linux sets every counter's
 * bit and programs one or two; none while its PMI handler runs): each
 * mode's live set (the counters an
 * event the backend counts advances in that mode: live_counters, for all
 * of them), those that raise a PMI with their modes, and whether a counter
 * counts one mode only. */
static void derive_enabled_from_programmed(struct vpmu *p)
{
    struct vpmu_enabled *e = &p->enabled;
    unsigned int nk = 0, nu = 0, np = 0;
    for (unsigned int i = 0; i < p->programmed_count; i++) {
        struct vpmu_programmed c = p->programmed[i];
        if (!(p->global_ctrl & (1ull << c.bit)))
            continue;
        struct vpmu_live live = { c.bit, c.pmi };
        if (c.modes != VPMU_ONLY_USER)
            e->live[VPMU_KERNEL][nk++] = live;
        if (c.modes != VPMU_ONLY_KERNEL)
            e->live[VPMU_USER][nu++] = live;
        if (c.pmi)
            e->pmi[np++] = (struct vpmu_pmi_counter){ c.bit, c.modes };
    }
    e->live_count[VPMU_KERNEL] = (uint8_t)nk;
    e->live_count[VPMU_USER] = (uint8_t)nu;
    e->pmi_count = (uint8_t)np;
    e->one_mode = (p->one_mode_bits & p->global_ctrl) != 0;
}

/* GLOBAL_CTRL 0 (Linux's PMI handler and tick, before they set it back)
 * enables nothing; a value it held since the last programming enables
 * what it did then (p->memo). */
void vpmu_derive_enabled(struct vpmu *p)
{
    if (p->global_ctrl == 0) {
        p->enabled.live_count[VPMU_KERNEL] = p->enabled.live_count[VPMU_USER] = 0;
        p->enabled.pmi_count = 0;
        p->enabled.one_mode = false;
        return;
    }
    if (p->memo_valid && p->memo_ctrl == p->global_ctrl) {
        p->enabled = p->memo;
        return;
    }
    derive_enabled_from_programmed(p);
    p->memo = p->enabled;
    p->memo_ctrl = p->global_ctrl;
    p->memo_valid = true;
}

void vpmu_count_every_event(struct vpmu *p, enum vpmu_mode mode, uint64_t n)
{
    const struct vpmu_enabled *e = &p->enabled;
    if (e->live_count[mode])    /* none while a PMI handler has GLOBAL_CTRL cleared */
        advance(p, e->live[mode], e->live_count[mode], n);
}

/* Whether the counter of GLOBAL_STATUS bit `bit` raises a PMI when it
 * wraps (its interrupt bit). */
static bool interrupts(const struct vpmu *p, unsigned int bit)
{
    if (bit >= 32)
        return (fixed_field(p, bit - 32) & VPMU_FIXED_PMI) != 0;
    return (p->evtsel[bit] & VPMU_EVTSEL_INT) != 0;
}

void vpmu_overflowed(struct vpmu *p, uint64_t status_bits)
{
    bool pmi = false;
    for (unsigned int bit = 0; bit < 32 + p->config.fixed_counters; bit++) {
        bool exists = bit < p->config.gp_counters || bit >= 32;
        if (exists && (status_bits & (1ull << bit))) {
            p->global_status |= 1ull << bit;
            pmi |= interrupts(p, bit);
        }
    }
    if (pmi)
        deliver_pmi(p);
}

uint64_t vpmu_events_to_pmi(const struct vpmu *p, enum vpmu_arch_event ev, enum vpmu_mode mode)
{
    struct vpmu_live live[VPMU_LIVE_MAX];
    uint64_t nearest = UINT64_MAX;
    unsigned int count = live_counters(p, ev, mode, live);
    for (unsigned int i = 0; i < count; i++) {
        uint64_t to_wrap = COUNTER_MASK - counter_value(p, live[i].bit) + 1;
        if (live[i].pmi && to_wrap < nearest)
            nearest = to_wrap;
    }
    return nearest;
}

void vpmu_pmi_budget(const struct vpmu *p, uint64_t budget[VPMU_MODE_SETS])
{
    budget[VPMU_ONLY_USER] = budget[VPMU_ONLY_KERNEL] = budget[VPMU_BOTH_MODES] = UINT64_MAX;
    const struct vpmu_enabled *e = &p->enabled;
    for (unsigned int i = 0; i < e->pmi_count; i++) {
        uint64_t to_wrap = COUNTER_MASK - counter_value(p, e->pmi[i].bit) + 1;
        uint64_t *b = &budget[e->pmi[i].modes];
        *b = to_wrap < *b ? to_wrap : *b;
    }
}

bool vpmu_counts_one_mode(const struct vpmu *p)
{
    return p->enabled.one_mode;
}

bool vpmu_event_allowed(uint64_t evtsel)
{
    for (unsigned int ev = 0; ev < VPMU_EV_COUNT; ev++)
        if ((uint8_t)evtsel == arch_events[ev].select &&
            (uint8_t)(evtsel >> 8) == arch_events[ev].umask)
            return true;
    return false;
}

bool vpmu_active(const struct vpmu *p)
{
    if (!p->global_ctrl)
        return false;
    for (unsigned int k = 0; k < p->config.gp_counters; k++)
        if ((p->evtsel[k] & VPMU_EVTSEL_EN) && (p->global_ctrl & (1ull << k)))
            return true;
    for (unsigned int j = 0; j < p->config.fixed_counters; j++)
        if ((p->global_ctrl & (1ull << (32 + j))) && (fixed_field(p, j) & (VPMU_FIXED_OS | VPMU_FIXED_USR)))
            return true;
    return false;
}
