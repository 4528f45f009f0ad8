/* Software PMU backend (see pmu/soft/pmu_soft.h). A counter's count is
 * accum + raw, where raw is the progress toward the next overflow. */
#include "pmu/soft/pmu_soft.h"

static bool is_counted(const struct pmu_counter *c)
{
    return c->event.source == PMU_EVENT_HW;
}

static bool filters_by_mode(const struct pmu_counter *c)
{
    return c->event.user != c->event.kernel;
}

/* The loaded context's masks (struct pmu_soft). */
static void learn_masks(struct pmu_soft *soft, const struct pmu_ctx *ctx)
{
    soft->counts_at[0] = soft->counts_at[1] = 0;
    soft->samples_at[0] = soft->samples_at[1] = 0;
    soft->steps_by_mode = false;
    for (unsigned int i = 0; i < ctx->count; i++) {
        const struct pmu_counter *c = &ctx->counters[i];
        if (!is_counted(c))
            continue;
        soft->steps_by_mode |= filters_by_mode(c);
        for (unsigned int cpl = 0; cpl < 2; cpl++) {
            if (!pmu_event_counts_at(&c->event, cpl))
                continue;
            soft->counts_at[cpl] |= 1u << i;
            if (c->period)
                soft->samples_at[cpl] |= 1u << i;
        }
    }
}

static enum pmu_status soft_program(void *self, struct pmu_ctx *ctx)
{
    for (unsigned int i = 0; i < ctx->count; i++) {
        struct pmu_counter *c = &ctx->counters[i];
        if (!is_counted(c))
            continue;
        if (c->event.slot != PMU_SLOT_SOFT || c->event.slot_index >= PMU_CTX_MAX_COUNTERS)
            return PMU_ERR_SLOT;
        c->accum = c->start = c->raw = 0;
    }
    ctx->overflow_pending = 0;
    learn_masks(self, ctx);
    return PMU_OK;
}

/* Software counters live in the context itself: nothing to move. */
static enum pmu_status soft_load(void *self, struct pmu_ctx *ctx)
{
    learn_masks(self, ctx);
    ctx->loaded = true;
    return PMU_OK;
}

static enum pmu_status soft_save(void *self, struct pmu_ctx *ctx)
{
    (void)self;
    ctx->loaded = false;
    return PMU_OK;
}

static void soft_enter(void *self, struct pmu_ctx *ctx, unsigned int cpl,
                       struct pmu_entry_plan *plan)
{
    plan->guest_global_ctrl = 0;
    plan->host_global_ctrl = 0;
    plan->guest_debugctl_set = 0;
    plan->deadline_ticks = pmu_soft_enter(self, ctx, cpl);
}

static uint32_t soft_exit(void *self, struct pmu_ctx *ctx, uint64_t guest_ticks)
{
    return pmu_soft_exit(self, ctx, guest_ticks);
}

static uint32_t soft_overflow(void *self, struct pmu_ctx *ctx)
{
    (void)self;
    return pmu_ctx_take_overflows(ctx);
}

static uint64_t soft_read(void *self, const struct pmu_ctx *ctx, unsigned int i)
{
    (void)self;
    return ctx->counters[i].accum + ctx->counters[i].raw;
}

/* Where one tick is one instruction every software counter counts
 * instructions, so each gets the +1; on real hardware the software PMU
 * counts time only and an emulated instruction adds nothing to it. */
static void soft_emulated_instruction(void *self, struct pmu_ctx *ctx, unsigned int cpl)
{
    const struct pmu_soft *soft = self;
    if (!soft->config.tsc_counts_instructions)
        return;
    for (uint32_t m = soft->counts_at[pmu_soft_mode(cpl)]; m; m &= m - 1)
        pmu_soft_add(ctx, (unsigned int)__builtin_ctz(m), 1);
}

/* ---- Vertigo's own time -------------------------------------------------- */

/* The counters with :h are ctx->hypervisor_mask's (pmu_ctx_init): these
 * run at every sync point of the single-stepping, so they walk that mask
 * rather than every counter. */

bool pmu_soft_samples_hypervisor(const struct pmu_ctx *ctx)
{
    for (uint32_t m = ctx->hypervisor_mask; m; m &= m - 1)
        if (ctx->counters[__builtin_ctz(m)].period)
            return true;
    return false;
}

