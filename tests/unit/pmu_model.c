/* Register-level model of the Intel architectural PMU v2-v5 (see
 * tests/unit/pmu_model.h). Numbers from SDM Vol. 4 table 2-2 and Vol. 3B
 * 20.2.1-20.2.6; kept here on purpose rather than taken from pmu/. */
#include "tests/unit/pmu_model.h"

#include <string.h>

/* MSR addresses (SDM Vol. 4, table 2-2) */
enum {
    M_PMC0 = 0xc1, M_PERFEVTSEL0 = 0x186, M_DEBUGCTL = 0x1d9, M_FIXED_CTR0 = 0x309,
    M_PERF_CAPABILITIES = 0x345, M_FIXED_CTR_CTRL = 0x38d, M_GLOBAL_STATUS = 0x38e,
    M_GLOBAL_CTRL = 0x38f, M_GLOBAL_OVF_CTRL = 0x390 /* v4: STATUS_RESET */,
    M_GLOBAL_STATUS_SET = 0x391, M_GLOBAL_INUSE = 0x392, M_A_PMC0 = 0x4c1,
};

/* IA32_PERFEVTSELx (20.2.1.1) */
#define EVTSEL_EVENT(v)   ((uint8_t)(v))
#define EVTSEL_UMASK(v)   ((uint8_t)((v) >> 8))
#define EVTSEL_USR        (1ull << 16)
#define EVTSEL_OS         (1ull << 17)
#define EVTSEL_INT        (1ull << 20)
#define EVTSEL_ANY        (1ull << 21)
#define EVTSEL_EN         (1ull << 22)
#define EVTSEL_VALID_LOW  0xffffffffull     /* bits 63:32 reserved */
/* IA32_FIXED_CTR_CTRL, 4 bits per counter (20.2.2, 20.2.3) */
#define FX_OS 0x1u
#define FX_USR 0x2u
#define FX_ANY 0x4u
#define FX_PMI 0x8u
/* IA32_PERF_GLOBAL_STATUS (20.2.2, 20.2.4) */
#define ST_TOPA   (1ull << 55)
#define ST_LBR_FRZ (1ull << 58)
#define ST_CTR_FRZ (1ull << 59)
#define ST_ASCI   (1ull << 60)
#define ST_UNCORE (1ull << 61)
#define ST_OVFBUF (1ull << 62)
#define ST_COND   (1ull << 63)
/* IA32_DEBUGCTL (Vol. 3B 18.4.1, 20.2.4.1) */
#define DBG_FREEZE_LBRS   (1ull << 11)
#define DBG_FREEZE_PERFMON (1ull << 12)
#define DBG_VALID ((1ull << 0) | (1ull << 1) | (0x3full << 6) | DBG_FREEZE_PERFMON | (1ull << 14))
#define PERF_CAP_FW_WRITE (1ull << 13)
/* LVT performance-counter register (Vol. 3A 11.5.1) */
#define LVT_VECTOR        0xffu
#define LVT_MODE          (7u << PMU_MODEL_LVT_MODE_SHIFT)
#define LVT_MODE_NMI      (PMU_MODEL_LVT_MODE_NMI << PMU_MODEL_LVT_MODE_SHIFT)
#define LVT_MASK          PMU_MODEL_LVT_MASKED
#define LVT_WRITABLE      (LVT_VECTOR | LVT_MODE | LVT_MASK)

const struct pmu_model_event pmu_model_instructions = { 0xc0, 0x00, 0 };
const struct pmu_model_event pmu_model_cycles = { 0x3c, 0x00, 1 };
const struct pmu_model_event pmu_model_ref_cycles = { 0x3c, 0x01, 2 };
const struct pmu_model_event pmu_model_branches = { 0xc4, 0x00, -1 };
const struct pmu_model_event pmu_model_branch_misses = { 0xc5, 0x00, -1 };

static uint64_t mask_bits(unsigned int n)
{
    return n >= 64 ? ~0ull : (1ull << n) - 1;
}

static uint64_t gp_bits(const struct pmu_model *m)
{
    return mask_bits(m->config.gp_counters);
}

static uint64_t fixed_bits(const struct pmu_model *m)
{
    return (uint64_t)(m->config.fixed_mask & mask_bits(PMU_MODEL_MAX_FIXED)) << 32;
}

static bool any_thread_ok(const struct pmu_model *m)
{
    unsigned int v = m->config.version;
    return v >= 3 && !(v >= 5 && m->config.any_thread_deprecated);
}

