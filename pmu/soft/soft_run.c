/* The software backend's part in the counting session in the VM-exit loop
 * (pmu/run/run_part.h): each run of the guest measured on the
 * VMX-preemption timer and charged to its mode, the deadline of the next
 * overflow point, the mode and halt traps, single-stepping Vertigo for
 * :h at the loop's sync points, and the choice of the short path of a
 * VCPU that counts only for its guest's virtual PMU (pmu/run/pmu_run.c runs
 * it; docs/pmu.md "Wiring"). */
#include "pmu/soft/soft_run.h"

#include "pmu/mux/pmu_mux.h"
#include "pmu/pv/pmu_pv.h"
#include "pmu/run/pmu_config.h"
#include "pmu/run/pmu_run.h"
#include "pmu/run/run_part.h"
#include "pmu/soft/pmu_soft.h"
#include "pmu/soft/pmu_step.h"
#include "pmu/vpmu/pmu_guest.h"

/* The backend instance that drives v's CPU (set up by the kind's
 * init_cpu when v's context was programmed). Its entry and exit are
 * inline (pmu/soft/pmu_soft.h) and its other operations named through its
 * constant table, which the compiler (with LTO) resolves to direct calls. */
static struct pmu_soft *soft_of(struct vcpu_pmu *p)
{
    return p->be.self;
}

/* ---- Which exits a run needs ------------------------------------------------
 * With a counter that filters by mode, every mode change exits where the
 * hardware allows (pmu_config.exact_modes), so each run starts and ends in
 * one mode; without one, only HLTs and the interrupts that wake a halted
 * guest exit, so each run is either idle or guest work and no run needs a
 * step (plan_entry). Decided when a context is programmed: the entry path
 * only reads the result. */
static void programmed(struct vcpu *v)
{
    struct vcpu_pmu *p = &v->pmu;
    bool traps = pmu_config.exact_modes;
    bool exact = traps && (soft_of(p)->steps_by_mode || pmu_guest_needs_modes(v) ||
                           pmu_pv_needs_modes(&p->pv));
    pmu_run_set_traps(v, exact, traps);
    soft_of(p)->mode_exits = exact;
}

/* ---- Before each entry ---------------------------------------------------- */

/* With the mode or halt traps on, a run needs no step: only the overflow
 * point, a user step the guest asked for (VERTIGO_HC_PMU_STEP, user mode
 * only) and the bound that keeps every run measured by the timer
 * (PMU_RUN_TICKS_MAX). */

/* Without the traps (pmu.traps=off, or a CPU without the controls): every
 * entry gets a deadline, at most one step, so the halted time a step may
 * contain and the stretch of a run charged to the mode it began in are
 * bounded. A VCPU that counts nothing by mode (no event of a session of
 * Vertigo's, and the guest's virtual PMU and paravirtual counters counting
 * every mode or nothing) needs no step, only its deadlines. */
static bool counts_by_mode(const struct vcpu *v)
{
    return v->pmu.ctx.count || pmu_guest_needs_modes(v) || pmu_pv_needs_modes(&v->pmu.pv);
}

static void plan_deadline(struct vcpu *v, unsigned int cpl)
{
    struct pmu_soft *soft = soft_of(&v->pmu);
    uint64_t step = soft->config.step_ticks;
    if (v->pmu.modes_trapped || v->pmu.halts_trapped)
        step = cpl && v->pmu.user_step_ticks ? v->pmu.user_step_ticks : PMU_RUN_TICKS_MAX;
    else if (!counts_by_mode(v))
        step = PMU_RUN_TICKS_MAX;
    uint64_t deadline = pmu_soft_enter(soft, &v->pmu.ctx, cpl);
    uint64_t hv = PMU_NO_DEADLINE;
    bool stepping = pmu_step_armed(v);
    if (stepping) {
        hv = pmu_soft_deadline_after(soft, &v->pmu.ctx, cpl, pmu_step_entry_lead(v));
        deadline = hv < deadline ? hv : deadline;
    }
    uint64_t guest_pmi = pmu_guest_ticks_to_pmi(v, cpl);
    uint64_t turn_end = pmu_mux_deadline(v);
    uint64_t pv_overflow = pmu_pv_events_to_overflow(&v->pmu.pv, cpl);
    deadline = guest_pmi < deadline ? guest_pmi : deadline;
    deadline = pv_overflow < deadline ? pv_overflow : deadline;
    deadline = turn_end < deadline ? turn_end : deadline;
    deadline = deadline < step ? deadline : step;
    if (stepping)
        pmu_step_run_to_overflow(v, hv != PMU_NO_DEADLINE && hv == deadline);
    pmu_arch_timer_request(v, PMU_TIMER_STEP, deadline);
}

