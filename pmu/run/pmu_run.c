/* The counting session in the VM-exit loop (see pmu/run/pmu_run.h and
 * docs/pmu.md "Wiring"). */
#include "pmu/run/pmu_run.h"

#include "pmu/run/pmu_config.h"
#include "pmu/run/pmu_cpu.h"
#include "pmu/vpmu/pmu_guest.h"
#include "pmu/mux/pmu_mux.h"
#include "pmu/hw/pmu_mux_hw.h"
#include "pmu/run/pmu_pmi.h"
#include "pmu/pv/pmu_pv.h"
#include "pmu/hw/pmu_pv_hw.h"
#include "pmu/soft/pmu_soft.h"
#include "pmu/soft/pmu_step.h"
#include "pmu/soft/soft_config.h"
#include "pmu/run/pmu_switch.h"
#include "lib/console.h"
#include "lib/mem.h"

/* ---- Starting a VCPU ---------------------------------------------------- */

/* Software backend: with a counter that filters by mode, every mode
 * change exits where the hardware allows (pmu_config.exact_modes), so each
 * run starts and ends in one mode; without one, only HLTs and the
 * interrupts that wake a halted guest exit, so each run is either idle or
 * guest work and no run needs a step (soft_plan_entry). Decided when a
 * context is programmed: the entry path only reads the result. */
static void choose_mode_traps(struct vcpu *v)
{
    struct vcpu_pmu *p = &v->pmu;
    bool traps = pmu_config_soft() && pmu_config.exact_modes;
    bool exact = traps &&
                 (((struct pmu_soft *)p->be.self)->steps_by_mode || pmu_guest_needs_modes(v) ||
                  pmu_pv_needs_modes(&p->pv));
    pmu_arch_mode_traps(v, exact);
    pmu_arch_halt_traps(v, traps && !exact);
    p->modes_trapped = exact;
    p->halts_trapped = traps;
    if (pmu_config_soft())
        ((struct pmu_soft *)p->be.self)->mode_exits = exact;
}

enum pmu_status pmu_run_program(struct vcpu *v, const struct pmu_event_list *list,
                                const uint64_t *periods)
{
    struct vcpu_pmu *p = &v->pmu;
    p->guest_alone = false;     /* decided again at the next entry */
    pmu_mux_hw_save(v);         /* an interval session's counters survive the re-init */
    enum pmu_status st = pmu_cpu_backend_init(v->cpu, &p->be);
    if (st != PMU_OK)
        return st;
    pmu_ctx_init(&p->ctx, list, periods);
    st = p->be.ops->program(p->be.self, &p->ctx);
    if (st == PMU_OK)
        st = p->be.ops->load(p->be.self, &p->ctx);
    pmu_mux_hw_load(v);
    if (st == PMU_OK)
        pmu_pmi_arm(v);
    /* :h counts Vertigo's time from here; before the VCPU's first exit
     * there is no exit TSC (0), and Vertigo's own boot is not the VCPU's */
    p->last_exit_tsc = pmu_arch_exit_tsc(v) ? pmu_arch_exit_tsc(v) : pmu_arch_tsc();
    p->emulated = 0;
    choose_mode_traps(v);
    return st;
}

void pmu_run_modes_changed(struct vcpu *v)
{
    if (v->pmu.counting)
        choose_mode_traps(v);
}

void pmu_run_vcpu_start(struct vcpu *v)
{
    pmu_config_ensure();        /* VCPU 0 starts before any AP's VCPU */
    /* Another VCPU's context on this CPU leaves it first: programming
     * this one re-initialises the CPU's backend. */
    struct vcpu *current = pmu_cpu_of(v->cpu)->vcpu;
    if (current && current != v && current->pmu.ctx.loaded)
        pmu_vcpu_switch_out(current);
    memset(&v->pmu, 0, sizeof(v->pmu));
    swevent_add(&v->pmu.sw, SWEVENT_VCPU_SWITCHES, 1);
    pmu_guest_start(v);
    /* The guest's virtual PMU counts the guest's runs the software
     * backend measures: it runs, with no event of its own if there is no
     * counting session. */
    if (!pmu_config.has_events && !v->pmu.vpmu.on)
        return;
    /* A session the command line asked for but that was refused (its
     * events or its multiplexing schedule) leaves its list behind: none. */
    static const struct pmu_event_list no_events;
    const struct pmu_event_list *list = pmu_config.has_events ? &pmu_config.list : &no_events;
    uint64_t periods[PMU_EVENT_LIST_MAX];
    for (unsigned int i = 0; i < PMU_EVENT_LIST_MAX; i++)
        periods[i] = pmu_config.period;
    enum pmu_status st = pmu_run_program(v, list, periods);
    if (st != PMU_OK) {
        printk("pmu: vcpu %u: no counting: %s\n", v->id, pmu_status_text(st));
        v->pmu.be.ops = NULL;
        pmu_guest_backend_failed(v, pmu_status_text(st));
        return;
    }
    v->pmu.counting = true;
    v->pmu.count_events = list->count;
    pmu_mux_vcpu_start(v);
    pmu_guest_bind_hw(v);
}

