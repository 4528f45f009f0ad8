/* VT-x side of building a domain: EPT and the MSR/I/O bitmaps. */
#ifndef VMX_VMX_DOMAIN_H
#define VMX_VMX_DOMAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "vmm/e820.h"
#include "vmm/linux_boot.h"
#include "vmm/vcpu.h"

/* Builds the domain's EPT as an identity map: [0, max(4 GiB, top of the
 * map)) uncacheable (MMIO), the guest's RAM ranges write-back, and every
 * range in `hidden` (Vertigo's memory) not mapped at all. Allocates the
 * MSR and I/O bitmaps. Returns false with a message on failure. */
bool vmx_domain_init(struct domain *d, const struct e820_table *guest_map,
                     const struct phys_range *hidden, size_t hidden_count);

/* Runs VCPU `v` on this CPU until the guest ends (domain_end()). */
__attribute__((noreturn)) void vmx_vcpu_run(struct vcpu *v,
                                            const struct linux_boot_state *start);

#endif
