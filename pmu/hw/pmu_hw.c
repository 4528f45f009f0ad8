/* Hardware PMU backend for the Intel architectural PMU v2-v5 (see
 * pmu/hw/pmu_hw.h). References: SDM Vol. 3B 20.2.1 (PERFEVTSELx), 20.2.2
 * (fixed counters, GLOBAL_CTRL/STATUS/OVF_CTRL), 20.2.4 (v4: STATUS_RESET,
 * streamlined freeze), 20.2.5 (v5 fixed-counter bitmap), 20.2.6 (full-width
 * writes); Vol. 3C 25.7.1/25.8.1 (VM-exit/entry "load IA32_PERF_GLOBAL_CTRL");
 * Vol. 3A 11.5.1 (LVT performance-counter register, the PMI's delivery). */
#include "pmu/hw/pmu_hw.h"

#include "lib/mem.h"
#include "lib/msr.h"

#define GLOBAL_FIXED_SHIFT      32          /* fixed-counter bits in GLOBAL_* */
#define STATUS_LBR_FRZ          (1ull << 58)    /* v4+ */
#define STATUS_CTR_FRZ          (1ull << 59)    /* v4+ */
#define FIXED_CTRL_BITS         4           /* per counter in FIXED_CTR_CTRL */
#define FIXED_CTRL_OS           0x1ull
#define FIXED_CTRL_USR          0x2ull
#define FIXED_CTRL_PMI          0x8ull
#define EVTSEL_UMASK_SHIFT      8
#define LEGACY_WRITE_MASK       0xffffffffull
#define LEGACY_SIGN_BIT         (1ull << 31)
#define LEGACY_POSITIVE_MASK    (LEGACY_SIGN_BIT - 1)
#define MAX_COUNTER_WIDTH       63
#define STREAMLINED_FREEZE_VERSION 4
#define MIN_VERSION             2
#define MAX_VERSION             5
#define SHADOW_UNKNOWN          (~0ull)     /* no MSR holds all ones here */

/* ---- MSR access with counting and elision ---- */

static int hw_rd(struct pmu_hw *hw, uint32_t msr, uint64_t *v)
{
    hw->msr_reads++;
    if (hw->msr.rdmsr(hw->msr.ctx, msr, v) == 0)
        return 0;
    hw->msr_faults++;
    *v = 0;
    return -1;
}

static int hw_wr(struct pmu_hw *hw, uint32_t msr, uint64_t v)
{
    hw->msr_writes++;
    if (hw->msr.wrmsr(hw->msr.ctx, msr, v) == 0)
        return 0;
    hw->msr_faults++;
    return -1;
}

/* Writes v unless *shadow says the MSR holds it already. */
static int hw_wr_elide(struct pmu_hw *hw, uint32_t msr, uint64_t v, uint64_t *shadow)
{
    if (*shadow == v) {
        hw->msr_writes_elided++;
        return 0;
    }
    if (hw_wr(hw, msr, v) < 0) {
        *shadow = SHADOW_UNKNOWN;
        return -1;
    }
    *shadow = v;
    return 0;
}

int pmu_hw_msr_read(struct pmu_hw *hw, uint32_t msr, uint64_t *v)
{
    return hw_rd(hw, msr, v);
}

int pmu_hw_msr_write_elide(struct pmu_hw *hw, uint32_t msr, uint64_t v, uint64_t *shadow)
{
    return hw_wr_elide(hw, msr, v, shadow);
}

int pmu_hw_free_gp(const struct pmu_hw *hw, uint64_t taken)
{
    for (unsigned int k = 0; k < hw->gp_count; k++)
        if (!(taken & (1ull << k)))
            return (int)k;
    return -1;
}

/* ---- counters ---- */

static uint64_t width_mask(unsigned int bits)
{
    return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}

static uint64_t counter_mask(const struct pmu_hw *hw, const struct pmu_counter *c)
{
    return c->event.slot == PMU_SLOT_FIXED ? hw->fixed_width_mask : hw->gp_width_mask;
}

static uint32_t counter_read_msr(const struct pmu_counter *c)
{
    return c->event.slot == PMU_SLOT_FIXED ? MSR_IA32_FIXED_CTR0 + c->event.slot_index
                                           : MSR_IA32_PMC0 + c->event.slot_index;
}

