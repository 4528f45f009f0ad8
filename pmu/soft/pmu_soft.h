/* The software PMU backend's policy, for CPUs whose PMU is absent or broken.
 *
 * Counters advance by the TSC ticks a VCPU spends in guest mode, measured
 * by the caller around each VM entry/exit (never while Vertigo runs, never
 * while the VCPU is halted: the caller only reports time the guest ran).
 * Every tick of a step is attributed to the mode (user = CPL > 0, kernel =
 * CPL 0) the guest was in when the step began, so when any counter filters
 * by mode the guest is stepped with the VMX-preemption timer at a
 * configurable granularity; with granularity 1 (one instruction per step in
 * Bochs) the attribution is exact. The next deadline is also never past the
 * nearest overflow, so an overflow happens at an exact point; the caller
 * then writes its sample at that exit, with the guest state there
 * (pmu_run_record_overflows), the record a hardware PMI's NMI writes.
 *
 * What it can count: on real hardware only cycle-based events (cycles,
 * ref-cycles: TSC ticks of guest time). In Bochs with `clock: sync=none`
 * one TSC tick is one emulated instruction, so `instructions` and `cycles`
 * are both exact instruction counts there. Portable: no hardware access. */
#ifndef PMU_PMU_SOFT_H
#define PMU_PMU_SOFT_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/smp.h"
#include "pmu/backend/pmu.h"
#include "pmu/backend/pmu_ctx.h"
#include "pmu/pmu_mode.h"

struct pmu_soft_config {
    uint64_t step_ticks;            /* granularity of mode attribution, >= 1 */
    bool tsc_counts_instructions;   /* one TSC tick = one instruction (Bochs) */
};

/* One per physical CPU. */
struct pmu_soft {
    struct pmu_soft_config config;
    /* Of the loaded context, set by program and load (the exit and entry
     * paths then need no per-counter tests): bit i of counts_at[m] is set
     * if counters[i] counts guest time in mode m (0 kernel, 1 user), of
     * samples_at[m] if it also has a period; steps_by_mode: some counter
     * filters by mode, so entries are stepped. */
    uint32_t counts_at[2];
    uint32_t samples_at[2];
    bool steps_by_mode;
    /* Set by the caller before enter: every change of mode exits (the mode
     * traps), so no step is needed to split user from kernel time. */
    bool mode_exits;
    uint64_t entries;               /* statistics: enter calls */
    uint64_t stepped_entries;       /* entries whose deadline was the step */
};

/* The backend operations (contracts in pmu/backend/pmu.h). */
extern const struct pmu_backend_ops pmu_soft_ops;

/* Sets soft up; PMU_ERR_CONFIG if step_ticks is 0. */
enum pmu_status pmu_soft_init(struct pmu_soft *soft, const struct pmu_soft_config *config);

/* The backend handle for soft, for generic code. */
struct pmu_backend pmu_soft_backend(struct pmu_soft *soft);

/* Each CPU's instance (pmu/soft/soft_kind.c: the kind's init_cpu). */
extern struct pmu_soft pmu_soft_cpus[MAX_CPUS];

/* ---- Counting Vertigo's own time (events with :h) ---------------------
 * The caller measures the time Vertigo runs on the VCPU's CPU (between a
 * VM exit and the next entry) and adds it with pmu_soft_hypervisor_ticks.
 * For exact overflow points inside Vertigo the caller single-steps itself
 * (EFLAGS.TF) while a counter samples the hypervisor; the trap handler
 * cannot touch the context (it may interrupt code that does), so it counts
 * down a stepper synced from the context, and the steps are added to the
 * context afterwards: the same overflows, found twice. */

/* True if some counter samples the hypervisor (:h with a period). */
bool pmu_soft_samples_hypervisor(const struct pmu_ctx *ctx);

/* Adds n ticks of Vertigo's time to every counter counting the hypervisor,
 * noting each overflow in ctx as a guest tick would. */
void pmu_soft_hypervisor_ticks(struct pmu_ctx *ctx, uint64_t n);

/* Ticks of Vertigo's time until the nearest overflow of a counter that
 * samples the hypervisor (1: the next tick); UINT64_MAX if none samples
 * it. What pmu_soft_stepper_sync would make the stepper's next. */
uint64_t pmu_soft_hypervisor_headroom(const struct pmu_ctx *ctx);

struct pmu_soft;

/* pmu_soft_hypervisor_headroom of the counters that count the ticks of
 * the guest's run just planned (halted: none; with a mode exit at every
 * change, those counting the mode it enters in; else those counting any
 * of the guest's modes): only for these can a run bring the overflow
 * nearer. UINT64_MAX if none samples. `all` is the headroom of every
 * counter that samples Vertigo, taken as it is when the run counts them
 * all (an :ukh session's counters do). */
uint64_t pmu_soft_run_headroom(const struct pmu_soft *soft, const struct pmu_ctx *ctx, bool halted,
                               uint64_t all);

/* Overflow points of the hypervisor-sampling counters, in steps from the
 * moment of the last sync. */
struct pmu_soft_stepper {
    uint32_t counters;                          /* bit i: counters[i] samples Vertigo */
    uint64_t left[PMU_CTX_MAX_COUNTERS];        /* step at which counters[i] overflows next */
    uint64_t period[PMU_CTX_MAX_COUNTERS];
    uint64_t next;                              /* the nearest of them; UINT64_MAX: none */
};

/* Restarts s from ctx's counts: step 1 is the next tick of Vertigo's time. */
void pmu_soft_stepper_sync(struct pmu_soft_stepper *s, const struct pmu_ctx *ctx);

