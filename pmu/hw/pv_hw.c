/* A VCPU's paravirtual counters on the hardware PMU's counters (see
 * pmu/hw/pv_hw.h). Register layouts: SDM Vol. 3B 20.2.1 (PERFEVTSELx),
 * 20.2.2 (fixed counters, FIXED_CTR_CTRL), 20.2.6 (full-width writes);
 * RDPMC's ECX: Vol. 2B RDPMC (bit 30 selects the fixed counters). */
#include "pmu/hw/pv_hw.h"

#include <stddef.h>

#include "lib/msr.h"

#define FIXED_SHIFT         32
#define FIXED_FIELD_BITS    4
#define FIXED_FIELD_MASK    0xfull
#define FIXED_FIELD_OS      0x1u
#define FIXED_FIELD_USR     0x2u
#define EVTSEL_UMASK_SHIFT  8
#define EVTSEL_USR          (1ull << 16)
#define EVTSEL_OS           (1ull << 17)
#define EVTSEL_EN           (1ull << 22)
#define RDPMC_FIXED         (1u << 30)
#define SHADOW_UNKNOWN      (~0ull)

uint32_t pv_hw_rdpmc_ecx(int bit)
{
    return bit >= FIXED_SHIFT ? RDPMC_FIXED | (uint32_t)(bit - FIXED_SHIFT) : (uint32_t)bit;
}

void pv_hw_init(struct pv_hw *h, struct pmu_hw *hw)
{
    *h = (struct pv_hw){ .hw = hw };
    for (unsigned int i = 0; i < VERTIGO_PV_COUNTERS_MAX; i++)
        h->at[i] = PV_HW_NONE;
}

/* ---- MSR access, keeping the backend's record of the MSRs true ---- */

static uint64_t rd(struct pv_hw *h, uint32_t msr)
{
    uint64_t value = 0;
    pmu_hw_msr_read(h->hw, msr, &value);
    return value;
}

static void wr_elide(struct pv_hw *h, uint32_t msr, uint64_t value, uint64_t *shadow)
{
    pmu_hw_msr_write_elide(h->hw, msr, value, shadow);
}

/* A counter's value register: 0 is the same in legacy and full-width
 * writes, and only 0 is ever written here. */
static void zero_gp(struct pv_hw *h, unsigned int k)
{
    uint32_t msr = h->hw->full_width ? MSR_IA32_A_PMC0 + k : MSR_IA32_PMC0 + k;
    wr_elide(h, msr, 0, &h->hw->shadow.pmc[k]);
}

static void zero_fixed(struct pv_hw *h, unsigned int j)
{
    wr_elide(h, MSR_IA32_FIXED_CTR0 + j, 0, &h->hw->shadow.fixed[j]);
}

/* ---- Placing ---- */

/* Counter i's place outside taken: its fixed counter, else a GP one. */
static int place_one(const struct pv_hw *h, unsigned int i, uint64_t taken)
{
    int j = h->fixed_index[i];
    if (j >= 0 && (h->hw->fixed_present & (1u << j)) &&
        !(taken & (1ull << (FIXED_SHIFT + j))))
        return FIXED_SHIFT + j;
    return h->gp_ok[i] ? pmu_hw_free_gp(h->hw, taken) : PV_HW_NONE;   /* both -1 */
}

/* Places every counter (fixed-capable ones first take their fixed
 * counter, the order of the program otherwise); the index of the first
 * one without a place, or -1. */
static int place(struct pv_hw *h, uint64_t busy)
{
    uint64_t taken = busy;
    int missing = -1;
    for (unsigned int i = 0; i < h->count; i++) {
        h->at[i] = place_one(h, i, taken);
        if (h->at[i] == PV_HW_NONE) {
            missing = missing < 0 ? (int)i : missing;
            continue;
        }
        taken |= 1ull << h->at[i];
    }
    return missing;
}

/* ---- Programming ---- */

static void encode(struct pv_hw *h, unsigned int i, const struct pmu_event *ev)
{
    h->evtsel[i] = ev->event_select | ((uint64_t)ev->umask << EVTSEL_UMASK_SHIFT) |
                   (ev->user ? EVTSEL_USR : 0) | (ev->kernel ? EVTSEL_OS : 0) | EVTSEL_EN;
    h->fixed_field[i] = (uint8_t)((ev->user ? FIXED_FIELD_USR : 0) |
                                  (ev->kernel ? FIXED_FIELD_OS : 0));
    h->fixed_index[i] = ev->fixed_index;
    h->gp_ok[i] = ev->gp_ok;
}

int64_t pv_hw_program(struct pv_hw *h, struct pmu_pv *pv, const char *events,
                      const struct pmu_event_caps *caps, uint64_t busy, const char **why)
{
    struct pmu_event_list list = { 0 };
    struct pmu_pv trial = *pv;
    int64_t r = pmu_pv_program(&trial, events, caps, why);
    if (r < 0)
        return r;
    if (events[0] && pmu_event_list_parse(events, caps, &list, NULL) != PMU_EVERR_NONE)
        return -VERTIGO_EINVAL;     /* pmu_pv_program parsed the same text */
    struct pv_hw next = *h;
    next.count = list.count;
    for (unsigned int i = 0; i < list.count; i++)
        encode(&next, i, &list.events[i]);
    if (place(&next, busy) >= 0) {
        if (why)
            *why = "no hardware counter left free by Vertigo's session for the event";
        return -VERTIGO_EBUSY;
    }
    *pv = trial;
    *h = next;
    for (unsigned int i = 0; i < VERTIGO_PV_COUNTERS_MAX; i++)
        h->at[i] = PV_HW_NONE;
    return r;
}