static uint64_t *counter_shadow(struct pmu_hw *hw, const struct pmu_counter *c)
{
    return c->event.slot == PMU_SLOT_FIXED ? &hw->shadow.fixed[c->event.slot_index]
                                           : &hw->shadow.pmc[c->event.slot_index];
}

/* Value a legacy write of v leaves in a GP counter: EAX sign-extended. */
static uint64_t legacy_result(const struct pmu_hw *hw, uint64_t v)
{
    uint64_t low = v & LEGACY_WRITE_MASK;
    uint64_t extended = (low & LEGACY_SIGN_BIT) ? (low | ~LEGACY_WRITE_MASK) : low;
    return extended & hw->gp_width_mask;
}

/* Writes raw counter value v (already masked to the width). Fixed counters
 * and full-width GP writes take all bits; legacy GP writes take EAX only,
 * sign-extended, so the caller must pass a representable value. */
static int counter_write(struct pmu_hw *hw, const struct pmu_counter *c, uint64_t v)
{
    uint64_t *shadow = counter_shadow(hw, c);
    if (c->event.slot == PMU_SLOT_FIXED)
        return hw_wr_elide(hw, MSR_IA32_FIXED_CTR0 + c->event.slot_index, v, shadow);
    if (hw->full_width)
        return hw_wr_elide(hw, MSR_IA32_A_PMC0 + c->event.slot_index, v, shadow);
    if (*shadow == v) {
        hw->msr_writes_elided++;
        return 0;
    }
    int r = hw_wr(hw, MSR_IA32_PMC0 + c->event.slot_index, v & LEGACY_WRITE_MASK);
    *shadow = r < 0 ? SHADOW_UNKNOWN : legacy_result(hw, v);
    return r;
}

/* Writes a counter of a loaded context: it has run since the shadow was
 * taken, so the shadow proves nothing and the write is never elided. */
static int counter_write_live(struct pmu_hw *hw, const struct pmu_counter *c, uint64_t v)
{
    *counter_shadow(hw, c) = SHADOW_UNKNOWN;
    return counter_write(hw, c, v);
}

static uint64_t counter_count(const struct pmu_counter *c, uint64_t raw, uint64_t mask)
{
    return c->accum + ((raw - c->start) & mask);
}

/* The counter wrapped past zero and now holds raw_now (events since the
 * wrap). Sampling counters are re-armed with -period and report the
 * overflow; counting-only counters just keep going from zero. */
static int counter_wrapped(struct pmu_hw *hw, struct pmu_ctx *ctx, unsigned int i,
                           uint64_t raw_now)
{
    struct pmu_counter *c = &ctx->counters[i];
    uint64_t mask = counter_mask(hw, c);
    uint64_t to_wrap = mask - c->start + 1;
    if (!c->period) {
        c->accum += to_wrap;
        c->start = 0;
        c->raw = raw_now;
        return 0;
    }
    c->accum += to_wrap + raw_now;
    c->sampled_period = to_wrap;            /* armed at -period: the period it ended */
    c->start = c->raw = (0 - c->period) & mask;
    pmu_ctx_note_overflow(ctx, i);
    return ctx->loaded ? counter_write_live(hw, c, c->start) : 0;
}

/* ---- programming values ---- */

/* An event on a counter of this backend. Only hardware events placed on
 * this backend's counters have a slot (GP or fixed): software events
 * have none, and neither has a hardware event counted elsewhere (an
 * interval multiplexing session's, pmu/hw/pmu_mux_hw.h: no MSR of it, its
 * count is accum). One compare: every loop over a context asks. */
static bool is_hw_counter(const struct pmu_counter *c)
{
    return c->event.slot != PMU_SLOT_NONE;
}

static uint64_t status_bit(const struct pmu_counter *c)
{
    unsigned int shift = c->event.slot == PMU_SLOT_FIXED ? GLOBAL_FIXED_SHIFT : 0;
    return 1ull << (shift + c->event.slot_index);
}

uint64_t pmu_hw_owned_mask(const struct pmu_ctx *ctx)
{
    uint64_t mask = 0;
    for (unsigned int i = 0; i < ctx->count; i++)
        if (is_hw_counter(&ctx->counters[i]))
            mask |= status_bit(&ctx->counters[i]);
    return mask;
}

