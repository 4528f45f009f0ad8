/* A guest's application processors: Vertigo emulates the INIT and SIPI
 * IPIs a guest sends to start its CPUs (a real INIT must never reach a CPU
 * in VMX operation). Each physical AP waits in root mode until the guest's
 * SIPI arrives for its VCPU, then enters the guest in real mode at the
 * SIPI vector (SDM Vol. 3A, 9.4.4 "MP Initialization Example"). The idle
 * loop itself, vcpu_ap_idle, is an entry hook of boot/start.h. */
#ifndef VMM_SMP_GUEST_H
#define VMM_SMP_GUEST_H

#include <stdint.h>

#include "vmm/loader/linux_boot.h"
#include "vmm/vcpu.h"

/* Makes `v` the VCPU physical CPU v->cpu will run when it is started. */
void vcpu_ap_assign(struct vcpu *v);

/* The guest sent INIT (assert) / STARTUP to the CPU with APIC ID
 * `apic_id`. Unknown IDs and the sender itself are ignored. */
void vcpu_signal_init(struct domain *d, uint32_t apic_id);
void vcpu_signal_sipi(struct domain *d, uint32_t apic_id, uint8_t vector);

/* The architectural state after INIT + SIPI with `vector` (real mode,
 * CS = vector << 8, RIP = 0; SDM Vol. 3A, 10.1.1 table 10-1). */
void vcpu_sipi_state(uint8_t vector, struct linux_boot_state *st);

#endif