static bool fixed_exists(const struct pmu_model *m, unsigned int j)
{
    return j < PMU_MODEL_MAX_FIXED && (m->config.fixed_mask & (1u << j));
}

static uint64_t fixed_ctrl_valid(const struct pmu_model *m)
{
    uint64_t per = FX_OS | FX_USR | FX_PMI | (any_thread_ok(m) ? FX_ANY : 0);
    uint64_t valid = 0;
    for (unsigned int j = 0; j < PMU_MODEL_MAX_FIXED; j++)
        if (fixed_exists(m, j))
            valid |= per << (4 * j);
    return valid;
}

/* Bits software may clear (OVF_CTRL / STATUS_RESET) or set (STATUS_SET). */
static uint64_t status_reset_valid(const struct pmu_model *m)
{
    uint64_t v = gp_bits(m) | fixed_bits(m) | ST_OVFBUF | ST_COND;
    if (m->config.version >= 4)
        v |= ST_TOPA | ST_LBR_FRZ | ST_CTR_FRZ | ST_ASCI | ST_UNCORE;
    return v;
}

static uint64_t status_set_valid(const struct pmu_model *m)
{
    return gp_bits(m) | fixed_bits(m) | ST_TOPA | ST_LBR_FRZ | ST_CTR_FRZ | ST_ASCI |
           ST_UNCORE | ST_OVFBUF;
}

static uint64_t inuse(const struct pmu_model *m)
{
    uint64_t v = 0;
    bool pmi = false;
    for (unsigned int k = 0; k < m->config.gp_counters; k++) {
        if (EVTSEL_EVENT(m->evtsel[k]))
            v |= 1ull << k;
        pmi |= (m->evtsel[k] & EVTSEL_INT) != 0;
    }
    for (unsigned int j = 0; j < PMU_MODEL_MAX_FIXED; j++) {
        uint64_t field = (m->fixed_ctrl >> (4 * j)) & 0xf;
        if (field & (FX_OS | FX_USR))
            v |= 1ull << (32 + j);
        pmi |= (field & FX_PMI) != 0;
    }
    return v | (pmi ? 1ull << 63 : 0);
}

void pmu_model_init(struct pmu_model *m, const struct pmu_model_config *config)
{
    memset(m, 0, sizeof(*m));
    m->config = *config;
    m->lvtpc = PMU_MODEL_LVT_RESET;
}

uint32_t pmu_model_lvtpc_read(void *self)
{
    const struct pmu_model *m = self;
    return m->lvtpc;
}

void pmu_model_lvtpc_write(void *self, uint32_t value)
{
    struct pmu_model *m = self;
    m->lvtpc = value & LVT_WRITABLE;
}

static int fault(struct pmu_model *m, uint32_t msr)
{
    m->faults++;
    m->last_fault_msr = msr;
    return -1;
}

/* Index of msr within [base, base+count), or -1. */
static int in_range(uint32_t msr, uint32_t base, unsigned int count)
{
    return msr >= base && msr < base + count ? (int)(msr - base) : -1;
}

/* RDPMC (SDM Vol. 2B RDPMC): ECX bit 30 selects the fixed counters, the
 * low bits the counter; any other index raises #GP. The counters hold
 * their width's bits only, which is what RDPMC returns. */
int pmu_model_rdpmc(struct pmu_model *m, uint32_t ecx, uint64_t *value)
{
    uint32_t index = ecx & ~(1u << 30);
    if ((ecx & (1u << 30)) && index < PMU_MODEL_MAX_FIXED && fixed_exists(m, index)) {
        *value = m->fixed[index];
        return 0;
    }
    if (!(ecx & (1u << 30)) && index < m->config.gp_counters) {
        *value = m->pmc[index];
        return 0;
    }
    m->faults++;
    return -1;
}

