/* The counting session in the VM-exit loop (see pmu/run/pmu_run.h and
 * docs/pmu.md "Wiring"): what every backend shares; the rest is the run's
 * backend's part (pmu/run/run_part.h). */
#include "pmu/run/pmu_run.h"

#include "pmu/run/pmu_config.h"
#include "pmu/run/pmu_cpu.h"
#include "pmu/run/pmu_log_ids.h"
#include "pmu/run/run_part.h"
#include "pmu/vpmu/pmu_guest.h"
#include "pmu/mux/pmu_mux.h"
#include "pmu/mux/pmu_mux_guest.h"
#include "pmu/run/pmu_pmi.h"
#include "pmu/pv/pmu_pv.h"
#include "pmu/run/pmu_switch.h"
#include "pmu/sample/sample_nmi.h"
#include "pmu/sample/sample_session.h"
#include "lib/console.h"
#include "lib/mem.h"

/* The run's backend's part; NULL when no backend runs. */
static const struct run_part *part(void)
{
    return pmu_config.run;
}

/* ---- Starting a VCPU ---------------------------------------------------- */

enum pmu_status pmu_run_program(struct vcpu *v, const struct pmu_event_list *list,
                                const uint64_t *periods)
{
    struct vcpu_pmu *p = &v->pmu;
    uint32_t ids[PMU_CTX_MAX_COUNTERS];
    if (!pmu_log_ids_assign(v->domain->id, list, ids))
        return PMU_ERR_LOG_IDS;         /* nothing changed yet */
    p->guest_alone = false;     /* decided again at the next entry */
    const struct run_part *r = part();
    if (r && r->program_begin)
        r->program_begin(v);
    enum pmu_status st = pmu_cpu_backend_init(v->cpu, &p->be);
    if (st != PMU_OK)
        return st;
    pmu_ctx_init(&p->ctx, list, periods);
    for (unsigned int i = 0; i < list->count; i++)
        p->ctx.log_ids[i] = ids[i];
    st = p->be.ops->program(p->be.self, &p->ctx);
    if (st == PMU_OK)
        st = p->be.ops->load(p->be.self, &p->ctx);
    if (r && r->program_end)
        r->program_end(v);
    if (st == PMU_OK)
        pmu_pmi_arm(v);
    /* :h counts Vertigo's time from here; before the VCPU's first exit
     * there is no exit TSC (0), and Vertigo's own boot is not the VCPU's */
    p->last_exit_tsc = pmu_arch_exit_tsc(v) ? pmu_arch_exit_tsc(v) : pmu_arch_tsc();
    p->emulated = 0;
    if (r)
        r->programmed(v);
    return st;
}

void pmu_run_counting_changed(struct vcpu *v)
{
    sample_vcpu_counting_changed(v);
}

void pmu_run_modes_changed(struct vcpu *v)
{
    if (v->pmu.counting && part())
        part()->programmed(v);
}