uint64_t pmu_hw_guest_enable_mask(const struct pmu_ctx *ctx)
{
    uint64_t mask = 0;
    for (unsigned int i = 0; i < ctx->count; i++) {
        const struct pmu_counter *c = &ctx->counters[i];
        if (is_hw_counter(c) && pmu_event_counts_guest(&c->event))
            mask |= status_bit(c);
    }
    return mask;
}

uint64_t pmu_hw_host_enable_mask(const struct pmu_ctx *ctx)
{
    uint64_t mask = 0;
    for (unsigned int i = 0; i < ctx->count; i++) {
        const struct pmu_counter *c = &ctx->counters[i];
        if (is_hw_counter(c) && c->event.hypervisor)
            mask |= status_bit(c);
    }
    return mask;
}

/* Vertigo runs at CPL 0: a counter that counts it (:h) needs the OS bit;
 * GLOBAL_CTRL, switched at VM entry and exit, keeps it from counting the
 * guest kernel unless it asked for :k too. */
static bool counts_cpl0(const struct pmu_event *ev)
{
    return ev->kernel || ev->hypervisor;
}

static uint64_t evtsel_value(const struct pmu_event *ev)
{
    return ev->event_select | ((uint64_t)ev->umask << EVTSEL_UMASK_SHIFT) |
           (ev->user ? PERFEVTSEL_USR : 0) | (counts_cpl0(ev) ? PERFEVTSEL_OS : 0) |
           PERFEVTSEL_INT | PERFEVTSEL_EN;
}

static uint64_t fixed_ctrl_value(const struct pmu_ctx *ctx)
{
    uint64_t v = 0;
    for (unsigned int i = 0; i < ctx->count; i++) {
        const struct pmu_event *ev = &ctx->counters[i].event;
        if (!is_hw_counter(&ctx->counters[i]) || ev->slot != PMU_SLOT_FIXED)
            continue;
        uint64_t field = FIXED_CTRL_PMI | (counts_cpl0(ev) ? FIXED_CTRL_OS : 0) |
                         (ev->user ? FIXED_CTRL_USR : 0);
        v |= field << (FIXED_CTRL_BITS * ev->slot_index);
    }
    return v;
}

/* ---- operations ---- */

static enum pmu_status check_counter(const struct pmu_hw *hw, const struct pmu_counter *c)
{
    const struct pmu_event *ev = &c->event;
    bool ok = (ev->slot == PMU_SLOT_GP && ev->slot_index < hw->gp_count) ||
              (ev->slot == PMU_SLOT_FIXED && ev->slot_index < PMU_MAX_FIXED &&
               (hw->fixed_present & (1u << ev->slot_index)));
    if (!ok)
        return PMU_ERR_SLOT;
    if (c->period > counter_mask(hw, c))
        return PMU_ERR_PERIOD;
    if (ev->slot == PMU_SLOT_GP && !hw->full_width && c->period > PMU_LEGACY_MAX_PERIOD)
        return PMU_ERR_PERIOD;
    return PMU_OK;
}

static enum pmu_status hw_program(void *self, struct pmu_ctx *ctx)
{
    struct pmu_hw *hw = self;
    for (unsigned int i = 0; i < ctx->count; i++) {
        struct pmu_counter *c = &ctx->counters[i];
        if (!is_hw_counter(c))
            continue;
        enum pmu_status s = check_counter(hw, c);
        if (s != PMU_OK)
            return s;
        c->accum = 0;
        c->start = c->raw = (0 - c->period) & counter_mask(hw, c);
    }
    ctx->overflow_pending = 0;
    return PMU_OK;
}

/* Legacy writes cannot load a GP counter with a value whose bits 31 and up
 * differ; a counting-only counter then restarts from its low 31 bits and
 * the difference moves to accum (sampling counters always hold values in
 * [-period, 0) or just past zero, which are representable). */
static void make_representable(const struct pmu_hw *hw, struct pmu_counter *c)
{
    if (hw->full_width || c->event.slot != PMU_SLOT_GP || legacy_result(hw, c->raw) == c->raw)
        return;
    uint64_t restart = c->raw & LEGACY_POSITIVE_MASK;
    c->accum = counter_count(c, c->raw, hw->gp_width_mask) - restart;
    c->start = 0;
    c->raw = restart;
}

