/* The guest's virtual PMU on the hardware PMU's counters (see
 * pmu/hw/vpmu_hw.h). Register layouts: SDM Vol. 3B 20.2.1 (PERFEVTSELx),
 * 20.2.2 (fixed counters, FIXED_CTR_CTRL, GLOBAL_STATUS/OVF_CTRL), 20.2.6
 * (full-width writes). */
#include "pmu/hw/vpmu_hw.h"

#include "lib/msr.h"

#define COUNTER_MASK        ((1ull << VPMU_WIDTH) - 1)
#define FIXED_SHIFT         32
#define FIXED_FIELD_BITS    4
#define FIXED_FIELD_MASK    0xfull
#define LEGACY_WRITE_MASK   0xffffffffull
#define LEGACY_SIGN_BIT     (1ull << 31)
#define LOW_POSITIVE_MASK   (LEGACY_SIGN_BIT - 1)
#define SHADOW_UNKNOWN      (~0ull)

/* Architectural events a fixed counter's work can move to a GP counter
 * with (event select | unit mask << 8; table 20-1): fixed 0 instructions,
 * fixed 1 core cycles; fixed 2's reference cycles have no equal. */
static const uint64_t fixed_on_gp[VPMU_MAX_FIXED] = { 0x00c0, 0x003c, 0 };

bool vpmu_hw_init(struct vpmu_hw *h, struct pmu_hw *hw)
{
    *h = (struct vpmu_hw){ .hw = hw };
    return hw->gp_width_mask == COUNTER_MASK && hw->fixed_width_mask == COUNTER_MASK;
}

struct vpmu_config vpmu_hw_offer(const struct pmu_hw *hw)
{
    unsigned int fixed = 0;
    while (fixed < VPMU_MAX_FIXED && (hw->fixed_present & (1u << fixed)))
        fixed++;
    unsigned int gp = hw->gp_count < VPMU_MAX_GP ? hw->gp_count : VPMU_MAX_GP;
    uint32_t events = hw->desc.events_available & ((1u << VPMU_EV_COUNT) - 1);
    return (struct vpmu_config){ gp, fixed, events };
}

/* ---- MSR access, keeping the backend's record of the MSRs true ---- */

static void wr(struct vpmu_hw *h, uint32_t msr, uint64_t value, uint64_t *shadow)
{
    struct pmu_hw *hw = h->hw;
    hw->msr_writes++;
    bool ok = hw->msr.wrmsr(hw->msr.ctx, msr, value) == 0;
    if (!ok) {
        hw->msr_faults++;
        h->msr_faults++;
    }
    if (shadow)
        *shadow = ok ? value : SHADOW_UNKNOWN;
}

/* Writes value unless the backend's record says the MSR holds it: after
 * the exit that saved them, the guest's counters hold what was read back,
 * and a VCPU switch leaves event selects of the same programming alone. */
static void wr_elide(struct vpmu_hw *h, uint32_t msr, uint64_t value, uint64_t *shadow)
{
    if (*shadow == value) {
        h->hw->msr_writes_elided++;
        return;
    }
    wr(h, msr, value, shadow);
}

static uint64_t rd(struct vpmu_hw *h, uint32_t msr)
{
    struct pmu_hw *hw = h->hw;
    uint64_t value = 0;
    hw->msr_reads++;
    if (hw->msr.rdmsr(hw->msr.ctx, msr, &value) != 0) {
        hw->msr_faults++;
        h->msr_faults++;
        value = 0;
    }
    return value;
}

/* ---- Placing ---- */

static bool gp_counting(const struct vpmu *g, unsigned int k)
{
    return (g->evtsel[k] & VPMU_EVTSEL_EN) && (g->global_ctrl & (1ull << k));
}

static unsigned int fixed_field(const struct vpmu *g, unsigned int j)
{
    return (unsigned int)(g->fixed_ctrl >> (FIXED_FIELD_BITS * j)) & FIXED_FIELD_MASK;
}

static bool fixed_counting(const struct vpmu *g, unsigned int j)
{
    return (g->global_ctrl & (1ull << (FIXED_SHIFT + j))) &&
           (fixed_field(g, j) & (VPMU_FIXED_OS | VPMU_FIXED_USR));
}

