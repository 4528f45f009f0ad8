/* VT-x side of building a domain: EPT and the MSR/I/O bitmaps. */
#ifndef VMX_VMX_DOMAIN_H
#define VMX_VMX_DOMAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "vmm/loader/e820.h"
#include "vmm/loader/linux_boot.h"
#include "vmm/vcpu.h"

/* Builds the domain's EPT as an identity map: [0, max(4 GiB, top of the
 * map)) uncacheable (MMIO), the guest's RAM ranges write-back, and every
 * range in `hidden` (Vertigo's memory) not mapped at all. Allocates the
 * MSR and I/O bitmaps. Returns false with a message on failure. */
bool vmx_domain_init(struct domain *d, const struct e820_table *guest_map,
                     const struct phys_range *hidden, size_t hidden_count);

/* Builds a private domain's EPT: guest-physical [0, ram_bytes) to the
 * block at host-physical ram_hpa, write-back, and nothing else (any other
 * access is an EPT violation that ends the domain); MSR and I/O bitmaps
 * that make every MSR and port access exit. False with a message on
 * failure. */
bool vmx_domain_init_private(struct domain *d, uint64_t ram_hpa, uint64_t ram_bytes);

/* Runs VCPU `v` on this CPU until the guest ends (domain_end()). */
__attribute__((noreturn)) void vmx_vcpu_run(struct vcpu *v,
                                            const struct linux_boot_state *start);

/* Sets up v's VMCS (current afterwards), preemption timer and PMU state
 * for its first entry, on the CPU it runs on. */
void vmx_vcpu_start(struct vcpu *v, const struct linux_boot_state *start);

/* Enters v (its VMCS current) and handles its exits, for as long as this
 * CPU runs VCPUs (the scheduler may switch to another). */
__attribute__((noreturn)) void vmx_vcpu_loop(struct vcpu *v);

#endif
