/* Starting the application processors (before any VMXON, so a real INIT
 * never reaches a CPU in VMX operation). */
#ifndef BOOT_AP_BOOT_H
#define BOOT_AP_BOOT_H

#define AP_TRAMPOLINE_BASE   0x8000     /* SIPI vector 0x08 */
#define AP_TRAMPOLINE_VECTOR (AP_TRAMPOLINE_BASE >> 12)

#ifndef __ASSEMBLY__
#include <stdint.h>

/* Starts every CPU in apic_ids[0..count) except the calling boot CPU,
 * giving them CPU indices 1.. in that order. Returns how many CPUs are
 * online afterwards, boot CPU included. APs then wait in
 * vcpu_ap_idle(). */
unsigned int smp_start_aps(const uint32_t *apic_ids, unsigned int count);
#endif

#endif
