/* Time-sharing a physical CPU between VCPUs of different domains: the
 * VMCS switch and the VT-x side of the policy in vmm/domain/sched.h.
 *
 * A CPU with one VCPU (every CPU when no dom.N= is declared) never does
 * anything here but test one per-CPU flag after each exit. When VCPUs
 * share a CPU:
 *   - a slice ends when the VCPU used sched.slice= of guest time (the
 *     shared preemption timer's VMX_TIMER_SLICE deadline);
 *   - domain 0's HLT exits, and domain 0 halted with nothing pending gives
 *     up the CPU; when every VCPU of the CPU is halted, domain 0 is
 *     resumed halted, so the CPU idles in its HLT until an interrupt;
 *   - the other domains' VMCS have external-interrupt exiting with
 *     acknowledge-on-exit: each vector taken waits for domain 0's VCPU of
 *     that CPU (vmm/domain/irq_pending.h), which becomes runnable and gets them,
 *     highest first, at its next entries (interrupt-window exits while it
 *     cannot take them);
 *   - a switch: pmu_vcpu_switch_out(from), the syscall MSRs the VMCS does
 *     not hold (STAR, LSTAR, CSTAR, SFMASK, KERNEL_GS_BASE, TSC_AUX)
 *     saved, VMPTRLD of the next VMCS, those MSRs written where the two
 *     VCPUs' values differ, pmu_vcpu_switch_in(to); counted per VCPU in
 *     its exit statistics (switches in, TSC cycles). */
#ifndef VMX_VMX_SCHED_H
#define VMX_VMX_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/vcpu.h"
#include "vmm/vmx_hooks.h"

/* vmx_sched_add, vmx_sched_set_slice and vmx_sched_domain_ended: the
 * core's hooks (vmm/vmx_hooks.h). */

/* Before each entry, with the other injections and before the PMU plans
 * the entry: one of domain 0's vectors taken while another domain ran is
 * injected into domain 0 if it can take it (else an interrupt-window
 * exit). Every event the entry delivers must be decided before the PMU
 * plans its run (pmu/pmu_loop.h), whose mode it decides. */
void vmx_sched_inject(struct vcpu *v);

/* Before each entry, after the PMU and the mode traps armed it: the
 * controls a shared CPU needs whatever the mode traps chose, the slice and
 * the wake-up deadlines. */
void vmx_sched_before_entry(struct vcpu *v);

/* v starts on its CPU (its first entry; vmx_vcpu_start):
 * it is the one its CPU's list runs. */
void vmx_sched_started(struct vcpu *v);

/* After each handled exit: the VCPU to enter next (v, or another VCPU of
 * this CPU whose VMCS is now current). */
struct vcpu *vmx_sched_after_exit(struct vcpu *v);

/* v executed HLT with nothing to deliver: it gives up the CPU until
 * `wake_tsc` (UINT64_MAX: until woken otherwise) and is runnable again at
 * the first exit of its CPU past that TSC; the VCPU running then is made
 * to exit by it. */
void vmx_sched_sleep(struct vcpu *v, uint64_t wake_tsc);

/* Another VCPU of t's domain posted t an interrupt (vmx/exit_vhw_msr.c):
 * t's CPU looks at its VCPUs at its next exit (a halted t wakes), which
 * comes at once: a kick if it is another CPU, and the entry being
 * committed exits too. */
void vmx_sched_ipi_posted(const struct vcpu *t);

/* Whether physical CPU `cpu` must exit at once to look at its VCPUs (an
 * interrupt posted, a domain ended); true once (the caller makes the exit
 * happen). On that CPU, normal or NMI context. */
bool vmx_sched_take_exit_wanted(unsigned int cpu);

/* An external-interrupt exit of a domain other than domain 0: the vector
 * goes to domain 0's VCPU of this CPU. */
void vmx_sched_forward_interrupt(struct vcpu *v);

/* NMIs for the guest (not Vertigo's own) taken while v, a domain other
 * than domain 0, ran: they are domain 0's, for its VCPU of this CPU. */
void vmx_sched_give_nmis(struct vcpu *v, uint32_t count);

#endif