/* The lowest free GP counter, taken (VPMU_HW_NONE = -1 when none is). */
static int free_gp(const struct pmu_hw *hw, uint64_t *taken)
{
    int k = pmu_hw_free_gp(hw, *taken);
    if (k >= 0)
        *taken |= 1ull << k;
    return k;
}

/* The guest's counters in order, GP first (they need GP counters), then
 * fixed ones, which take their own fixed counter or else a GP counter.
 * Returns how many count; h->at says where. */
static unsigned int place(struct vpmu_hw *h, const struct vpmu *g, uint64_t busy)
{
    uint64_t taken = busy;
    unsigned int counting = 0;
    for (unsigned int k = 0; k < VPMU_MAX_GP; k++) {
        bool on = k < g->config.gp_counters && gp_counting(g, k);
        h->at.gp[k] = on ? free_gp(h->hw, &taken) : VPMU_HW_NONE;
        counting += on;
        h->counters_unplaced += on && h->at.gp[k] == VPMU_HW_NONE;
    }
    for (unsigned int j = 0; j < VPMU_MAX_FIXED; j++) {
        int bit = VPMU_HW_NONE;
        uint64_t own = 1ull << (FIXED_SHIFT + j);
        bool on = j < g->config.fixed_counters && fixed_counting(g, j);
        if (on && (h->hw->fixed_present & (1u << j)) && !(taken & own)) {
            bit = (int)(FIXED_SHIFT + j);
            taken |= own;
        } else if (on && fixed_on_gp[j]) {
            bit = free_gp(h->hw, &taken);
        }
        h->at.fixed[j] = bit;
        counting += on;
        h->counters_unplaced += on && bit == VPMU_HW_NONE;
    }
    return counting;
}

/* ---- Loading ---- */

/* The event select a fixed counter's field turns into on a GP counter. */
static uint64_t fixed_as_evtsel(unsigned int j, unsigned int field)
{
    uint64_t s = fixed_on_gp[j] | VPMU_EVTSEL_EN;
    s |= (field & VPMU_FIXED_OS) ? VPMU_EVTSEL_OS : 0;
    s |= (field & VPMU_FIXED_USR) ? VPMU_EVTSEL_USR : 0;
    s |= (field & VPMU_FIXED_PMI) ? VPMU_EVTSEL_INT : 0;
    return s;
}

/* A GP counter without full-width writes takes bits 31:0 sign-extended
 * (SDM Vol. 3B 20.2.6): a value within 2^31 of its wrap is loaded as it
 * is, so its overflow happens at its exact point; any other is loaded as
 * its low 31 bits and read back with the difference added, and cannot wrap
 * in a run that counts fewer than 2^31 events. */
static uint64_t loadable(const struct pmu_hw *hw, uint64_t value)
{
    if (hw->full_width)
        return value;
    uint64_t low = value & LEGACY_WRITE_MASK;
    uint64_t extended = ((low & LEGACY_SIGN_BIT) ? low | ~LEGACY_WRITE_MASK : low) & COUNTER_MASK;
    return extended == value ? value : value & LOW_POSITIVE_MASK;
}

static void load_gp(struct vpmu_hw *h, unsigned int k, uint64_t evtsel, uint64_t value)
{
    struct pmu_hw *hw = h->hw;
    uint64_t start = loadable(hw, value);
    wr_elide(h, MSR_IA32_PERFEVTSEL0 + k, evtsel, &hw->shadow.evtsel[k]);
    if (hw->shadow.pmc[k] == start) {
        hw->msr_writes_elided++;
        return;
    }
    if (hw->full_width)
        wr(h, MSR_IA32_A_PMC0 + k, start, &hw->shadow.pmc[k]);
    else
        wr(h, MSR_IA32_PMC0 + k, start & LEGACY_WRITE_MASK, &hw->shadow.pmc[k]);
    hw->shadow.pmc[k] = hw->shadow.pmc[k] == SHADOW_UNKNOWN ? SHADOW_UNKNOWN : start;
}

static uint64_t load_fixed(struct vpmu_hw *h, const struct vpmu *g, unsigned int j,
                           uint64_t fixed_ctrl)
{
    struct pmu_hw *hw = h->hw;
    wr_elide(h, MSR_IA32_FIXED_CTR0 + j, g->fixed[j], &hw->shadow.fixed[j]);
    uint64_t shift = FIXED_FIELD_BITS * j;
    return (fixed_ctrl & ~(FIXED_FIELD_MASK << shift)) | ((uint64_t)fixed_field(g, j) << shift);
}