/* Only a VCPU without a counting session of its own gets here (the command
 * line gave no events: none to program, no periods). */
enum pmu_status pmu_run_start_counting(struct vcpu *v)
{
    enum pmu_status st = pmu_run_program(v, &pmu_config.list, NULL);
    if (st != PMU_OK) {
        printk("pmu: vcpu %u: no counting: %s\n", v->id, pmu_status_text(st));
        return st;
    }
    v->pmu.counting = true;
    v->pmu.count_events = pmu_config.list.count;
    return PMU_OK;
}

/* ---- Around each VM entry and exit -------------------------------------- */

/* The backend operations that run at every VM entry and exit. The
 * software backend's entry and exit are inline (pmu/soft/pmu_soft.h) and its
 * other operations are named through its constant table, which the
 * compiler (with LTO) resolves to direct calls; the hardware backend's go
 * through the VCPU's table. */
static struct pmu_soft *soft_of(struct vcpu_pmu *p)
{
    return p->be.self;
}

static uint32_t backend_exit(struct vcpu_pmu *p, uint64_t guest_ticks)
{
    if (pmu_config_soft())
        return pmu_soft_exit(soft_of(p), &p->ctx, guest_ticks);
    return p->be.ops->exit(p->be.self, &p->ctx, guest_ticks);
}

static uint32_t backend_overflow(struct vcpu_pmu *p)
{
    if (pmu_config_soft())
        return pmu_ctx_take_overflows(&p->ctx);     /* pmu_soft_ops.overflow */
    return p->be.ops->overflow(p->be.self, &p->ctx);
}

static void backend_emulated_instruction(struct vcpu_pmu *p)
{
    if (pmu_config_soft())
        pmu_soft_ops.emulated_instruction(p->be.self, &p->ctx, p->exit_cpl);
    else
        p->be.ops->emulated_instruction(p->be.self, &p->ctx, p->exit_cpl);
}

void pmu_run_count_overflows(struct vcpu *v, uint32_t mask)
{
    for (; mask; mask &= mask - 1)
        v->pmu.overflows++;
}

/* With the mode or halt traps on, a run needs no step: only the overflow
 * point, a user step the guest asked for (VERTIGO_HC_PMU_STEP, user mode
 * only) and this bound, which keeps every run measured by the timer. */
#define EXACT_RUN_MAX (1ull << 31)

/* Software without the traps (pmu.traps=off, or a CPU without the
 * controls): every entry gets a deadline, at most one step, so the halted
 * time a step may contain and the stretch of a run charged to the mode it
 * began in are bounded. A VCPU that counts nothing by mode (no event of a
 * session of Vertigo's, and the guest's virtual PMU and paravirtual
 * counters counting every mode or nothing) needs no step, only its
 * deadlines. */
static bool counts_by_mode(const struct vcpu *v)
{
    return v->pmu.ctx.count || pmu_guest_needs_modes(v) || pmu_pv_needs_modes(&v->pmu.pv);
}

static void soft_plan_entry(struct vcpu *v, unsigned int cpl)
{
    struct pmu_soft *soft = soft_of(&v->pmu);
    uint64_t step = soft->config.step_ticks;
    if (v->pmu.modes_trapped || v->pmu.halts_trapped)
        step = cpl && v->pmu.user_step_ticks ? v->pmu.user_step_ticks : EXACT_RUN_MAX;
    else if (!counts_by_mode(v))
        step = EXACT_RUN_MAX;
    uint64_t deadline = pmu_soft_enter(soft, &v->pmu.ctx, cpl);
    uint64_t guest_pmi = pmu_guest_ticks_to_pmi(v, cpl);
    uint64_t turn_end = pmu_mux_deadline(v);
    uint64_t pv_overflow = pmu_pv_events_to_overflow(&v->pmu.pv, cpl);
    deadline = guest_pmi < deadline ? guest_pmi : deadline;
    deadline = pv_overflow < deadline ? pv_overflow : deadline;
    deadline = turn_end < deadline ? turn_end : deadline;
    pmu_arch_timer_request(v, PMU_TIMER_STEP, deadline < step ? deadline : step);
}