/* The event selects of GP counters ctx does not use are left as they are:
 * GLOBAL_CTRL never enables those counters for ctx (neither value the VM
 * entry and exit load, pmu_hw_guest_enable_mask / pmu_hw_host_enable_mask),
 * and whoever uses one next (another context, the guest's virtual PMU)
 * writes its own select, unless the counter already holds it: a VCPU
 * switch rewrites no select that stays the same. */
static enum pmu_status hw_load(void *self, struct pmu_ctx *ctx)
{
    struct pmu_hw *hw = self;
    int err = hw_wr_elide(hw, MSR_IA32_PERF_GLOBAL_CTRL, 0, &hw->shadow.global_ctrl);
    for (unsigned int i = 0; i < ctx->count; i++) {
        struct pmu_counter *c = &ctx->counters[i];
        if (!is_hw_counter(c))
            continue;
        if (c->event.slot == PMU_SLOT_GP)
            err |= hw_wr_elide(hw, MSR_IA32_PERFEVTSEL0 + c->event.slot_index,
                               evtsel_value(&c->event), &hw->shadow.evtsel[c->event.slot_index]);
        make_representable(hw, c);
        err |= counter_write(hw, c, c->raw);
    }
    err |= hw_wr_elide(hw, MSR_IA32_FIXED_CTR_CTRL, fixed_ctrl_value(ctx), &hw->shadow.fixed_ctrl);
    err |= hw_wr_elide(hw, MSR_IA32_PERF_GLOBAL_CTRL, pmu_hw_host_enable_mask(ctx),
                       &hw->shadow.global_ctrl);
    ctx->loaded = true;
    return err ? PMU_ERR_MSR : PMU_OK;
}

int pmu_hw_share(struct pmu_hw *hw, const struct pmu_ctx *a, const struct pmu_ctx *b)
{
    int err = hw_wr_elide(hw, MSR_IA32_FIXED_CTR_CTRL, fixed_ctrl_value(a) | fixed_ctrl_value(b),
                          &hw->shadow.fixed_ctrl);
    uint64_t host = pmu_hw_host_enable_mask(a) | pmu_hw_host_enable_mask(b);
    return err | hw_wr_elide(hw, MSR_IA32_PERF_GLOBAL_CTRL, host, &hw->shadow.global_ctrl);
}

void pmu_hw_count_from_held(const struct pmu_hw *hw, struct pmu_ctx *ctx)
{
    for (unsigned int i = 0; i < ctx->count; i++) {
        struct pmu_counter *c = &ctx->counters[i];
        if (!is_hw_counter(c) || c->period)
            continue;
        uint64_t held = c->event.slot == PMU_SLOT_FIXED ? hw->shadow.fixed[c->event.slot_index]
                                                        : hw->shadow.pmc[c->event.slot_index];
        c->start = c->raw = held == SHADOW_UNKNOWN ? 0 : held;
    }
}

/* Handles every overflow GLOBAL_STATUS shows for ctx's counters. Only the
 * status bits Vertigo owns are cleared (ctx's counters, and on v4+ the
 * freeze bits its DEBUGCTL setting caused; the freeze ends here); ToPA,
 * PEBS-buffer, uncore and other counters' bits are left alone. The bits
 * are cleared before the counters are re-armed (as Linux's handler acks
 * first): an overflow after the re-arm sets its bit again and is not
 * wiped. */
static int collect_overflows(struct pmu_hw *hw, struct pmu_ctx *ctx)
{
    uint64_t status = 0;
    int err = hw_rd(hw, MSR_IA32_PERF_GLOBAL_STATUS, &status);
    uint64_t clear = err ? 0 : status & pmu_hw_owned_mask(ctx);
    uint64_t handled = clear;
    if (!err && hw->streamlined_freeze)
        clear |= status & (STATUS_CTR_FRZ | STATUS_LBR_FRZ);
    if (clear)
        err |= hw_wr(hw, MSR_IA32_PERF_GLOBAL_OVF_CTRL, clear);
    /* Legacy freeze (v2/v3) cleared GLOBAL_CTRL itself on the PMI. */
    if (handled && hw->freeze_on_pmi && !hw->streamlined_freeze)
        hw->shadow.global_ctrl = SHADOW_UNKNOWN;
    for (unsigned int i = 0; i < ctx->count && handled; i++) {
        struct pmu_counter *c = &ctx->counters[i];
        if (!is_hw_counter(c) || !(handled & status_bit(c)))
            continue;
        uint64_t raw = 0;
        err |= hw_rd(hw, counter_read_msr(c), &raw);
        err |= counter_wrapped(hw, ctx, i, raw);
    }
    return err;
}

