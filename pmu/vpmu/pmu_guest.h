/* The guest's own virtual PMU in the VM-exit loop (pmu.guest=on): its CPUID leaf, MSRs and RDPMC for the exit handlers, and the
 * guest's runs counted on it, with its PMIs injected as the guest's LVTPC
 * asks. The register semantics are pmu/vpmu/vpmu.h's. */
#ifndef PMU_PMU_GUEST_H
#define PMU_PMU_GUEST_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/backend/pmu.h"
#include "pmu/pmu_mode.h"
#include "pmu/vpmu/pmu_guest_clock.h"
#include "vmm/vcpu.h"

/* At the VCPU's start (after the configuration is read): sets its
 * virtual PMU up when pmu.guest=on and has RDPMC exit. */
void pmu_guest_start(struct vcpu *v);

/* A backend with a part in the guest's PMU (the hardware backend,
 * pmu/vpmu/vpmu_part.h), once the CPU's backend is set up: the guest's
 * counters will run on counters of its own (the hardware counters
 * Vertigo's session leaves free), and it is offered what they have. When
 * the part can offer nothing (hardware counters other than VPMU_WIDTH
 * bits wide) the guest gets no PMU (said on the console). */
void pmu_guest_bind_hw(struct vcpu *v);

/* The VCPU's backend could not start (why): the guest's virtual PMU would
 * never count, so the guest gets none (said on the console). */
void pmu_guest_backend_failed(struct vcpu *v, const char *why);

/* A backend with a part, before the entry: the guest's counting counters
 * loaded; their GLOBAL_CTRL bits are added to plan's guest value. */
void pmu_guest_hw_enter(struct vcpu *v, struct pmu_entry_plan *plan);

/* A backend with a part, after the exit: the guest's counters read back,
 * and a PMI they raised goes to the guest as the lazy count's do. */
void pmu_guest_hw_exit(struct vcpu *v);

/* True if v's virtual PMU has a counter that counts in one mode only (the
 * software backend must then see every change of mode). */
bool pmu_guest_needs_modes(const struct vcpu *v);

/* ---- The software backend, at every exit: inline ---------------------------
 * The guest's events go to its per-mode clocks (pmu/vpmu/pmu_guest_clock.h);
 * the counters take them when a PMI is due or the guest accesses a PMU
 * register. */

/* VPMU_KERNEL (0) for CPL 0 and VPMU_USER (1) for the others: the
 * backend's index (pmu_mode_of_cpl), which an entry then computes once for
 * both (it runs two or three times an exit). */
static inline enum vpmu_mode pmu_guest_mode(unsigned int cpl)
{
    _Static_assert(VPMU_KERNEL == 0 && VPMU_USER == 1, "pmu_guest_mode's arithmetic");
    return (enum vpmu_mode)pmu_mode_of_cpl(cpl);
}

/* The counters take the clocks' events now; a PMI they raise goes to the
 * guest as an NMI when its LVTPC is in NMI mode (Linux's choice); a PMI
 * for an LVTPC in another delivery mode is counted as not delivered. */
void pmu_guest_take(struct vcpu *v);

/* Guest ticks a run at privilege level cpl may last before a counter of
 * the virtual PMU raises a PMI (huge: none). */
static inline uint64_t pmu_guest_ticks_to_pmi(const struct vcpu *v, unsigned int cpl)
{
    if (!v->pmu.vpmu.on)
        return UINT64_MAX;
    return pmu_guest_clock_to_pmi(&v->pmu.vpmu.clock, pmu_guest_mode(cpl));
}

/* n guest ticks (instructions, cycles and reference cycles in Bochs) ran
 * at privilege level cpl: counted, a PMI they raise delivered
 * (pmu_guest_take). */
static inline void pmu_guest_count(struct vcpu *v, unsigned int cpl, uint64_t n)
{
    if (v->pmu.vpmu.on && pmu_guest_clock_add(&v->pmu.vpmu.clock, pmu_guest_mode(cpl), n))
        pmu_guest_take(v);
}

/* End of the domain: what v's virtual PMU delivered, if the guest used it. */
void pmu_guest_report(const struct vcpu *v);

/* The exit handlers' questions; false means #GP. */
void pmu_guest_cpuid_leaf(const struct vcpu *v, uint32_t regs[4]);
bool pmu_guest_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value);
bool pmu_guest_rdpmc(struct vcpu *v, uint32_t ecx, uint64_t *value);

/* The guest's WRMSR: its MSR number decoded once (vpmu_reg_of), then
 * asked whether the write changes nothing (vpmu_reg_write_changes_nothing:
 * it retires with nothing to take, plan, trap or log), written (false:
 * #GP), and what it can change beyond the register (vpmu_reg_role: the
 * modes its counters count, and its programmings). */
struct vpmu_reg pmu_guest_reg(const struct vcpu *v, uint32_t msr);
bool pmu_guest_write_changes_nothing(const struct vcpu *v, struct vpmu_reg reg, uint64_t value);
bool pmu_guest_write(struct vcpu *v, struct vpmu_reg reg, uint64_t value);

#endif