/* The step granularity the guest can change (VERTIGO_HC_PMU_STEP) applies
 * to user mode; the kernel always runs at pmu.step, so a fine user step
 * never makes the guest's interrupt handlers crawl. Without a user step
 * the backend keeps pmu.step (set at its start and by the hypercall). */
static void soft_choose_step(struct vcpu *v, unsigned int cpl)
{
    if (!v->pmu.user_step_ticks)
        return;
    soft_of(&v->pmu)->config.step_ticks = cpl ? v->pmu.user_step_ticks
                                              : pmu_config.step_ticks;
}

/* A session that ended must not leave its expired deadline behind (every
 * entry would exit at once), nor hardware counters enabled by the last
 * GLOBAL_CTRL values of the entry controls. */
static void plan_idle(struct vcpu *v)
{
    pmu_arch_timer_cancel(v, PMU_TIMER_STEP);
    if (v->pmu.modes_trapped || v->pmu.halts_trapped) {
        pmu_arch_mode_traps(v, false);
        pmu_arch_halt_traps(v, false);
        v->pmu.modes_trapped = v->pmu.halts_trapped = false;
    }
    if (pmu_config.backend == PMU_SESSION_HW) {
        struct pmu_entry_plan off = { 0 };
        pmu_arch_entry_plan(v, &off);
    }
}

/* With the mode traps on, the run starts in the mode the entry starts it
 * in, which is the kernel's when an event is being injected. */
static unsigned int soft_entry_cpl(struct vcpu *v)
{
    return v->pmu.modes_trapped ? pmu_arch_entry_cpl(v) : pmu_arch_guest_cpl(v);
}

/* ---- The guest's virtual PMU alone ----------------------------------------
 * A VCPU that counts only for its guest's virtual PMU on the software
 * backend (no counter of a session of Vertigo's, no paravirtual counters'
 * page, no interval multiplexing, no user step), with the halt or mode
 * traps on, needs at each exit only the run's ticks added to the guest's
 * clock of the run's mode (pmu/vpmu/pmu_guest_clock.h) and at each entry only
 * the run's deadline: the next PMI point of the guest's counters, or the
 * bound that keeps every run measured by the timer. Decided at each
 * entry; whatever changes the VCPU's counting in an exit handler clears
 * it (pmu_run_program, the paravirtual page, multiplexing). */
static bool guest_alone(const struct vcpu *v)
{
    const struct vcpu_pmu *p = &v->pmu;
    return pmu_config_soft() && p->vpmu.on && p->halts_trapped && p->ctx.count == 0 &&
           !p->pv.page && !p->mux.on && !p->user_step_ticks;
}

/* The run's mode is the entry's when the mode traps are on; otherwise no
 * counter tells the modes apart, and the kernel's clock takes every run. */
static void plan_guest_alone(struct vcpu *v)
{
    struct vcpu_pmu *p = &v->pmu;
    p->entered_halted = pmu_arch_guest_halted(v);
    unsigned int cpl = p->modes_trapped ? pmu_arch_entry_cpl(v) : 0;
    p->ctx.entry_cpl = (uint8_t)cpl;
    uint64_t to_pmi = pmu_guest_ticks_to_pmi(v, cpl);
    pmu_arch_timer_request(v, PMU_TIMER_STEP, to_pmi < EXACT_RUN_MAX ? to_pmi : EXACT_RUN_MAX);
}

static void account_guest_alone(struct vcpu *v, uint64_t guest_ticks)
{
    struct vcpu_pmu *p = &v->pmu;
    p->exit_cpl = p->ctx.entry_cpl;     /* a run ends in the mode it began in */
    if (p->entered_halted)
        p->halted_ticks += guest_ticks;     /* idle: not guest work */
    else if (pmu_guest_clock_add(&p->vpmu.clock, pmu_guest_mode(p->exit_cpl), guest_ticks))
        pmu_guest_take(v);
}