static enum pmu_status hw_save(void *self, struct pmu_ctx *ctx)
{
    struct pmu_hw *hw = self;
    int err = hw_wr_elide(hw, MSR_IA32_PERF_GLOBAL_CTRL, 0, &hw->shadow.global_ctrl);
    err |= collect_overflows(hw, ctx);
    for (unsigned int i = 0; i < ctx->count; i++) {
        struct pmu_counter *c = &ctx->counters[i];
        if (!is_hw_counter(c))
            continue;
        err |= hw_rd(hw, counter_read_msr(c), &c->raw);
        *counter_shadow(hw, c) = c->raw;
    }
    ctx->loaded = false;
    return err ? PMU_ERR_MSR : PMU_OK;
}

static void hw_enter(void *self, struct pmu_ctx *ctx, unsigned int cpl,
                     struct pmu_entry_plan *plan)
{
    struct pmu_hw *hw = self;
    plan->guest_global_ctrl = pmu_hw_guest_enable_mask(ctx);
    plan->host_global_ctrl = pmu_hw_host_enable_mask(ctx);
    plan->guest_debugctl_set = hw->freeze_on_pmi ? PMU_DEBUGCTL_FREEZE_PERFMON_ON_PMI : 0;
    plan->deadline_ticks = PMU_NO_DEADLINE;
    ctx->in_guest = true;
    ctx->entry_cpl = (uint8_t)cpl;
}

static uint32_t hw_exit(void *self, struct pmu_ctx *ctx, uint64_t guest_ticks)
{
    (void)self;
    (void)guest_ticks;      /* the counters measured the guest themselves */
    ctx->in_guest = false;
    return ctx->overflow_pending;
}

static uint32_t hw_overflow(void *self, struct pmu_ctx *ctx)
{
    if (ctx->loaded)
        collect_overflows(self, ctx);
    return pmu_ctx_take_overflows(ctx);
}

static uint64_t hw_read(void *self, const struct pmu_ctx *ctx, unsigned int i)
{
    struct pmu_hw *hw = self;
    const struct pmu_counter *c = &ctx->counters[i];
    uint64_t mask = counter_mask(hw, c);
    if (!is_hw_counter(c))
        return c->accum;
    if (!ctx->loaded)
        return counter_count(c, c->raw, mask);
    uint64_t raw = 0, status = 0;
    hw_rd(hw, counter_read_msr(c), &raw);
    hw_rd(hw, MSR_IA32_PERF_GLOBAL_STATUS, &status);
    if (status & status_bit(c))     /* wrapped, not handled yet */
        return c->accum + (mask - c->start + 1) + raw;
    return counter_count(c, raw, mask);
}

/* +1 for an instruction Vertigo emulated. Counting-only counters take it in
 * accum (no MSR write); sampling counters move one event closer to their
 * overflow, which may happen right here. */
static void hw_emulated_instruction(void *self, struct pmu_ctx *ctx, unsigned int cpl)
{
    struct pmu_hw *hw = self;
    for (unsigned int i = 0; i < ctx->count; i++) {
        struct pmu_counter *c = &ctx->counters[i];
        if (!is_hw_counter(c) || !pmu_event_counts_instructions(&c->event) ||
            !pmu_event_counts_at(&c->event, cpl))
            continue;
        if (!c->period) {
            c->accum++;
            continue;
        }
        uint64_t raw = c->raw;
        if (ctx->loaded)
            hw_rd(hw, counter_read_msr(c), &raw);
        uint64_t next = (raw + 1) & counter_mask(hw, c);
        if (next == 0) {
            c->raw = 0;
            counter_wrapped(hw, ctx, i, 0);
        } else if (ctx->loaded) {
            counter_write_live(hw, c, next);
        } else {
            c->raw = next;
        }
    }
}

/* ---- the PMI's delivery (LVTPC) ---- */

void pmu_hw_pmi_arm(const struct pmu_lvtpc_ops *lvt)
{
    lvt->write(lvt->ctx, PMU_LVTPC_NMI);
}