/* At step s->next: returns the counters that overflow at that step (bit
 * i: counters[i]) and moves on to their following overflow. */
uint32_t pmu_soft_stepper_overflow(struct pmu_soft_stepper *s);

/* ---- The entry and exit operations, inline -----------------------------
 * pmu_soft_ops.enter and .exit are these two with the generic plan around
 * them; the VM-exit wiring (pmu/run/pmu_run.c) calls them directly, as they run
 * at every entry and exit while the software PMU counts. */

/* Mode index of counts_at/samples_at: 0 kernel (CPL 0), 1 user (CPL > 0). */
static inline unsigned int pmu_soft_mode(unsigned int cpl)
{
    return pmu_mode_of_cpl(cpl);
}

/* Adds n events to counters[i], reporting each overflow it crosses (one
 * pending bit; the counter's overflow count gets every one). Returns the
 * events counted past the first overflow point (0 without one). */
static inline uint64_t pmu_soft_count(struct pmu_ctx *ctx, unsigned int i, uint64_t n)
{
    struct pmu_counter *c = &ctx->counters[i];
    c->raw += n;
    if (!c->period || c->raw < c->period)
        return 0;
    uint64_t skid = c->raw - c->period;     /* events past the first overflow point */
    uint64_t crossed = c->raw / c->period;
    c->sampled_period = c->period;
    c->raw -= crossed * c->period;
    c->accum += crossed * c->period;
    c->overflows += crossed;
    ctx->overflow_pending |= 1u << i;
    return skid;
}

/* pmu_soft_count for the guest's events, whose overflow points the runs'
 * deadlines aim at: how far past one a run went is the counter's skid.
 * (Vertigo's own ticks, pmu_soft_hypervisor_ticks, have none to measure:
 * an overflow among single-stepped ones was sampled at its step, one an
 * unstepped stretch ran past is counted late, pmu/soft/pmu_step.c.) */
static inline void pmu_soft_add(struct pmu_ctx *ctx, unsigned int i, uint64_t n)
{
    uint64_t skid = pmu_soft_count(ctx, i, n);
    if (skid > ctx->counters[i].skid_max)
        ctx->counters[i].skid_max = skid;
}

/* Ticks left to the nearest overflow point of the sampling counters in
 * mask; PMU_NO_DEADLINE for none. Never 0: between counts a counter is
 * short of its overflow point (pmu_soft_count leaves raw < period). */
static inline uint64_t pmu_soft_nearest_overflow(const struct pmu_ctx *ctx, uint32_t mask)
{
    uint64_t nearest = PMU_NO_DEADLINE;
    for (uint32_t m = mask; m; m &= m - 1) {
        const struct pmu_counter *c = &ctx->counters[__builtin_ctz(m)];
        if (c->period - c->raw < nearest)
            nearest = c->period - c->raw;
    }
    return nearest;
}

/* Guest ticks the next entry at privilege level cpl may run before it must
 * exit: the step granularity if any counter filters by mode, capped by the
 * ticks left to the nearest overflow of a counter counting in that mode;
 * PMU_NO_DEADLINE when neither applies. Never 0. */
static inline uint64_t pmu_soft_deadline(const struct pmu_soft *soft, const struct pmu_ctx *ctx,
                                         unsigned int cpl)
{
    uint64_t deadline = pmu_soft_nearest_overflow(ctx, soft->samples_at[pmu_soft_mode(cpl)]);
    if (soft->steps_by_mode && !soft->mode_exits && soft->config.step_ticks < deadline)
        deadline = soft->config.step_ticks;
    return deadline;
}

/* Guest ticks the next entry at cpl may run before a counter that samples
 * Vertigo's time too (:h) reaches its overflow point, when `lead` ticks of
 * Vertigo's come first (the end of the entry path, counted before the
 * guest's run): at least 1 (an overflow inside the lead is the stepper's,
 * and the run after it is planned again at the next exit);
 * PMU_NO_DEADLINE when no such counter samples at cpl. */
static inline uint64_t pmu_soft_deadline_after(const struct pmu_soft *soft,
                                               const struct pmu_ctx *ctx, unsigned int cpl,
                                               uint64_t lead)
{
    uint64_t nearest = pmu_soft_nearest_overflow(ctx, soft->samples_at[pmu_soft_mode(cpl)] &
                                                          ctx->hypervisor_mask);
    if (nearest == PMU_NO_DEADLINE)
        return nearest;
    return nearest > lead ? nearest - lead : 1;
}

/* The guest enters at privilege level cpl: returns its deadline
 * (pmu_soft_deadline; the plan's deadline_ticks). */
static inline uint64_t pmu_soft_enter(struct pmu_soft *soft, struct pmu_ctx *ctx,
                                      unsigned int cpl)
{
    uint64_t deadline = pmu_soft_deadline(soft, ctx, cpl);
    soft->entries++;
    if (deadline == soft->config.step_ticks)
        soft->stepped_entries++;
    ctx->in_guest = true;
    ctx->entry_cpl = (uint8_t)cpl;
    return deadline;
}

/* The guest exited after guest_ticks: adds them to the counters counting
 * in the mode it entered in; returns the overflows pending. */
static inline uint32_t pmu_soft_exit(const struct pmu_soft *soft, struct pmu_ctx *ctx,
                                     uint64_t guest_ticks)
{
    if (!ctx->in_guest)
        return ctx->overflow_pending;
    ctx->in_guest = false;
    for (uint32_t m = soft->counts_at[pmu_soft_mode(ctx->entry_cpl)]; m; m &= m - 1)
        pmu_soft_add(ctx, (unsigned int)__builtin_ctz(m), guest_ticks);
    return ctx->overflow_pending;
}

#endif
