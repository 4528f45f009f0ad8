/* A guest's application processors: Vertigo emulates the INIT and SIPI
 * IPIs a guest sends to start its CPUs (a real INIT must never reach a CPU
 * in VMX operation), for domain 0 and for a domain with several VCPUs
 * (dom.N.vcpus=) alike. Each AP VCPU waits (halted in its CPU's
 * scheduler) until its domain's SIPI arrives, then enters the guest in
 * real mode at the SIPI vector (SDM Vol. 3A, 9.4.4 "MP Initialization
 * Example"). A physical AP that has no VCPU to run yet waits in root mode
 * (vcpu_ap_idle, an entry hook of boot/start.h) for the first of: domain
 * 0's SIPI for its VCPU there, another domain's first VCPU placed there,
 * or another domain's AP VCPU there whose SIPI came; once it runs one,
 * its scheduler (vmx/vmx_sched.c) starts the others as their SIPIs come. */
#ifndef VMM_SMP_GUEST_H
#define VMM_SMP_GUEST_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/loader/linux_boot.h"
#include "vmm/vcpu.h"

/* Makes `v` (an AP of domain 0) the VCPU physical CPU v->cpu waits for. */
void vcpu_ap_assign(struct vcpu *v);

/* The guest sent INIT (assert) / STARTUP to the VCPU of its domain with
 * APIC ID `apic_id`. Unknown IDs, VCPU 0 and an INIT to a VCPU already
 * started are ignored; a STARTUP counts only after an INIT. */
void vcpu_signal_init(struct domain *d, uint32_t apic_id);
void vcpu_signal_sipi(struct domain *d, uint32_t apic_id, uint8_t vector);

/* Domain 0's boot VCPU has started (its VMCS and the PMU's configuration
 * are set up, the other domains built): an AP whose CPU has another
 * domain's VCPU may run that one while it waits for its SIPI. */
void vcpu_aps_may_run_domains(void);

/* The SIPI for AP v has come: true once, and v no longer waits_for_sipi;
 * its start state is then vcpu_ap_start_state(v). Runs on v's CPU. */
bool vcpu_sipi_take(struct vcpu *v);

/* An AP's start state after its SIPI (vcpu_sipi_take). */
const struct linux_boot_state *vcpu_ap_start_state(const struct vcpu *v);

/* The architectural state after INIT + SIPI with `vector` (real mode,
 * CS = vector << 8, RIP = 0; SDM Vol. 3A, 10.1.1 table 10-1). */
void vcpu_sipi_state(uint8_t vector, struct linux_boot_state *st);

#endif
