/* Vertigo's NMIs and the samples they write, and the samples the software
 * backend writes at the exit that finds their overflows (no NMI: the
 * guest stopped at the overflow point). A PMI (pmu/run/pmu_pmi.h) is a
 * real NMI; it lands in the guest (an NMI VM exit: sample_nmi_exit) or in
 * Vertigo (the root NMI handler: sample_nmi_root). The NMI is Vertigo's
 * when one of Vertigo's NMIs was in flight to this CPU (overflows pending,
 * a kick) or when the hardware PMU raised a PMI (LVTPC masked); Vertigo's
 * NMIs write one sample record per overflowed event, the others belong to
 * the guest. */
#ifndef PMU_SAMPLE_NMI_H
#define PMU_SAMPLE_NMI_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/traps.h"
#include "pmu/run/pmu_log_ids.h"
#include "vmm/vcpu.h"

#define SAMPLE_EVENT_TIMER PMU_LOG_ID_TIMER     /* event id of timer samples in the log */

/* NMI VM exit of v, handled in the exit path after pmu_after_exit: true
 * if the NMI was Vertigo's (samples written), false if it is the guest's
 * (pmu/run/pmu_pmi.h says how that is decided). */
bool sample_nmi_exit(struct vcpu *v);

/* NMI taken in root mode: writes samples if it was Vertigo's (guest state
 * of this CPU's VCPU, or Vertigo's RIP from the frame when the sampled
 * context counts the hypervisor), queues it for this CPU's VCPU if it is
 * the guest's; false if it is neither (spurious). */
bool sample_nmi_root(const struct trap_frame *frame);

/* Before every VM entry of v, on its CPU (vmx_prepare_entry): the exit's
 * raise is no longer news, and a hardware PMI noted in root mode has its
 * overflows taken and its samples written now. */
void sample_nmi_before_entry(struct vcpu *v);

/* The software backend's sampled overflows of v found at this VM exit
 * (normal context, v's CPU, its VMCS current): the guest stopped exactly
 * at the overflow point, so each is written here as the NMI path would
 * write it, with the guest state of this exit, without an NMI. */
void sample_record_at_exit(struct vcpu *v, uint32_t mask);

/* Prints CPU cpu's NMI statistics (one "nmi: cpu N: ..." line). */
void sample_nmi_report(unsigned int cpu);

/* A hypervisor sample for the counters in mask of this CPU's VCPU: an
 * overflow the single-stepper found at Vertigo's `rip`, with Vertigo's call
 * stack from frame pointer rbp (0: none) when the session records stacks.
 * Safe in trap and NMI context. */
void sample_hypervisor_step(uint64_t rip, uint64_t rbp, uint32_t mask);

/* A session of one process (VERTIGO_SESSION_PROCESS): from now on only
 * PMIs taken while the guest runs on page-table root cr3 (either half
 * under page-table isolation, any PCID) write samples, those of the
 * process's user code, of the kernel on its behalf and of Vertigo serving
 * it; the others are counted (sample_out_of_scope). 0: every PMI. Resets
 * the count. */
void sample_scope_set(uint64_t cr3);
uint64_t sample_out_of_scope(void);

/* Samples logged since the last reset (the current session's). */
uint64_t sample_logged(void);
void sample_logged_reset(void);

#endif
