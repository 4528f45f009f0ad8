/* Building a VCPU's VMCS: controls, host state, initial guest state. */
#ifndef VMX_VMCS_SETUP_H
#define VMX_VMCS_SETUP_H

#include <stdbool.h>

#include "vmm/loader/linux_boot.h"
#include "vmm/vcpu.h"

/* Allocates and fills the VMCS of `v` (bitmaps and EPT come from its
 * domain) with the guest starting in the state `st` describes, and makes
 * it current on this CPU. Returns false with a message on failure. */
bool vmcs_setup(struct vcpu *v, const struct linux_boot_state *st);

/* Sets the guest's CR0/CR4 from the values the guest wants, adding the
 * bits VMX needs and keeping the guest's view in the read shadows. */
void vmcs_set_guest_cr0(struct vcpu *v, uint64_t guest_value);
void vmcs_set_guest_cr4(struct vcpu *v, uint64_t guest_value);

#endif
