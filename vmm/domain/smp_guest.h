/* A guest's application processors: Vertigo emulates the INIT and SIPI
 * IPIs a guest sends to start its CPUs (a real INIT must never reach a CPU
 * in VMX operation). Each physical AP waits in root mode until the guest's
 * SIPI arrives for its VCPU, then enters the guest in real mode at the
 * SIPI vector (SDM Vol. 3A, 9.4.4 "MP Initialization Example"); an AP with
 * another domain's VCPU (dom.N.cpu=) runs that one meanwhile, and its
 * scheduler (vmx/vmx_sched.c) starts domain 0's VCPU when the SIPI has
 * come. The idle loop itself, vcpu_ap_idle, is an entry hook of
 * boot/start.h. */
#ifndef VMM_SMP_GUEST_H
#define VMM_SMP_GUEST_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/loader/linux_boot.h"
#include "vmm/vcpu.h"

/* Makes `v` the VCPU physical CPU v->cpu will run when it is started. */
void vcpu_ap_assign(struct vcpu *v);

/* The guest sent INIT (assert) / STARTUP to the CPU with APIC ID
 * `apic_id`. Unknown IDs and the sender itself are ignored. */
void vcpu_signal_init(struct domain *d, uint32_t apic_id);
void vcpu_signal_sipi(struct domain *d, uint32_t apic_id, uint8_t vector);

/* Domain 0's boot VCPU has started (its VMCS and the PMU's configuration
 * are set up, the other domains built): an AP whose CPU has another
 * domain's VCPU may run that one while it waits for its SIPI. */
void vcpu_aps_may_run_domains(void);

/* The SIPI for CPU `cpu`'s VCPU of domain 0 has come: true once, with the
 * VCPU's start state in *st (that VCPU no longer waits_for_sipi). */
bool vcpu_ap_sipi_taken(unsigned int cpu, struct linux_boot_state *st);

/* The architectural state after INIT + SIPI with `vector` (real mode,
 * CS = vector << 8, RIP = 0; SDM Vol. 3A, 10.1.1 table 10-1). */
void vcpu_sipi_state(uint8_t vector, struct linux_boot_state *st);

#endif