/* The step granularity the guest can change (VERTIGO_HC_PMU_STEP) applies
 * to user mode; the kernel always runs at pmu.step, so a fine user step
 * never makes the guest's interrupt handlers crawl. Without a user step
 * the backend keeps pmu.step (set at its start and by the hypercall). */
static void choose_step(struct vcpu *v, unsigned int cpl)
{
    if (!v->pmu.user_step_ticks)
        return;
    soft_of(&v->pmu)->config.step_ticks = cpl ? v->pmu.user_step_ticks : pmu_config.step_ticks;
}

/* With the mode traps on, the run starts in the mode the entry starts it
 * in, which is the kernel's when an event is being injected. */
static unsigned int entry_cpl(struct vcpu *v)
{
    return v->pmu.modes_trapped ? pmu_arch_entry_cpl(v) : pmu_arch_guest_cpl(v);
}

static void plan_entry(struct vcpu *v)
{
    struct vcpu_pmu *p = &v->pmu;
    if (!p->counting) {
        pmu_run_plan_idle(v);
        return;
    }
    p->guest_alone = pmu_run_guest_alone(v);
    if (p->guest_alone) {
        pmu_run_plan_guest_alone(v);
        return;
    }
    p->entered_halted = pmu_arch_guest_halted(v);
    unsigned int cpl = entry_cpl(v);
    choose_step(v, cpl);
    plan_deadline(v, cpl);
    pmu_pv_publish(&v->pmu.pv, pmu_arch_tsc(), cpl);
}

/* While single-stepping is armed the planning is a sync point, unless the
 * unstepped stretch running now can go on through the entry
 * (pmu_step_join_entry); not with interval multiplexing, whose rows are
 * planned from counts that must hold Vertigo's ticks so far. */
static void before_entry(struct vcpu *v)
{
    bool stepping = pmu_step_armed(v);
    bool joined = stepping && !v->pmu.mux.on && pmu_step_join_entry(v);
    if (stepping && !joined)
        pmu_run_count_overflows(v, pmu_step_pause(v));
    plan_entry(v);
    if (joined)
        pmu_step_entry_joined(v);
    else if (stepping)
        pmu_run_count_overflows(v, pmu_step_resume(v, PMU_STRETCH_ENTRY));
}

/* ---- After each exit -------------------------------------------------------- */

/* Vertigo's time for counters with :h where it is not single-stepped
 * (counting only), at an exit: every TSC tick since the previous exit that
 * was neither the guest's run (guest_ticks, halted or not) nor a guest
 * instruction Vertigo emulated and charged to the guest's mode (whose
 * exit does not retire it: no tick of its own). So :u, :k and :h together
 * count exactly the TSC ticks of the VCPU's CPU. */
static void hypervisor_time(struct vcpu *v, uint64_t guest_ticks)
{
    struct vcpu_pmu *p = &v->pmu;
    if (!p->ctx.hypervisor_mask)
        return;
    uint64_t now = pmu_arch_exit_tsc(v);
    uint64_t span = now - p->last_exit_tsc;
    uint64_t guest = guest_ticks + p->emulated;
    p->last_exit_tsc = now;
    p->emulated = 0;
    if (span <= guest)
        return;
    pmu_soft_hypervisor_ticks(&p->ctx, span - guest);
    pmu_run_count_overflows(v, pmu_ctx_take_overflows(&p->ctx));
}

/* A one-tick step that began in user mode and ended in kernel mode either
 * executed a user SYSCALL (the guest now stands at IA32_LSTAR's target) or
 * took an interrupt or fault first and then ran one kernel instruction:
 * Bochs delivers pending events at the instruction boundary before the
 * step's instruction. The tick is the kernel's in the second case. */
static void correct_step_mode(struct vcpu *v, uint64_t guest_ticks)
{
    struct pmu_ctx *ctx = &v->pmu.ctx;
    if (guest_ticks != 1 || ctx->entry_cpl == 0 || v->pmu.exit_cpl != 0)
        return;
    if (pmu_arch_guest_rip(v) != pmu_arch_guest_syscall_entry(v))
        ctx->entry_cpl = 0;
}

/* The guest's run since the entry: its ticks to the counters, overflows
 * taken (found here, at the exact point); Vertigo's time before it to :h
 * counters unless single-stepping counts it. */