static void plan_entry(struct vcpu *v)
{
    struct vcpu_pmu *p = &v->pmu;
    struct pmu_entry_plan plan;
    if (!p->counting) {
        plan_idle(v);
        return;
    }
    p->guest_alone = guest_alone(v);
    if (p->guest_alone) {
        plan_guest_alone(v);
        return;
    }
    p->entered_halted = pmu_arch_guest_halted(v);
    if (pmu_config_soft()) {
        unsigned int cpl = soft_entry_cpl(v);
        soft_choose_step(v, cpl);
        soft_plan_entry(v, cpl);
        pmu_pv_publish(&v->pmu.pv, pmu_arch_tsc(), cpl);
        return;
    }
    unsigned int cpl = pmu_arch_guest_cpl(v);
    p->be.ops->enter(p->be.self, &p->ctx, cpl, &plan);
    pmu_mux_hw_enter(v, &plan);
    pmu_pv_hw_enter(v, &plan, cpl);
    pmu_guest_hw_enter(v, &plan);
    pmu_arch_entry_plan(v, &plan);
}

/* Vertigo's time for counters with :h where it is not single-stepped
 * (counting only), at an exit: every TSC tick since the previous exit that
 * was neither the guest's run (guest_ticks, halted or not) nor a guest
 * instruction Vertigo emulated and charged to the guest's mode (whose
 * exit does not retire it: no tick of its own). So :u, :k and :h together
 * count exactly the TSC ticks of the VCPU's CPU. */
