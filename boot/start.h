/* The entry hooks boot/ calls into the core (implemented in vmm/): the
 * boot CPU's start-up sequence, and where an AP parks once it is up.
 * boot/ includes only lib/ and its own headers; what it calls above
 * itself is declared here and in boot/traps.h. */
#ifndef BOOT_START_H
#define BOOT_START_H

#include <stdint.h>

/* Entered from boot/ on the boot CPU with a stack, its per-CPU area and
 * descriptor tables; magic and info_phys are what the multiboot2 loader
 * passed. Runs the start-up stages and the guest; does not return. */
void vmm_start(uint32_t magic, uint64_t info_phys);

/* Runs on AP `cpu` once boot/ has brought it up (per-CPU area, traps):
 * waits in root mode, without VMX, for a VCPU to run (vmm/domain/smp_guest.c).
 * Never returns. */
__attribute__((noreturn)) void vcpu_ap_idle(unsigned int cpu);

#endif