void pmu_run_vcpu_start(struct vcpu *v)
{
    pmu_config_ensure();        /* VCPU 0 starts before any AP's VCPU */
    /* Another VCPU's context on this CPU leaves it first: programming
     * this one re-initialises the CPU's backend. */
    struct vcpu *current = pmu_cpu_of(v->cpu)->vcpu;
    if (current && current != v && current->pmu.ctx.loaded)
        pmu_vcpu_switch_out(current);
    pmu_mux_guest_vcpu_start(v);        /* a session of its previous boot ends */
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

void pmu_run_set_traps(struct vcpu *v, bool modes, bool halts)
{
    pmu_arch_mode_traps(v, modes);
    pmu_arch_halt_traps(v, halts && !modes);
    v->pmu.modes_trapped = modes;
    v->pmu.halts_trapped = halts;
    if (!halts)
        v->pmu.guest_alone = false;     /* the short path needs the halt traps */
}

/* A session that ended must not leave its expired deadline behind (every
 * entry would exit at once). */
void pmu_run_plan_idle(struct vcpu *v)
{
    pmu_arch_timer_cancel(v, PMU_TIMER_STEP);
    if (v->pmu.modes_trapped || v->pmu.halts_trapped)
        pmu_run_set_traps(v, false, false);
}

void pmu_run_count_overflows(struct vcpu *v, uint32_t mask)
{
    for (; mask; mask &= mask - 1)
        v->pmu.overflows++;
}

void pmu_run_take_overflows(struct vcpu *v, uint32_t mask)
{
    if (mask & v->pmu.sample.mask)
        pmu_pmi_raise(mask & v->pmu.sample.mask);
    pmu_run_count_overflows(v, mask);
}

void pmu_run_record_overflows(struct vcpu *v, uint32_t mask)
{
    if (mask & v->pmu.sample.mask)
        sample_record_at_exit(v, mask & v->pmu.sample.mask);
    pmu_run_count_overflows(v, mask);
}

void pmu_run_pv_count(struct vcpu *v, unsigned int cpl, uint64_t n)
{
    pmu_pv_count(&v->pmu.pv, cpl, n);
    if (pmu_pv_take_overflows(&v->pmu.pv))
        pmu_arch_queue_vcpu_nmi(v);
}

void pmu_run_emulated_counts(struct vcpu *v)
{
    v->pmu.emulated++;
    if (pmu_config.tsc_counts_instructions) {
        pmu_guest_count(v, v->pmu.exit_cpl, 1);     /* one instruction, as the backend's */
        pmu_run_pv_count(v, v->pmu.exit_cpl, 1);
    }
}

/* ---- The guest's virtual PMU alone ----------------------------------------
 * A VCPU that counts only for its guest's virtual PMU (no counter of a
 * session of Vertigo's, no paravirtual counters' page, no interval
 * multiplexing, no user step), with the halt or mode traps on, needs at
 * each exit only the run's ticks added to the guest's clock of the run's
 * mode (pmu/vpmu/pmu_guest_clock.h) and at each entry only the run's
 * deadline: the next PMI point of the guest's counters, or the bound that
 * keeps every run measured by the timer. The run's part decides it at an
 * entry off the short path (the software backend's, where the halt traps
 * make each run idle or guest work), and the short path's entries ask
 * only the flag: whatever changes the VCPU's counting clears it
 * (pmu_run_program, a hypercall's exit for the paravirtual page,
 * multiplexing and user steps, pmu_run_set_traps without the halt traps,
 * the virtual PMU withdrawn). The short path itself is here, inline in
 * the loop's calls. */
bool pmu_run_guest_alone(const struct vcpu *v)
{
    const struct vcpu_pmu *p = &v->pmu;
    /* a session's events first: with them, every entry asks this */
    return p->ctx.count == 0 && p->vpmu.on && p->halts_trapped && !p->pv.page && !p->mux.on &&
           !p->user_step_ticks;
}

/* The run's mode is the entry's when the mode traps are on; otherwise no
 * counter tells the modes apart, and the kernel's clock takes every run.
 * Inline in the short path's entries (pmu_run_before_entry). */
static inline void plan_guest_alone(struct vcpu *v)
{
    struct vcpu_pmu *p = &v->pmu;
    p->entered_halted = pmu_arch_guest_halted(v);
    unsigned int cpl = p->modes_trapped ? pmu_arch_entry_cpl(v) : 0;
    p->ctx.entry_cpl = (uint8_t)cpl;
    uint64_t to_pmi = pmu_guest_ticks_to_pmi(v, cpl);
    pmu_arch_timer_request(v, PMU_TIMER_STEP, to_pmi < PMU_RUN_TICKS_MAX ? to_pmi : PMU_RUN_TICKS_MAX);
}

void pmu_run_plan_guest_alone(struct vcpu *v)
{
    plan_guest_alone(v);
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

void pmu_run_before_entry(struct vcpu *v)
{
    if (v->pmu.guest_alone)
        plan_guest_alone(v);
    else if (part())
        part()->before_entry(v);
    else
        pmu_run_plan_idle(v);
}

void pmu_run_after_exit(struct vcpu *v, uint64_t guest_ticks)
{
    if (v->pmu.guest_alone)
        account_guest_alone(v, guest_ticks);
    else if (part())
        part()->after_exit(v, guest_ticks);
    else
        v->pmu.exit_cpl = (uint8_t)pmu_arch_guest_cpl(v);
}

void pmu_run_emulated_instruction(struct vcpu *v)
{
    struct vcpu_pmu *p = &v->pmu;
    if (p->guest_alone) {
        if (pmu_config.tsc_counts_instructions &&
            pmu_guest_clock_add(&p->vpmu.clock, pmu_guest_mode(p->exit_cpl), 1))
            pmu_guest_take(v);
    } else if (part())
        part()->emulated_instruction(v);
    else
        v->pmu.emulated++;
}

/* ---- Questions of the NMI path and the end of the domain ------------------ */

/* Only counters that raise a real PMI (through LVTPC) can overflow while
 * Vertigo runs; the software backend's :h overflows are found by
 * single-stepping. */
bool pmu_run_root_pmi_is_hypervisor(const struct vcpu *v)
{
    return pmu_config.kind && pmu_config.kind->pmi && v->pmu.counting &&
           v->pmu.ctx.hypervisor_mask != 0;
}

void pmu_run_domain_end(const struct domain *d)
{
    const struct run_part *r = part();
    if (r && r->domain_end)
        r->domain_end(pmu_this_cpu()->vcpu);
    for (unsigned int i = 0; i < d->vcpu_count; i++) {
        if (r && r->report)
            r->report(&d->vcpus[i]);
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
    return part() && part()->guest_step ? part()->guest_step(v, ticks) : -VERTIGO_EINVAL;
}