int pmu_model_rdmsr(void *self, uint32_t msr, uint64_t *value)
{
    struct pmu_model *m = self;
    unsigned int gp = m->config.gp_counters;
    int k;
    m->rdmsr_count++;
    if ((k = in_range(msr, M_PERFEVTSEL0, gp)) >= 0)
        *value = m->evtsel[k];
    else if ((k = in_range(msr, M_PMC0, gp)) >= 0)
        *value = m->pmc[k];
    else if ((k = in_range(msr, M_A_PMC0, gp)) >= 0 && m->config.full_width_writes)
        *value = m->pmc[k];
    else if ((k = in_range(msr, M_FIXED_CTR0, PMU_MODEL_MAX_FIXED)) >= 0 && fixed_exists(m, (unsigned int)k))
        *value = m->fixed[k];
    else if (msr == M_FIXED_CTR_CTRL)
        *value = m->fixed_ctrl;
    else if (msr == M_GLOBAL_CTRL)
        *value = m->global_ctrl;
    else if (msr == M_GLOBAL_STATUS)
        *value = m->global_status;
    else if (msr == M_GLOBAL_OVF_CTRL)
        *value = 0;
    else if (msr == M_GLOBAL_STATUS_SET && m->config.version >= 4)
        *value = 0;
    else if (msr == M_GLOBAL_INUSE && m->config.version >= 4)
        *value = inuse(m);
    else if (msr == M_PERF_CAPABILITIES)
        *value = m->config.full_width_writes ? PERF_CAP_FW_WRITE : 0;
    else if (msr == M_DEBUGCTL)
        *value = m->debugctl;
    else
        return fault(m, msr);
    return 0;
}

static int write_evtsel(struct pmu_model *m, unsigned int k, uint64_t v, uint32_t msr)
{
    if ((v & ~EVTSEL_VALID_LOW) || ((v & EVTSEL_ANY) && !any_thread_ok(m)))
        return fault(m, msr);
    m->evtsel[k] = v;
    return 0;
}

/* Legacy write (20.2.6): the counter takes EAX sign-extended; EDX is ignored. */
static int write_pmc_legacy(struct pmu_model *m, unsigned int k, uint64_t v)
{
    uint64_t low = v & 0xffffffffull;
    uint64_t ext = (low & 0x80000000ull) ? low | 0xffffffff00000000ull : low;
    m->pmc[k] = ext & mask_bits(m->config.gp_width);
    m->legacy_pmc_writes++;
    return 0;
}

static int write_pmc_full(struct pmu_model *m, unsigned int k, uint64_t v, uint32_t msr)
{
    if (!m->config.full_width_writes || (v & ~mask_bits(m->config.gp_width)))
        return fault(m, msr);
    m->pmc[k] = v;
    m->full_pmc_writes++;
    return 0;
}

static int write_checked(struct pmu_model *m, uint32_t msr, uint64_t v, uint64_t valid,
                         uint64_t *reg)
{
    if (v & ~valid)
        return fault(m, msr);
    *reg = v;
    return 0;
}

static int write_global(struct pmu_model *m, uint32_t msr, uint64_t v)
{
    switch (msr) {
    case M_GLOBAL_CTRL:
        return write_checked(m, msr, v, gp_bits(m) | fixed_bits(m), &m->global_ctrl);
    case M_GLOBAL_OVF_CTRL:
        if (v & ~status_reset_valid(m))
            return fault(m, msr);
        m->global_status &= ~v;
        return 0;
    case M_GLOBAL_STATUS_SET:
        if (m->config.version < 4 || (v & ~status_set_valid(m)))
            return fault(m, msr);
        m->global_status |= v;
        return 0;
    case M_FIXED_CTR_CTRL:
        return write_checked(m, msr, v, fixed_ctrl_valid(m), &m->fixed_ctrl);
    case M_DEBUGCTL:
        return write_checked(m, msr, v, DBG_VALID | DBG_FREEZE_LBRS, &m->debugctl);
    default:    /* GLOBAL_STATUS, INUSE, PERF_CAPABILITIES are read-only */
        return fault(m, msr);
    }
}

static int write_msr(struct pmu_model *m, uint32_t msr, uint64_t value)
{
    unsigned int gp = m->config.gp_counters;
    int k;
    m->wrmsr_count++;
    if ((k = in_range(msr, M_PERFEVTSEL0, gp)) >= 0)
        return write_evtsel(m, (unsigned int)k, value, msr);
    if ((k = in_range(msr, M_PMC0, gp)) >= 0)
        return write_pmc_legacy(m, (unsigned int)k, value);
    if ((k = in_range(msr, M_A_PMC0, gp)) >= 0)
        return write_pmc_full(m, (unsigned int)k, value, msr);
    if ((k = in_range(msr, M_FIXED_CTR0, PMU_MODEL_MAX_FIXED)) >= 0) {
        if (!fixed_exists(m, (unsigned int)k) || (value & ~mask_bits(m->config.fixed_width)))
            return fault(m, msr);
        m->fixed[k] = value;
        return 0;
    }
    return write_global(m, msr, value);
}

