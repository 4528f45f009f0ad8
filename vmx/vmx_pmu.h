/* The PMU in the VM-exit loop: the counting session of pmu/pmu_session.h
 * wired to VM entries and exits through the backend interface of
 * pmu/pmu.h. The loop (vmx/vmx_run.c) calls, per VCPU:
 *   vmx_pmu_vcpu_start    once, after the VMCS is built (the first call
 *                         also chooses the backend and parses the session)
 *   vmx_pmu_before_entry  before every VM entry (after vmx_prepare_entry,
 *                         before vmx_timer_arm)
 *   vmx_pmu_after_exit    after every VM exit, with the guest ticks the
 *                         shared preemption timer measured
 *   vmx_pmu_after_handler after the exit handler returned
 * Without a session every call but the software-event count returns at
 * once. */
#ifndef VMX_VMX_PMU_H
#define VMX_VMX_PMU_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/hypercall.h"
#include "vmm/vcpu.h"
#include "vmx/exit.h"

/* Sets up v's PMU state on this physical CPU and loads its context. */
void vmx_pmu_vcpu_start(struct vcpu *v);

/* Plans the next entry: VMCS IA32_PERF_GLOBAL_CTRL values (hardware) or
 * the step / overflow deadline on the shared timer (software). */
void vmx_pmu_before_entry(struct vcpu *v);

/* Accounts the guest_ticks the guest just ran to the mode they belong to. */
void vmx_pmu_after_exit(struct vcpu *v, const struct vmx_exit *e, uint64_t guest_ticks);

/* Counts the exit as a software event and applies the emulated-instruction
 * correction when the handler emulated the guest's instruction. */
void vmx_pmu_after_handler(struct vcpu *v, const struct vmx_exit *e);

/* Checks that `events` (a comma-separated list) can be sampled on this
 * run's backend next to the counting session; else false with the reason
 * in why. Chooses the backend first if no VCPU has started yet. */
bool vmx_pmu_sample_check(const char *events, char *why, unsigned int why_size);

/* Re-programs v's PMU context on this CPU to count the counting session
 * (pmu.events=, counts kept) plus `events` sampled every `period` events
 * (NULL or "": sampling off), and sets v->pmu.sample_mask. Call between
 * an exit and the next entry. False (printed) if it cannot. */
bool vmx_pmu_sampling_apply(struct vcpu *v, const char *events, uint64_t period);

/* NMI context, hardware backend: the sampling counters of v that
 * overflowed (GLOBAL_STATUS), re-armed. *handled says whether any counter
 * overflowed at all: a PMI of counting-only counters (pmu.period, or a
 * counter wrapping) is Vertigo's too, with nothing to sample. 0 and false
 * for the software backend, whose overflows arrive through
 * vmx_sample_raise. */
uint32_t vmx_pmu_nmi_overflows(struct vcpu *v, bool *handled);

/* True if a PMI taken while Vertigo runs means a counter overflowed in
 * Vertigo itself (hardware backend counting the hypervisor). The software
 * backend's self-NMIs carry guest overflows only; its hypervisor ones are
 * found by single-stepping (vmx/vmx_pmu_step.h). */
bool vmx_pmu_root_pmi_is_hypervisor(const struct vcpu *v);

/* End of the domain, on the CPU that ends it: stops single-stepping here
 * (its steps go to the counts first), then prints every VCPU's stepping
 * figures. */
void vmx_pmu_step_finish(const struct domain *d);

/* The PMU hypercalls for v (VERTIGO_HC_PMU_READ / _STEP). */
const struct hypercall_pmu *vmx_pmu_hypercalls(struct vcpu *v);

#endif
