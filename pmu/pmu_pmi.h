/* The PMI: how an overflow reaches the NMI path, for both backends.
 *
 * The software backend finds an overflow at a VM exit (the guest stopped
 * exactly at it) and raises the PMI itself: it marks the overflowed
 * counters pending on this CPU and sends this CPU a real NMI (physical
 * destination = its own APIC ID: Bochs drops the "self" shorthand for
 * NMIs). Timer sampling raises it the same way. The hardware backend's
 * counters raise it through the local APIC's LVTPC, which Vertigo points
 * at NMI delivery (SDM Vol. 3B 20.2.1-20.2.4; Vol. 3A 11.5.1 "Local Vector
 * Table"); the overflowed counters are then read from GLOBAL_STATUS.
 * Either way the NMI path (pmu/sample_nmi.c) takes the overflows with
 * pmu_pmi_take. */
#ifndef PMU_PMU_PMI_H
#define PMU_PMU_PMI_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/pmu_cpu.h"
#include "vmm/vcpu.h"

/* Exit path: marks mask pending on this CPU (bit i: counters[i] of its
 * VCPU's context; PMU_PENDING_TIMER: a timer sample) and sends the NMI. */
void pmu_pmi_raise(uint32_t mask);

/* Makes every other running VCPU of self's domain exit soon (an NMI that
 * its CPU recognises as a kick), so it applies a new session. */
void pmu_pmi_kick_others(const struct vcpu *self);

/* Exit path, hardware backend, after v's context was loaded on its CPU:
 * takes LVTPC for Vertigo and points it at NMI delivery, unmasked. Does
 * nothing on the software backend. */
void pmu_pmi_arm(struct vcpu *v);

/* NMI context on c's CPU: returns and clears the kick mark (another CPU's
 * NMI asking this VCPU to apply a new session). */
static inline bool pmu_pmi_take_kick(struct pmu_cpu *c)
{
    return __atomic_exchange_n(&c->kick, 0u, __ATOMIC_SEQ_CST) != 0;
}

/* NMI context, hardware backend counting on v (v runs on this CPU): the
 * sampling counters that overflowed (GLOBAL_STATUS), re-armed, with
 * LVTPC unmasked again. *handled: some counter overflowed at all (a PMI of
 * counting-only counters is Vertigo's too, with nothing to sample). */
uint32_t pmu_pmi_hw_overflows(struct vcpu *v, bool *handled);

/* NMI context on c's CPU: the overflows this NMI carries, for c's VCPU v
 * (NULL: none runs): the pending software and timer overflows and, on the
 * hardware backend, pmu_pmi_hw_overflows. Inline, with the software
 * backend's NMIs (the common case in Bochs) done after the exchange. */
static inline uint32_t pmu_pmi_take(struct pmu_cpu *c, struct vcpu *v, bool *handled)
{
    uint32_t mask = __atomic_exchange_n(&c->pending, 0u, __ATOMIC_SEQ_CST);
    *handled = false;
    if (!v || !v->pmu.counting || v->pmu.be.ops != &pmu_hw_ops)
        return mask;
    return mask | pmu_pmi_hw_overflows(v, handled);
}

#endif