int pmu_model_wrmsr(void *self, uint32_t msr, uint64_t value)
{
    struct pmu_model *m = self;
    int r = write_msr(m, msr, value);
    if (r == 0 && m->after_wrmsr)
        m->after_wrmsr(m, msr, m->after_wrmsr_arg);
    return r;
}

bool pmu_model_frozen(const struct pmu_model *m)
{
    return m->config.version >= 4 && (m->global_status & ST_CTR_FRZ);
}

/* A counter the event advances right now: its register, width and PMI bit. */
struct live_counter {
    uint64_t *reg;
    uint64_t mask;
    uint64_t status_bit;
    bool pmi;
};

static bool mode_enabled(bool os, bool usr, enum pmu_model_mode mode)
{
    return mode == PMU_MODEL_KERNEL ? os : usr;
}

static unsigned int live_counters(struct pmu_model *m, const struct pmu_model_event *ev,
                                  enum pmu_model_mode mode, struct live_counter *out)
{
    unsigned int n = 0;
    for (unsigned int k = 0; k < m->config.gp_counters; k++) {
        uint64_t s = m->evtsel[k];
        if (!(s & EVTSEL_EN) || !(m->global_ctrl & (1ull << k)) ||
            EVTSEL_EVENT(s) != ev->event_select || EVTSEL_UMASK(s) != ev->umask ||
            !mode_enabled(s & EVTSEL_OS, s & EVTSEL_USR, mode))
            continue;
        out[n++] = (struct live_counter){ &m->pmc[k], mask_bits(m->config.gp_width),
                                          1ull << k, (s & EVTSEL_INT) != 0 };
    }
    int j = ev->fixed_index;
    if (j >= 0 && fixed_exists(m, (unsigned int)j) && (m->global_ctrl & (1ull << (32 + j)))) {
        uint64_t field = (m->fixed_ctrl >> (4 * j)) & 0xf;
        if (mode_enabled(field & FX_OS, field & FX_USR, mode))
            out[n++] = (struct live_counter){ &m->fixed[j], mask_bits(m->config.fixed_width),
                                              1ull << (32 + j), (field & FX_PMI) != 0 };
    }
    return n;
}

/* The local APIC takes the PMI through LVTPC: lost while masked, else
 * delivered and (Intel) masked until software clears the mask bit. */
static void deliver_pmi(struct pmu_model *m)
{
    if (m->lvtpc & LVT_MASK) {
        m->pmis_lost++;
        return;
    }
    if ((m->lvtpc & LVT_MODE) == LVT_MODE_NMI)
        m->pmi_nmis++;
    else
        m->pmi_vectors++;
    m->lvtpc |= LVT_MASK;
}

/* A PMI happened: freeze as DEBUGCTL asks (legacy: clear GLOBAL_CTRL,
 * 20.2.3; v4 streamlined: set CTR_Frz / LBR_Frz, 20.2.4.1). */
static void raise_pmi(struct pmu_model *m)
{
    m->pmis++;
    deliver_pmi(m);
    if (m->config.version >= 4) {
        if (m->debugctl & DBG_FREEZE_PERFMON)
            m->global_status |= ST_CTR_FRZ;
        if (m->debugctl & DBG_FREEZE_LBRS)
            m->global_status |= ST_LBR_FRZ;
    } else if (m->debugctl & DBG_FREEZE_PERFMON) {
        m->global_ctrl = 0;
    }
}

void pmu_model_count(struct pmu_model *m, const struct pmu_model_event *ev,
                     enum pmu_model_mode mode, uint64_t n)
{
    struct live_counter live[PMU_MODEL_MAX_GP + PMU_MODEL_MAX_FIXED];
    while (n > 0 && !pmu_model_frozen(m)) {
        unsigned int count = live_counters(m, ev, mode, live);
        if (count == 0)
            return;
        uint64_t step = n;  /* advance up to the first wrap */
        for (unsigned int i = 0; i < count; i++) {
            uint64_t to_wrap = live[i].mask - *live[i].reg + 1;
            if (to_wrap < step)
                step = to_wrap;
        }
        bool pmi = false;
        for (unsigned int i = 0; i < count; i++) {
            *live[i].reg = (*live[i].reg + step) & live[i].mask;
            if (*live[i].reg == 0) {
                m->global_status |= live[i].status_bit;
                pmi |= live[i].pmi;
            }
        }
        n -= step;
        if (pmi)
            raise_pmi(m);
    }
}
