/* The guest's own virtual PMU in the VM-exit loop (pmu.guest=on, software
 * backend): its CPUID leaf, MSRs and RDPMC for the exit handlers, and the
 * guest's runs counted on it, with its PMIs injected as the guest's LVTPC
 * asks. The register semantics are pmu/vpmu.h's. */
#ifndef PMU_PMU_GUEST_H
#define PMU_PMU_GUEST_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/vcpu.h"

/* At the VCPU's start (after the configuration is read): sets its
 * virtual PMU up when pmu.guest=on and has RDPMC exit. */
void pmu_guest_start(struct vcpu *v);

/* True if v's virtual PMU has a counter that counts in one mode only (the
 * software backend must then see every change of mode). */
bool pmu_guest_needs_modes(const struct vcpu *v);

/* Guest ticks a run at privilege level cpl may last before a counter of
 * the virtual PMU raises a PMI (UINT64_MAX: none). */
uint64_t pmu_guest_ticks_to_pmi(const struct vcpu *v, unsigned int cpl);

/* n guest ticks (instructions, cycles and reference cycles in Bochs) ran
 * at privilege level cpl: counted, and a PMI they raise goes to the guest
 * as an NMI when its LVTPC is in NMI mode (Linux's choice); a PMI for an
 * LVTPC in another delivery mode is counted as not delivered. */
void pmu_guest_count(struct vcpu *v, unsigned int cpl, uint64_t n);

/* End of the domain: what v's virtual PMU delivered, if the guest used it. */
void pmu_guest_report(const struct vcpu *v);

/* The exit handlers' questions; false means #GP. */
void pmu_guest_cpuid_leaf(const struct vcpu *v, uint32_t regs[4]);
bool pmu_guest_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value);
bool pmu_guest_wrmsr(struct vcpu *v, uint32_t msr, uint64_t value);
bool pmu_guest_rdpmc(struct vcpu *v, uint32_t ecx, uint64_t *value);

#endif
