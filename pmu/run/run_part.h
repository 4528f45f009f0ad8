/* A backend's part in the counting session in the VM-exit loop
 * (pmu/run/pmu_run.h), reached through the run's kind
 * (pmu/backend/pmu_kind.h): what it does before each entry and after each
 * exit of a VCPU, and for each guest instruction Vertigo emulates. The
 * software backend's (pmu/soft/soft_run.c) measures the guest's runs on
 * the VMX-preemption timer and steps Vertigo for :h; the hardware
 * backend's (pmu/hw/hw_run.c) plans GLOBAL_CTRL and places each feature's
 * counters. pmu_run.c keeps what every backend shares and the helpers
 * below, which the parts call. */
#ifndef PMU_RUN_PART_H
#define PMU_RUN_PART_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/vcpu.h"

struct run_part {
    /* Around the re-programming of v's context (the CPU's backend set up
     * again): what must survive it leaves first and comes back after
     * (the hardware backend's interval session). Each may be NULL. */
    void (*program_begin)(struct vcpu *v);
    void (*program_end)(struct vcpu *v);
    /* v's context was programmed, or what v counts by mode changed: which
     * exits the runs need (the mode and halt traps, pmu_run_set_traps). */
    void (*programmed)(struct vcpu *v);
    /* Before each VM entry of v, counting or not. */
    void (*before_entry)(struct vcpu *v);
    /* After each VM exit of v: the guest ran guest_ticks TSC ticks. */
    void (*after_exit)(struct vcpu *v, uint64_t guest_ticks);
    /* The exit handler emulated one guest instruction of v. */
    void (*emulated_instruction)(struct vcpu *v);
    /* The domain ends on this CPU, which runs self (or NULL): whatever the
     * backend runs for it stops. NULL: nothing. */
    void (*domain_end)(struct vcpu *self);
    /* The backend's end-of-run figures of v. NULL: none. */
    void (*report)(const struct vcpu *v);
    /* VERTIGO_HC_PMU_STEP: the step granularity in user mode set to ticks,
     * the previous one returned, or -VERTIGO_EINVAL. NULL: refused. */
    int64_t (*guest_step)(struct vcpu *v, uint64_t ticks);
};

/* ---- Helpers for the parts (pmu/run/pmu_run.c) ---------------------------- */

/* The longest run a deadline allows when nothing nearer is due: every
 * run stays measured by the VMX-preemption timer. */
#define PMU_RUN_TICKS_MAX (1ull << 31)

/* Whether v counts only for its guest's virtual PMU (no counter of a
 * session of Vertigo's, no paravirtual page, no multiplexing, no user
 * step) with the halt or mode traps on: then each exit needs only the
 * run's ticks on the guest's clock, each entry only the next PMI point
 * (pmu_run_plan_guest_alone). A part sets v->pmu.guest_alone from it at an
 * entry, and the entries after it take the short path on that flag alone:
 * whatever can make this false clears the flag (a program, a hypercall's
 * exit, the halt traps going off, the virtual PMU withdrawn). */
bool pmu_run_guest_alone(const struct vcpu *v);
void pmu_run_plan_guest_alone(struct vcpu *v);

/* The traps of v's next runs: every change of mode exits (modes), or
 * (halts) every HLT and the interrupt that wakes a halted guest exit; the
 * mode traps take those exits too, so halts with modes sets only the
 * mode traps (v->pmu.halts_trapped stays true then). */
void pmu_run_set_traps(struct vcpu *v, bool modes, bool halts);

/* A VCPU without a counting session: no deadline, no traps. */
void pmu_run_plan_idle(struct vcpu *v);

/* The overflows of mask found at a VM exit: the sampling ones go on as a
 * PMI (pmu/run/pmu_pmi.h), all are counted. */
void pmu_run_take_overflows(struct vcpu *v, uint32_t mask);

/* The same where the guest stopped exactly at the overflow point of this
 * exit (the software backend): the sampling ones are written at once,
 * with this exit's guest state (sample_record_at_exit), where a PMI would
 * cost an NMI's delivery, handler and return to write the same record. */
void pmu_run_record_overflows(struct vcpu *v, uint32_t mask);

/* The guest instruction Vertigo emulated, to the counts Vertigo keeps
 * for the guest (its virtual PMU, the paravirtual counters) where one TSC
 * tick is one instruction, and to :h's accounting. */
void pmu_run_emulated_counts(struct vcpu *v);

/* The paravirtual counters count n events at cpl; one that reached the
 * overflow_at its guest wrote raises the registered interrupt at the next
 * entry (an NMI, queued as the virtual PMU's are). */
void pmu_run_pv_count(struct vcpu *v, unsigned int cpl, uint64_t n);

#endif