/* ---- Loading ---- */

/* Loads counter i on GLOBAL_CTRL bit `bit`, starting from 0 (so RDPMC
 * shows the VCPU its own run's events only, and the page's sum stays its
 * count); returns the value it starts from: 0, or unknown (~0) if the
 * write faulted. */
static uint64_t load_one(struct pv_hw *h, unsigned int i, int bit, uint64_t *fixed_ctrl)
{
    struct pmu_hw *hw = h->hw;
    if (bit >= FIXED_SHIFT) {
        unsigned int j = (unsigned int)(bit - FIXED_SHIFT);
        uint64_t shift = FIXED_FIELD_BITS * j;
        *fixed_ctrl = (*fixed_ctrl & ~(FIXED_FIELD_MASK << shift)) |
                      ((uint64_t)h->fixed_field[i] << shift);
        zero_fixed(h, j);
        return hw->shadow.fixed[j];
    }
    unsigned int k = (unsigned int)bit;
    wr_elide(h, MSR_IA32_PERFEVTSEL0 + k, h->evtsel[i], &hw->shadow.evtsel[k]);
    zero_gp(h, k);
    return hw->shadow.pmc[k];
}

/* A pass-through run: every physical counter that is not one of ours
 * holds 0 (it does not count: the entry enables only ours). */
static void clear_others(struct pv_hw *h)
{
    struct pmu_hw *hw = h->hw;
    for (unsigned int k = 0; k < hw->gp_count; k++)
        if (!(h->enable & (1ull << k)) && hw->shadow.pmc[k] != 0) {
            zero_gp(h, k);
            h->cleared++;
        }
    for (unsigned int j = 0; j < PMU_MAX_FIXED; j++)
        if ((hw->fixed_present & (1u << j)) && !(h->enable & (1ull << (FIXED_SHIFT + j))) &&
            hw->shadow.fixed[j] != 0) {
            zero_fixed(h, j);
            h->cleared++;
        }
}

/* A counter whose zeroing faulted has an unknown value: no RDPMC read. */
static bool all_known(const struct pv_hw *h)
{
    for (unsigned int i = 0; i < h->count; i++)
        if (h->at[i] != PV_HW_NONE && h->start[i] == SHADOW_UNKNOWN)
            return false;
    return true;
}

uint64_t pv_hw_load(struct pv_hw *h, struct pmu_pv *pv, uint64_t busy, bool passthrough_ok)
{
    struct pmu_hw *hw = h->hw;
    h->enable = 0;
    h->passthrough = false;
    if (!h->count)
        return 0;
    h->runs++;
    place(h, busy);
    if (hw->shadow.fixed_ctrl == SHADOW_UNKNOWN)
        hw->shadow.fixed_ctrl = rd(h, MSR_IA32_FIXED_CTR_CTRL);
    uint64_t fixed_ctrl = hw->shadow.fixed_ctrl;
    for (unsigned int i = 0; i < h->count; i++) {
        if (h->at[i] == PV_HW_NONE) {
            h->counters_unplaced++;
            continue;
        }
        h->start[i] = load_one(h, i, h->at[i], &fixed_ctrl);
        h->enable |= 1ull << h->at[i];
    }
    wr_elide(h, MSR_IA32_FIXED_CTR_CTRL, fixed_ctrl, &hw->shadow.fixed_ctrl);
    if (passthrough_ok && busy == 0) {
        clear_others(h);
        h->passthrough = all_known(h);
    }
    for (unsigned int i = 0; i < VERTIGO_PV_COUNTERS_MAX; i++) {
        bool rdpmc = h->passthrough && i < h->count && h->at[i] != PV_HW_NONE;
        pv->rdpmc_how[i] = rdpmc ? VERTIGO_PV_READ_RDPMC | pv_hw_rdpmc_ecx(h->at[i]) : 0;
    }
    h->loaded = true;
    return h->enable;
}

/* ---- Saving ---- */

static uint64_t read_counter(struct pv_hw *h, int bit)
{
    struct pmu_hw *hw = h->hw;
    if (bit >= FIXED_SHIFT) {
        unsigned int j = (unsigned int)(bit - FIXED_SHIFT);
        uint64_t v = rd(h, MSR_IA32_FIXED_CTR0 + j) & hw->fixed_width_mask;
        hw->shadow.fixed[j] = v;
        return v;
    }
    uint64_t v = rd(h, MSR_IA32_PMC0 + (uint32_t)bit) & hw->gp_width_mask;
    hw->shadow.pmc[bit] = v;
    return v;
}

uint64_t pv_hw_save(struct pv_hw *h, struct pmu_pv *pv)
{
    if (!h->loaded)
        return 0;
    h->loaded = false;
    for (unsigned int i = 0; i < h->count && i < pv->count; i++) {
        int bit = h->at[i];
        if (bit == PV_HW_NONE)
            continue;
        uint64_t mask = bit >= FIXED_SHIFT ? h->hw->fixed_width_mask : h->hw->gp_width_mask;
        uint64_t now = read_counter(h, bit);
        if (h->start[i] != SHADOW_UNKNOWN)
            pv->counts[i] += (now - h->start[i]) & mask;
    }
    return h->enable;
}