uint32_t pmu_hw_pmi_rearm(struct pmu_hw *hw, struct pmu_ctx *ctx,
                          const struct pmu_lvtpc_ops *lvt)
{
    uint32_t now = lvt->read(lvt->ctx) & ~PMU_LVT_DELIVERY_STATUS;
    if (now == PMU_LVTPC_NMI)
        return 0;
    lvt->write(lvt->ctx, PMU_LVTPC_NMI);
    if (!(now & PMU_LVT_MASKED) || !ctx->loaded)
        return 0;
    collect_overflows(hw, ctx);
    return pmu_ctx_take_overflows(ctx);
}

const struct pmu_backend_ops pmu_hw_ops = {
    .name = "hw",
    .program = hw_program,
    .load = hw_load,
    .save = hw_save,
    .enter = hw_enter,
    .exit = hw_exit,
    .overflow = hw_overflow,
    .read = hw_read,
    .emulated_instruction = hw_emulated_instruction,
};

struct pmu_backend pmu_hw_backend(struct pmu_hw *hw)
{
    struct pmu_backend be = { &pmu_hw_ops, hw };
    return be;
}

/* ---- initialisation ---- */

static enum pmu_status check_desc(const struct pmu_desc *d)
{
    if (d->version < MIN_VERSION || d->version > MAX_VERSION)
        return PMU_ERR_VERSION;
    if (d->gp_counters && (d->gp_width == 0 || d->gp_width > MAX_COUNTER_WIDTH))
        return PMU_ERR_CONFIG;
    if (d->fixed_mask && (d->fixed_width == 0 || d->fixed_width > MAX_COUNTER_WIDTH))
        return PMU_ERR_CONFIG;
    return PMU_OK;
}

/* Stops and zeroes everything Vertigo drives, clears overflow status. */
static int reset_counters(struct pmu_hw *hw)
{
    uint64_t clear = (1ull << hw->gp_count) - 1;
    int err = hw_wr(hw, MSR_IA32_PERF_GLOBAL_CTRL, 0);
    for (unsigned int i = 0; i < hw->gp_count; i++) {
        err |= hw_wr(hw, MSR_IA32_PERFEVTSEL0 + i, 0);
        err |= hw_wr(hw, MSR_IA32_PMC0 + i, 0);
    }
    err |= hw_wr(hw, MSR_IA32_FIXED_CTR_CTRL, 0);
    for (unsigned int j = 0; j < PMU_MAX_FIXED; j++) {
        if (!(hw->fixed_present & (1u << j)))
            continue;
        err |= hw_wr(hw, MSR_IA32_FIXED_CTR0 + j, 0);
        clear |= 1ull << (GLOBAL_FIXED_SHIFT + j);
    }
    if (hw->streamlined_freeze)
        clear |= STATUS_CTR_FRZ | STATUS_LBR_FRZ;
    err |= hw_wr(hw, MSR_IA32_PERF_GLOBAL_OVF_CTRL, clear);
    memset(&hw->shadow, 0, sizeof(hw->shadow));
    return err;
}

void pmu_hw_describe(struct pmu_hw *hw, const struct pmu_desc *d, uint64_t perf_capabilities)
{
    memset(hw, 0, sizeof(*hw));
    hw->desc = *d;
    hw->gp_count = d->gp_counters < PMU_MAX_GP ? d->gp_counters : PMU_MAX_GP;
    hw->fixed_present = d->fixed_mask & ((1u << PMU_MAX_FIXED) - 1);
    hw->gp_width_mask = width_mask(d->gp_width);
    hw->fixed_width_mask = width_mask(d->fixed_width);
    hw->full_width = (perf_capabilities & PMU_PERF_CAP_FW_WRITE) != 0;
    hw->freeze_on_pmi = true;   /* DEBUGCTL bit 12 exists from version 2 on */
    hw->streamlined_freeze = d->version >= STREAMLINED_FREEZE_VERSION;
}

enum pmu_status pmu_hw_init(struct pmu_hw *hw, const struct pmu_desc *d,
                            uint64_t perf_capabilities, const struct pmu_msr_ops *msr)
{
    memset(hw, 0, sizeof(*hw));
    enum pmu_status s = check_desc(d);
    if (s != PMU_OK)
        return s;
    pmu_hw_describe(hw, d, perf_capabilities);
    hw->msr = *msr;
    return reset_counters(hw) ? PMU_ERR_MSR : PMU_OK;
}
