/* pmu/'s front door: everything vmx/ calls in pmu/ (the portable core
 * calls it through vmm/pmu_hooks.h; tests/check-layers lets no other
 * folder include another pmu/ header, pmu/pmu_arch.h aside, the hooks
 * vmx/ implements). The calls the VT-x run loop makes, per VCPU, on the
 * VCPU's own CPU. Everything they decide is pmu/'s; the hardware
 * operations they need come back through pmu/pmu_arch.h.
 *
 *   pmu_vcpu_start         once, after the VMCS is built (the first call
 *                          also reads the PMU configuration and starts the
 *                          command line's sampling session)
 *   pmu_before_entry       before every VM entry, after every event the
 *                          entry injects is decided (NMIs, interrupts of
 *                          the mode traps, of the scheduler, of a virtual
 *                          APIC: an injected event starts the run in the
 *                          kernel, whatever the guest's CPL), before the
 *                          timer is loaded
 *   pmu_entry_timed        after the controls are committed
 *   pmu_entering           last, just before the entry's TSC is read
 *   pmu_after_exit         after every VM exit, with the guest ticks the
 *                          shared timer measured
 *   pmu_exit_handled       after the exit handler returned
 *   pmu_emulated_instruction  when the handler emulated the guest's
 *                          instruction and pmu_counts_emulation says the
 *                          counts need it
 * Without a session every call but the software-event count returns at
 * once. */
#ifndef PMU_PMU_LOOP_H
#define PMU_PMU_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/backend/swevents.h"
#include "pmu/pmu_arch.h"
#include "pmu/vpmu/pmu_guest_nmi_time.h"
#include "vmm/hypercall.h"
#include "vmm/vcpu.h"

void pmu_vcpu_start(struct vcpu *v);
void pmu_before_entry(struct vcpu *v);
void pmu_after_exit(struct vcpu *v, uint64_t guest_ticks);

/* The paravirtual counters' page takes the TSC now as the entry's
 * (pmu/pv/pmu_pv.h). Called before the run loop reads the entry's TSC, so
 * its own instructions are never in the measured run (whose entry and
 * exit path Vertigo learns as a minimum). Inline: every entry. */
static inline void pmu_entering(struct vcpu *v)
{
    if (v->pmu.pv.published)
        pmu_pv_entering(&v->pmu.pv, pmu_arch_tsc());
}

/* Before pmu_entering (the entry's TSC reads come after it): inside a
 * guest NMI handler, the guest's TSC offset for this entry. Inline: every
 * entry. */
static inline void pmu_entry_timed(struct vcpu *v)
{
    if (v->pmu.vpmu.nmi_time.hiding)
        pmu_guest_nmi_time_entered(v);
}

/* Counts the exit (its full exit reason) as a software event. */
void pmu_exit_handled(struct vcpu *v, uint32_t exit_reason);

/* True if v's counters must see the instructions exit handlers emulate
 * (CPUID, MSR, I/O, VMCALL, ...). Inline: asked after every exit. */
static inline bool pmu_counts_emulation(const struct vcpu *v)
{
    return v->pmu.counting;
}

/* The handler emulated one guest instruction (it moved RIP past it). */
void pmu_emulated_instruction(struct vcpu *v);

/* NMI VM exit of v, NMIs already unblocked in root: true if the NMI was
 * Vertigo's (a PMI or a kick), false if it is the guest's. */
bool pmu_nmi_exit(struct vcpu *v);

/* The guest's own virtual PMU (pmu.guest=on) for the exit handlers:
 * CPUID leaf 0xA (all zero without one), its MSRs and RDPMC; false means
 * the guest gets #GP. */
void pmu_exit_cpuid_leaf_0a(const struct vcpu *v, uint32_t regs[4]);
bool pmu_exit_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value);
bool pmu_exit_wrmsr(struct vcpu *v, uint32_t msr, uint64_t value);
bool pmu_exit_rdpmc(struct vcpu *v, uint32_t ecx, uint64_t *value);

/* Before every VM entry of v, on its CPU (vmx_prepare_entry): the exit's
 * raise is no longer news, and a hardware PMI noted in root mode has its
 * overflows taken and its samples written now. */
void pmu_nmi_before_entry(struct vcpu *v);

/* n NMIs of the guest's (not Vertigo's) became pending for v: counted as
 * the software event nmis:reflected. */
static inline void pmu_nmis_reflected(struct vcpu *v, uint32_t n)
{
    swevent_add(&v->pmu.sw, SWEVENT_NMIS_REFLECTED, n);
}

/* Makes every other running VCPU of self's domain exit soon (an NMI that
 * its CPU recognises as a kick), so it applies a new session or drops a
 * stale EPT translation. */
void pmu_kick_others(const struct vcpu *self);

/* Makes the VCPU running on physical CPU `cpu` exit soon (the same kick),
 * if that CPU runs one: another VCPU of its domain sent it an interrupt,
 * or its domain ended. */
void pmu_kick_cpu(unsigned int cpu);

/* VCPU switches on one physical CPU (pmu/run/pmu_switch.h): the scheduler
 * calls the two around its VMCS switch, on the CPU both VCPUs run on,
 * between the outgoing VCPU's last exit and the incoming VCPU's next
 * entry:   pmu_vcpu_switch_out(from);  ... VMPTRLD ...  pmu_vcpu_switch_in(to); */
void pmu_vcpu_switch_out(struct vcpu *from);
void pmu_vcpu_switch_in(struct vcpu *to);

#endif