void pmu_soft_hypervisor_ticks(struct pmu_ctx *ctx, uint64_t n)
{
    if (!n)
        return;
    for (uint32_t m = ctx->hypervisor_mask; m; m &= m - 1)
        pmu_soft_count(ctx, (unsigned int)__builtin_ctz(m), n);
}

/* pmu_soft_nearest_overflow for a mask that may hold counting counters
 * too (the hypervisor mask: a counter with :h and no period has no
 * overflow point); the deadlines' masks hold sampling counters only and
 * go without the test, at every entry. */
static uint64_t headroom_of(const struct pmu_ctx *ctx, uint32_t mask)
{
    uint64_t nearest = UINT64_MAX;
    for (uint32_t m = mask; m; m &= m - 1) {
        const struct pmu_counter *c = &ctx->counters[__builtin_ctz(m)];
        if (c->period && c->period - c->raw < nearest)
            nearest = c->period - c->raw;   /* raw < period between adds */
    }
    return nearest;
}

uint64_t pmu_soft_hypervisor_headroom(const struct pmu_ctx *ctx)
{
    return headroom_of(ctx, ctx->hypervisor_mask);
}

uint64_t pmu_soft_run_headroom(const struct pmu_soft *soft, const struct pmu_ctx *ctx, bool halted,
                               uint64_t all)
{
    if (halted)
        return UINT64_MAX;
    uint32_t counting = soft->mode_exits ? soft->counts_at[pmu_soft_mode(ctx->entry_cpl)]
                                         : soft->counts_at[0] | soft->counts_at[1];
    uint32_t mask = ctx->hypervisor_mask & counting;
    return mask == ctx->hypervisor_mask ? all : headroom_of(ctx, mask);
}

static void stepper_find_next(struct pmu_soft_stepper *s)
{
    s->next = UINT64_MAX;
    for (uint32_t m = s->counters; m; m &= m - 1) {
        unsigned int i = (unsigned int)__builtin_ctz(m);
        if (s->left[i] < s->next)
            s->next = s->left[i];
    }
}

void pmu_soft_stepper_sync(struct pmu_soft_stepper *s, const struct pmu_ctx *ctx)
{
    s->counters = 0;
    for (uint32_t m = ctx->hypervisor_mask; m; m &= m - 1) {
        unsigned int i = (unsigned int)__builtin_ctz(m);
        const struct pmu_counter *c = &ctx->counters[i];
        if (!c->period)
            continue;
        s->counters |= 1u << i;
        s->period[i] = c->period;
        s->left[i] = c->period - c->raw;    /* raw < period between adds */
    }
    stepper_find_next(s);
}

uint32_t pmu_soft_stepper_overflow(struct pmu_soft_stepper *s)
{
    uint32_t mask = 0;
    for (uint32_t m = s->counters; m; m &= m - 1) {
        unsigned int i = (unsigned int)__builtin_ctz(m);
        if (s->left[i] != s->next)
            continue;
        mask |= 1u << i;
        s->left[i] += s->period[i];
    }
    stepper_find_next(s);
    return mask;
}

static uint64_t soft_reachable_period(const struct pmu_counter *c, uint64_t period)
{
    return c->raw >= period ? c->raw + 1 : period;
}

const struct pmu_backend_ops pmu_soft_ops = {
    .name = "soft",
    .program = soft_program,
    .load = soft_load,
    .save = soft_save,
    .enter = soft_enter,
    .exit = soft_exit,
    .overflow = soft_overflow,
    .read = soft_read,
    .emulated_instruction = soft_emulated_instruction,
    .reachable_period = soft_reachable_period,
};

enum pmu_status pmu_soft_init(struct pmu_soft *soft, const struct pmu_soft_config *config)
{
    if (!config->step_ticks)
        return PMU_ERR_CONFIG;
    soft->config = *config;
    soft->counts_at[0] = soft->counts_at[1] = 0;
    soft->samples_at[0] = soft->samples_at[1] = 0;
    soft->steps_by_mode = false;
    soft->mode_exits = false;
    soft->entries = 0;
    soft->stepped_entries = 0;
    return PMU_OK;
}

struct pmu_backend pmu_soft_backend(struct pmu_soft *soft)
{
    struct pmu_backend be = { &pmu_soft_ops, soft };
    return be;
}
