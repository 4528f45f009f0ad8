/* Sampling sessions in the VM-exit loop and the NMI paths (issue 6; the
 * path of one sample is docs/architecture.md, "How a sample travels").
 *
 * A session samples either PMU events every `period` events (overflows
 * of the counters vmx/vmx_pmu.c programs) or guest time at a frequency
 * (the shared VMX-preemption timer). Either way the sample is taken by a
 * PMI that is a real NMI: the software backend and the timer raise a
 * self-NMI (vmx_sample_raise), the hardware backend's LVTPC delivers one.
 * The NMI lands in the guest (NMI VM exit: vmx_sample_nmi_exit) or in
 * Vertigo (vmm/nmi.c: vmx_sample_nmi_root); a per-CPU pending mask (and
 * GLOBAL_STATUS on hardware) says whether it is Vertigo's. Vertigo's NMIs
 * write one sample record per overflowed event from NMI context; the
 * others go to the guest as virtual NMIs.
 *
 * Sessions start from the hypervisor command line
 *   sample.events=LIST sample.period=N [sample.depth=D]   event sampling
 *   sample.hz=H [sample.depth=D]                          timer sampling
 * or from the guest kernel (VERTIGO_HC_SESSION_START/STOP), and stop at
 * the end of the domain. */
#ifndef VMX_SAMPLE_H
#define VMX_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/traps.h"
#include "vmm/hypercall.h"
#include "vmm/vcpu.h"

#define SAMPLE_PENDING_TIMER  (1u << 31)    /* percpu sample_pending: timer sample */
#define SAMPLE_EVENT_TIMER    255u          /* event id of timer samples in the log */

/* Once per VCPU after vmx_pmu_vcpu_start: makes v this CPU's sampled VCPU;
 * the first call reads the command-line session. */
void vmx_sample_vcpu_start(struct vcpu *v);

/* Before each entry, before vmx_pmu_before_entry: applies a session that
 * started or stopped since v last ran. */
void vmx_sample_before_entry(struct vcpu *v);

/* After each exit, after vmx_pmu_after_exit: a timer sample is due when
 * the sampling deadline passed. */
void vmx_sample_after_exit(struct vcpu *v);

/* The PMI of the software backend and of the timer: marks `mask` pending
 * on this CPU and sends this CPU an NMI (physical destination = own APIC
 * ID: Bochs drops the self shorthand for NMIs, PLATFORM.md). */
void vmx_sample_raise(struct vcpu *v, uint32_t mask);

/* NMI VM exit of v (NMIs already unblocked in root): true if the NMI was
 * Vertigo's (samples written), false if it is the guest's. */
bool vmx_sample_nmi_exit(struct vcpu *v);

/* NMI taken in root mode (NMI context): writes samples if it was Vertigo's
 * (guest state of this CPU's VCPU, or Vertigo's RIP from the frame when
 * the sampled context counts the hypervisor), queues it for this CPU's
 * VCPU if it is the guest's; false if it is neither (spurious). */
bool vmx_sample_nmi_root(const struct trap_frame *frame);

/* The sampling hypercalls for v (HC_SESSION_START/STOP, HC_SYMBOLS). */
const struct hypercall_sampling *vmx_sample_hypercalls(struct vcpu *v);

/* End of the domain: stops the session, prints and logs the per-CPU
 * sampling statistics. */
void vmx_sample_report(const struct domain *d);

/* A hypervisor sample for the counters in mask of this CPU's VCPU: an
 * overflow the single-stepper found at Vertigo's `rip` (vmx/vmx_pmu_step.c),
 * with Vertigo's call stack from frame pointer rbp (0: none) when the
 * session records stacks. Safe in trap and NMI context. */
void vmx_sample_hypervisor_step(uint64_t rip, uint64_t rbp, uint32_t mask);

#endif
