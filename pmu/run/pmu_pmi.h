/* The PMI: how an overflow reaches the NMI path, for both backends, and
 * how an NMI is known to be Vertigo's.
 *
 * The software backend finds an overflow at a VM exit (the guest stopped
 * exactly at it) and writes its sample there, with no PMI
 * (pmu_run_record_overflows). A PMI raised in software marks its reasons
 * pending on this CPU and sends this CPU a real NMI (physical destination
 * = its own APIC ID: Bochs drops the "self" shorthand for NMIs): timer
 * sampling's, and the overflows a VCPU left pending when it was switched
 * out; another CPU kicks a CPU with an NMI too. The hardware backend's
 * counters raise it through the local APIC's LVTPC, which Vertigo points
 * at NMI delivery (SDM Vol. 3B 20.2.1-20.2.4; Vol. 3A 11.5.1 "Local
 * Vector Table"); the overflowed counters are then read from
 * GLOBAL_STATUS.
 *
 * Whose NMI: an NMI carries no source, and NMIs that arrive while one is
 * being handled merge into one (SDM Vol. 3A 6.7.1). So Vertigo keeps at
 * most one NMI of its own in flight per CPU: a sender first records its
 * reason (overflows pending, a kick) and then sends an NMI only if none of
 * Vertigo's is in flight to that CPU; otherwise its reason rides on the
 * one in flight (a merge, counted). The receiver takes the in-flight mark
 * first and its reasons after, so a reason is never left without an NMI.
 * An NMI that finds the mark is Vertigo's; one that does not is the
 * guest's. One exception is exact too: when the exit path raises a PMI
 * before the exit's own NMI is handled (Bochs keeps NMIs blocked until
 * the exit handler's IRET, so the self-NMI is still pending), the exit's
 * NMI arrived before the raise, and is Vertigo's only if one of Vertigo's
 * NMIs was in flight before it (pmu_pmi_receive_exit).
 *
 * Either way the NMI path (pmu/sample/sample_nmi.c) takes the overflows with
 * pmu_pmi_take. A hardware PMI that arrives in root mode is only noted
 * there (pmu_pmi_hw_note, no PMU MSR written): the exit path may be in
 * the middle of a counter's read-modify-write, so its overflows are taken
 * at the next safe point, before the VM entry. */
#ifndef PMU_PMU_PMI_H
#define PMU_PMU_PMI_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/run/pmu_config.h"
#include "pmu/run/pmu_cpu.h"
#include "vmm/vcpu.h"

/* How this CPU's NMIs went (pmu/sample/sample_nmi.c prints them at the end). */
struct pmu_nmi_stats {
    uint64_t sent;              /* Vertigo's NMIs sent to this CPU */
    uint64_t received;          /* ... and taken as Vertigo's */
    uint64_t merged;            /* reasons that rode on an NMI already in flight */
    uint64_t guest_before_raise;/* exit NMIs found to be the guest's although the exit
                                 * had raised a PMI (the self-NMI still pending) */
    uint64_t hw_deferred;       /* hardware PMIs in root, taken before the next entry */
};

/* Exit path: marks mask pending on this CPU (bit i: counters[i] of its
 * VCPU's context; PMU_PENDING_TIMER: a timer sample) and signals it. */
void pmu_pmi_raise(uint32_t mask);

/* Makes every other running VCPU of self's domain exit soon (an NMI that
 * its CPU recognises as a kick), so it applies a new session or drops a
 * stale EPT translation. */
void pmu_pmi_kick_others(const struct vcpu *self);

/* The same for the VCPU running on physical CPU `cpu`, if any. */
void pmu_pmi_kick_cpu(unsigned int cpu);

/* NMI context on c's CPU, an NMI taken in root mode: true if it is one of
 * Vertigo's (the in-flight mark was set), which it clears. Call before
 * taking the reasons (pending overflows, kick). */
bool pmu_pmi_receive(struct pmu_cpu *c);

