/* The hardware PMU's PMI on this CPU: the thin hardware side of the policy
 * in pmu/pmu_hw.h ("The PMI"). The local APIC's LVT performance-counter
 * register (LVTPC) is pointed at NMI delivery, so a counter overflow
 * arrives as an NMI exit (guest running) or in the root NMI handler
 * (Vertigo running); both reach vmx_pmu_nmi_overflows (vmx/vmx_pmu.c),
 * which takes the overflows through the backend and then calls
 * vmx_pmi_rearm. While Vertigo owns LVTPC the guest's writes to it are
 * kept in a shadow (vmx/apic_guard.h). Both hooks do nothing unless v's
 * backend is the hardware one (pmu_hw_ops). */
#ifndef VMX_VMX_PMI_H
#define VMX_VMX_PMI_H

#include <stdint.h>

#include "vmm/vcpu.h"

/* Exit path, on v's CPU, after the hardware backend loaded v's context
 * (a counting or sampling session was applied): takes this CPU's LVTPC
 * for Vertigo (apic_guard_lvtpc_claim) and programs it for NMI delivery,
 * unmasked. Calling it again (a new session) re-arms it. */
void vmx_pmi_arm(struct vcpu *v);

/* NMI context, on v's CPU, right after the backend's `overflow` took this
 * NMI's overflows: unmasks LVTPC (each delivered PMI masks it, SDM Vol. 3A
 * 11.5.1) and returns the overflows that happened while it was masked,
 * whose PMI was therefore lost (bit i: counters[i], already re-armed and
 * counted, like `overflow`'s result). 0 and no PMU access when LVTPC was
 * not masked (the NMI was not a PMI). */
uint32_t vmx_pmi_rearm(struct vcpu *v);

#endif
