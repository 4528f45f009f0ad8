/* The hardware backend's part in the counting session in the VM-exit loop
 * (pmu/run/run_part.h): before each entry the GLOBAL_CTRL values of the
 * entry and exit controls, with each feature's counters placed (a
 * multiplexing session's live set and clock, the paravirtual counters,
 * the guest's virtual PMU); after each exit their counts read back. The
 * counters count by themselves: no run is measured, no mode trapped, and
 * the PMI comes from LVTPC (pmu/run/pmu_pmi.h). */
#include "pmu/hw/hw_run.h"

#include "pmu/hw/pmu_mux_hw.h"
#include "pmu/hw/pmu_pv_hw.h"
#include "pmu/mux/pmu_mux.h"
#include "pmu/pmu_arch.h"
#include "pmu/run/pmu_config.h"
#include "pmu/run/pmu_run.h"
#include "pmu/vpmu/pmu_guest.h"

/* An interval session's counters survive the backend's re-init. */
static void program_begin(struct vcpu *v)
{
    pmu_mux_hw_save(v);
}

static void program_end(struct vcpu *v)
{
    pmu_mux_hw_load(v);
}

static void programmed(struct vcpu *v)
{
    pmu_run_set_traps(v, false, false);
}

/* A session that ended must not leave hardware counters enabled by the
 * last GLOBAL_CTRL values of the entry controls. */
static void plan_idle(struct vcpu *v)
{
    pmu_run_plan_idle(v);
    struct pmu_entry_plan off = { 0 };
    pmu_arch_entry_plan(v, &off);
}

static void before_entry(struct vcpu *v)
{
    struct vcpu_pmu *p = &v->pmu;
    if (!p->counting) {
        plan_idle(v);
        return;
    }
    p->entered_halted = pmu_arch_guest_halted(v);
    unsigned int cpl = pmu_arch_guest_cpl(v);
    struct pmu_entry_plan plan;
    p->be.ops->enter(p->be.self, &p->ctx, cpl, &plan);
    pmu_mux_hw_enter(v, &plan);
    pmu_pv_hw_enter(v, &plan, cpl);
    pmu_guest_hw_enter(v, &plan);
    pmu_arch_entry_plan(v, &plan);
}

static void after_exit(struct vcpu *v, uint64_t guest_ticks)
{
    struct vcpu_pmu *p = &v->pmu;
    p->exit_cpl = (uint8_t)pmu_arch_guest_cpl(v);
    if (!p->counting)
        return;
    pmu_pv_hw_exit(v);
    pmu_guest_hw_exit(v);
    if (p->be.ops->exit(p->be.self, &p->ctx, guest_ticks))
        pmu_run_take_overflows(v, p->be.ops->overflow(p->be.self, &p->ctx));
    pmu_mux_hw_exit(v);     /* the clock's wrap ends turns, before its PMI's NMI */
}

static void emulated_instruction(struct vcpu *v)
{
    struct vcpu_pmu *p = &v->pmu;
    pmu_run_emulated_counts(v);
    p->be.ops->emulated_instruction(p->be.self, &p->ctx, p->exit_cpl);
    if (p->ctx.overflow_pending)
        pmu_run_take_overflows(v, p->be.ops->overflow(p->be.self, &p->ctx));
    if (pmu_config.tsc_counts_instructions)
        pmu_mux_retired(v, 1);
    else
        pmu_mux_hw_emulated(v);
}

const struct run_part pmu_hw_run_part = {
    .program_begin = program_begin,
    .program_end = program_end,
    .programmed = programmed,
    .before_entry = before_entry,
    .after_exit = after_exit,
    .emulated_instruction = emulated_instruction,
    .domain_end = NULL,
    .report = NULL,
    .guest_step = NULL,
};