uint64_t vpmu_hw_load(struct vpmu_hw *h, const struct vpmu *g, uint64_t busy)
{
    struct pmu_hw *hw = h->hw;
    h->runs += place(h, g, busy) > 0;
    h->enable = 0;
    if (hw->shadow.fixed_ctrl == SHADOW_UNKNOWN)
        hw->shadow.fixed_ctrl = rd(h, MSR_IA32_FIXED_CTR_CTRL);
    uint64_t fixed_ctrl = hw->shadow.fixed_ctrl;
    for (unsigned int k = 0; k < VPMU_MAX_GP; k++) {
        if (h->at.gp[k] == VPMU_HW_NONE)
            continue;
        if (!vpmu_event_allowed(g->evtsel[k])) {
            h->events_denied++;     /* placed, never loaded: it does not count */
            continue;
        }
        load_gp(h, (unsigned int)h->at.gp[k], g->evtsel[k], g->pmc[k]);
        h->enable |= 1ull << h->at.gp[k];
    }
    for (unsigned int j = 0; j < VPMU_MAX_FIXED; j++) {
        int bit = h->at.fixed[j];
        if (bit == VPMU_HW_NONE)
            continue;
        if (bit >= FIXED_SHIFT)
            fixed_ctrl = load_fixed(h, g, j, fixed_ctrl);
        else
            load_gp(h, (unsigned int)bit, fixed_as_evtsel(j, fixed_field(g, j)), g->fixed[j]);
        h->enable |= 1ull << bit;
    }
    if (fixed_ctrl != hw->shadow.fixed_ctrl)
        wr(h, MSR_IA32_FIXED_CTR_CTRL, fixed_ctrl, &hw->shadow.fixed_ctrl);
    h->loaded = true;
    return h->enable;
}

/* ---- Saving ---- */

static uint64_t read_counter(struct vpmu_hw *h, int bit)
{
    struct pmu_hw *hw = h->hw;
    if (bit >= FIXED_SHIFT) {
        uint64_t v = rd(h, MSR_IA32_FIXED_CTR0 + (uint32_t)(bit - FIXED_SHIFT)) & COUNTER_MASK;
        hw->shadow.fixed[bit - FIXED_SHIFT] = v;
        return v;
    }
    uint64_t v = rd(h, MSR_IA32_PMC0 + (uint32_t)bit) & COUNTER_MASK;
    hw->shadow.pmc[bit] = v;
    return v;
}

/* The virtual counter's new value: what it was plus what the physical one
 * counted since it was loaded (loaded differs only for a legacy-loaded GP
 * counter far from its wrap); fewer than 2^48 events fit in one run, so a
 * smaller new value means it wrapped. Returns its status bit if so. */
static uint64_t take_back(struct vpmu_hw *h, int bit, uint64_t *counter, unsigned int status_bit)
{
    uint64_t old = *counter;
    uint64_t loaded = bit >= FIXED_SHIFT ? old : loadable(h->hw, old);
    uint64_t now = read_counter(h, bit);
    *counter = (old + ((now - loaded) & COUNTER_MASK)) & COUNTER_MASK;
    return *counter < old ? 1ull << status_bit : 0;
}

uint64_t vpmu_hw_save(struct vpmu_hw *h, struct vpmu *g)
{
    if (!h->loaded)
        return 0;
    h->loaded = false;
    uint64_t wrapped = 0;
    for (unsigned int k = 0; k < VPMU_MAX_GP; k++)
        if (h->at.gp[k] != VPMU_HW_NONE)
            wrapped |= take_back(h, h->at.gp[k], &g->pmc[k], k);
    for (unsigned int j = 0; j < VPMU_MAX_FIXED; j++)
        if (h->at.fixed[j] != VPMU_HW_NONE)
            wrapped |= take_back(h, h->at.fixed[j], &g->fixed[j], FIXED_SHIFT + j);
    uint64_t guest_status = h->enable ? rd(h, MSR_IA32_PERF_GLOBAL_STATUS) & h->enable : 0;
    if (guest_status)
        wr(h, MSR_IA32_PERF_GLOBAL_OVF_CTRL, guest_status, 0);
    if (wrapped)
        vpmu_overflowed(g, wrapped);
    return guest_status;
}