static void account_guest(struct vcpu *v, uint64_t guest_ticks, bool stepping)
{
    struct vcpu_pmu *p = &v->pmu;
    p->exit_cpl = (uint8_t)pmu_arch_guest_cpl(v);
    if (!p->counting)
        return;
    if (!stepping)
        hypervisor_time(v, guest_ticks);
    if (p->entered_halted) {
        p->halted_ticks += guest_ticks;     /* idle: not guest work */
        guest_ticks = 0;
    }
    if (guest_ticks == 1 && !p->modes_trapped)
        correct_step_mode(v, guest_ticks);
    pmu_guest_count(v, p->ctx.entry_cpl, guest_ticks);
    pmu_run_pv_count(v, p->ctx.entry_cpl, guest_ticks);
    if (pmu_soft_exit(soft_of(p), &p->ctx, guest_ticks))
        pmu_run_record_overflows(v, pmu_ctx_take_overflows(&p->ctx));  /* pmu_soft_ops.overflow */
    pmu_mux_retired(v, guest_ticks);
}

/* While single-stepping is armed the exit is a sync point: Vertigo's
 * steps or ticks before the guest's run go in before the run's ticks, the
 * rest after them, or with the next round's (a far round's, whose sync is
 * shorter: pmu/soft/pmu_step.h). Out of line, so that an exit without
 * stepping keeps a short frame. */
static __attribute__((noinline)) void after_exit_stepping(struct vcpu *v, uint64_t guest_ticks)
{
    bool far = pmu_step_far_round(v);
    pmu_run_count_overflows(v, far ? pmu_step_far_before(v, guest_ticks)
                               : pmu_step_exit_begin(v, guest_ticks));
    account_guest(v, guest_ticks, true);
    uint32_t reason = pmu_arch_exit_reason(v);
    unsigned int kind = reason < PMU_STRETCH_EXIT_REASONS ? reason : PMU_STRETCH_EXIT_REASONS - 1;
    pmu_run_count_overflows(v, far ? pmu_step_far_after(v, kind)
                                   : pmu_step_resume(v, kind));
}

static void after_exit(struct vcpu *v, uint64_t guest_ticks)
{
    if (pmu_step_armed(v))
        after_exit_stepping(v, guest_ticks);
    else
        account_guest(v, guest_ticks, false);
}

/* An emulated guest instruction counts as the guest's (its +1). While
 * single-stepping is armed it is a sync point, unless the unstepped
 * stretch running now can take it (pmu_step_absorb_emulation); not with
 * interval multiplexing, whose rows may end at this instruction and must
 * hold Vertigo's ticks before it. */
static void emulated_instruction(struct vcpu *v)
{
    struct vcpu_pmu *p = &v->pmu;
    pmu_run_emulated_counts(v);
    bool stepping = pmu_step_armed(v) && (p->mux.on || !pmu_step_absorb_emulation(v));
    if (stepping)
        pmu_run_count_overflows(v, pmu_step_pause(v));
    pmu_soft_ops.emulated_instruction(p->be.self, &p->ctx, p->exit_cpl);
    if (p->ctx.overflow_pending)
        pmu_run_record_overflows(v, pmu_ctx_take_overflows(&p->ctx));
    if (pmu_config.tsc_counts_instructions)
        pmu_mux_retired(v, 1);
    if (stepping)
        pmu_run_count_overflows(v, pmu_step_resume(v, PMU_STRETCH_AFTER_EMULATION));
}

/* ---- The end of the domain, the step hypercall ---------------------------- */

static void domain_end(struct vcpu *self)
{
    if (self && pmu_step_armed(self)) {
        pmu_run_count_overflows(self, pmu_step_pause(self));
        pmu_step_arm(self, false);
    }
}

static void report(const struct vcpu *v)
{
    pmu_step_report(v);
}

static int64_t guest_step(struct vcpu *v, uint64_t ticks)
{
    uint64_t dflt = pmu_config.step_ticks;
    /* A session's events or paravirtual counters: the guest's virtual PMU
     * alone (the VCPU counts for it with no event) is no session. */
    bool session = v->pmu.ctx.count > 0 || v->pmu.pv.count > 0;
    if (!v->pmu.counting || !session)
        return -VERTIGO_EINVAL;
    uint64_t previous = v->pmu.user_step_ticks ? v->pmu.user_step_ticks : dflt;
    v->pmu.user_step_ticks = ticks;
    soft_of(&v->pmu)->config.step_ticks = dflt;     /* the next entry chooses */
    return (int64_t)(previous & (uint64_t)INT64_MAX);
}

const struct run_part pmu_soft_run_part = {
    .program_begin = NULL,
    .program_end = NULL,
    .programmed = programmed,
    .before_entry = before_entry,
    .after_exit = after_exit,
    .emulated_instruction = emulated_instruction,
    .domain_end = domain_end,
    .report = report,
    .guest_step = guest_step,
};