/* The same for the NMI that caused the current VM exit (handled in the exit
 * path, after pmu_after_exit): if the exit path raised a PMI before this
 * point, the exit's NMI predates it and is Vertigo's only if an NMI of
 * Vertigo's was in flight before the raise. */
bool pmu_pmi_receive_exit(struct pmu_cpu *c);

/* Before every VM entry of c's CPU (normal context): the exit's raise is
 * no longer news; from now on an NMI exit may be the raised NMI itself. */
void pmu_pmi_entry(struct pmu_cpu *c);

/* v's hardware counters raised a PMI that was not taken yet: v counts on
 * the hardware backend, Vertigo owns LVTPC and it is masked (delivering a
 * PMI masks it; only the re-arm unmasks it). Reads LVTPC only. */
bool pmu_pmi_hw_delivered(struct vcpu *v);

/* NMI context on c's CPU, root mode, v the CPU's VCPU (or NULL): true if
 * the NMI is a hardware PMI not noted yet, which it notes; writes no PMU
 * register (the exit path may be in the middle of writing one). */
bool pmu_pmi_hw_note(struct pmu_cpu *c, struct vcpu *v);

/* Normal context, before the VM entry: the overflows of the noted PMI
 * (pmu_pmi_hw_overflows), 0 if none was noted. */
uint32_t pmu_pmi_hw_take_noted(struct pmu_cpu *c, struct vcpu *v);

/* When c's CPU starts running its VCPU: no NMI of Vertigo's in flight,
 * nothing noted, statistics zero. */
void pmu_pmi_cpu_start(struct pmu_cpu *c);

/* This CPU's NMI statistics. */
struct pmu_nmi_stats *pmu_pmi_stats(unsigned int cpu);

/* Exit path, hardware backend, after v's context was loaded on its CPU:
 * takes LVTPC for Vertigo and points it at NMI delivery, unmasked. Does
 * nothing on the software backend. */
void pmu_pmi_arm(struct vcpu *v);

/* NMI context on c's CPU, after pmu_pmi_receive*: returns and clears the
 * kick mark (another CPU's NMI asking this VCPU to exit). */
static inline bool pmu_pmi_take_kick(struct pmu_cpu *c)
{
    return __atomic_exchange_n(&c->kick, 0u, __ATOMIC_SEQ_CST) != 0;
}

/* Hardware backend counting on v (v runs on this CPU), outside any
 * backend operation (the exit path, or before the entry): the sampling
 * counters that overflowed (GLOBAL_STATUS), re-armed, with LVTPC
 * unmasked again; every overflow is counted in v's totals. */
uint32_t pmu_pmi_hw_overflows(struct vcpu *v);

/* Whether v (NULL: none) counts on a backend whose counters raise their
 * PMIs through LVTPC (its kind has a PMI part, pmu/run/pmi_part.h). */
static inline bool pmu_pmi_by_lvtpc(const struct vcpu *v)
{
    return v && v->pmu.counting && v->pmu.be.ops && pmu_config.kind->pmi;
}

/* After pmu_pmi_receive*, for c's VCPU v (NULL: none runs): the overflows
 * this NMI carries. If it is Vertigo's (`ours`), the pending software and
 * timer overflows; if v's hardware counters raised a PMI, theirs (which
 * writes PMU registers: not from a root NMI). *pmi: they did. Inline, with
 * the software backend's NMIs (the common case in Bochs) done first. */
static inline uint32_t pmu_pmi_take(struct pmu_cpu *c, struct vcpu *v, bool ours, bool *pmi)
{
    uint32_t mask = ours ? __atomic_exchange_n(&c->pending, 0u, __ATOMIC_SEQ_CST) : 0;
    *pmi = false;
    if (!pmu_pmi_by_lvtpc(v))
        return mask;
    *pmi = pmu_pmi_hw_delivered(v);
    return *pmi ? mask | pmu_pmi_hw_overflows(v) : mask;
}

#endif