static void soft_hypervisor_time(struct vcpu *v, uint64_t guest_ticks)
{
    struct vcpu_pmu *p = &v->pmu;
    if (!p->ctx.count_hypervisor)
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

void pmu_run_before_entry(struct vcpu *v)
{
    if (v->pmu.guest_alone && guest_alone(v)) {
        plan_guest_alone(v);
        return;
    }
    bool stepping = pmu_step_armed(v);
    if (stepping)
        pmu_run_count_overflows(v, pmu_step_pause(v));
    plan_entry(v);
    if (stepping)
        pmu_run_count_overflows(v, pmu_step_resume(v, PMU_STRETCH_ENTRY));
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

/* The paravirtual counters count n events at cpl; a counter that reached
 * the overflow_at its guest wrote raises the registered interrupt at the
 * next entry (an NMI, queued as the virtual PMU's are). */
static void pv_count(struct vcpu *v, unsigned int cpl, uint64_t n)
{
    pmu_pv_count(&v->pmu.pv, cpl, n);
    if (pmu_pv_take_overflows(&v->pmu.pv))
        pmu_arch_queue_vcpu_nmi(v);
}

/* Software backend: the overflow is found here, at the exact point; the
 * sampling ones go on as a PMI (pmu/run/pmu_pmi.h). The hardware backend's
 * PMI comes from LVTPC and is taken in the NMI path. */
static void take_overflows(struct vcpu *v)
{
    struct vcpu_pmu *p = &v->pmu;
    uint32_t mask = backend_overflow(p);
    if (mask & p->sample.mask)
        pmu_pmi_raise(mask & p->sample.mask);
    pmu_run_count_overflows(v, mask);
}

/* The guest's run since the entry: its ticks to the counters (software
 * backend), overflows taken; Vertigo's time before it to :h counters
 * unless single-stepping counts it. */
static void account_guest(struct vcpu *v, uint64_t guest_ticks, bool stepping)
{
    struct vcpu_pmu *p = &v->pmu;
    p->exit_cpl = (uint8_t)pmu_arch_guest_cpl(v);
    if (!p->counting)
        return;
    if (pmu_config_soft()) {
        if (!stepping)
            soft_hypervisor_time(v, guest_ticks);
        if (p->entered_halted) {
            p->halted_ticks += guest_ticks;     /* idle: not guest work */
            guest_ticks = 0;
        }
        if (guest_ticks == 1 && !p->modes_trapped)
            correct_step_mode(v, guest_ticks);
        pmu_guest_count(v, p->ctx.entry_cpl, guest_ticks);
        pv_count(v, p->ctx.entry_cpl, guest_ticks);
    } else {
        pmu_pv_hw_exit(v);
        pmu_guest_hw_exit(v);
    }
    if (backend_exit(p, guest_ticks))
        take_overflows(v);
    if (pmu_config_soft())
        pmu_mux_retired(v, guest_ticks);
    else
        pmu_mux_hw_exit(v);     /* the clock's wrap ends turns, before its PMI's NMI */
}

void pmu_run_after_exit(struct vcpu *v, uint64_t guest_ticks)
{
    if (v->pmu.guest_alone) {
        account_guest_alone(v, guest_ticks);
        return;
    }
    bool stepping = pmu_step_armed(v);
    if (stepping)
        pmu_run_count_overflows(v, pmu_step_exit_begin(v, guest_ticks));
    account_guest(v, guest_ticks, stepping);
    if (stepping) {
        uint32_t reason = pmu_arch_exit_reason(v);
        pmu_run_count_overflows(v, pmu_step_resume(v, reason < PMU_STRETCH_EXIT_REASONS ? reason
                                                      : PMU_STRETCH_EXIT_REASONS - 1));
    }
}

void pmu_run_emulated_instruction(struct vcpu *v)
{
    struct vcpu_pmu *p = &v->pmu;
    if (p->guest_alone) {
        if (pmu_config.tsc_counts_instructions &&
            pmu_guest_clock_add(&p->vpmu.clock, pmu_guest_mode(p->exit_cpl), 1))
            pmu_guest_take(v);
        return;
    }
    p->emulated++;
    if (pmu_config.tsc_counts_instructions) {
        pmu_guest_count(v, p->exit_cpl, 1);     /* one instruction, as the backend's */
        pv_count(v, p->exit_cpl, 1);
    }
    bool stepping = pmu_step_armed(v);
    if (stepping)
        pmu_run_count_overflows(v, pmu_step_pause(v));
    backend_emulated_instruction(p);
    if (p->ctx.overflow_pending)
        take_overflows(v);
    if (pmu_config.tsc_counts_instructions)
        pmu_mux_retired(v, 1);
    else if (!pmu_config_soft())
        pmu_mux_hw_emulated(v);
    if (stepping)
        pmu_run_count_overflows(v, pmu_step_resume(v, PMU_STRETCH_AFTER_EMULATION));
}

/* ---- Questions of the NMI path and the end of the domain ------------------ */

bool pmu_run_root_pmi_is_hypervisor(const struct vcpu *v)
{
    return pmu_config.backend == PMU_SESSION_HW && v->pmu.counting &&
           v->pmu.ctx.count_hypervisor;
}

void pmu_run_domain_end(const struct domain *d)
{
    struct vcpu *self = pmu_this_cpu()->vcpu;
    if (self && pmu_step_armed(self)) {
        pmu_run_count_overflows(self, pmu_step_pause(self));
        pmu_step_arm(self, false);
    }
    for (unsigned int i = 0; i < d->vcpu_count; i++) {
        pmu_step_report(&d->vcpus[i]);
        pmu_guest_report(&d->vcpus[i]);
        pmu_mux_finish(&d->vcpus[i]);
        pmu_arch_mode_traps_report(&d->vcpus[i]);
        pmu_switch_report(&d->vcpus[i]);
    }
}

/* ---- The counting session's hypercalls (pmu/run/pmu_hypercalls.c) ------- */

int64_t pmu_run_guest_read(struct vcpu *v, uint64_t index)
{
    unsigned int n = v->pmu.counting ? v->pmu.ctx.count : 0;
    if (index == VERTIGO_PMU_EVENT_COUNT)
        return n;
    if (index >= n)
        return -VERTIGO_EINVAL;
    return (int64_t)(pmu_read_event(&v->pmu.be, &v->pmu.ctx, &v->pmu.sw, (unsigned int)index) &
                     (uint64_t)INT64_MAX);
}

int64_t pmu_run_guest_step(struct vcpu *v, uint64_t ticks)
{
    uint64_t dflt = pmu_config.step_ticks;
    /* A session's events or paravirtual counters: the guest's virtual PMU
     * alone (the VCPU counts for it with no event) is no session. */
    bool session = v->pmu.ctx.count > 0 || v->pmu.pv.count > 0;
    if (!v->pmu.counting || !session || !pmu_config_soft())
        return -VERTIGO_EINVAL;
    uint64_t previous = v->pmu.user_step_ticks ? v->pmu.user_step_ticks : dflt;
    v->pmu.user_step_ticks = ticks;
    soft_of(&v->pmu)->config.step_ticks = dflt;     /* the next entry chooses */
    return (int64_t)(previous & (uint64_t)INT64_MAX);
}
