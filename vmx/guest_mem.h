/* Reading guest memory from exit handlers: guest-physical reads checked
 * against the domain's EPT (never Vertigo's memory), and guest-virtual
 * reads through the guest's current page tables. */
#ifndef VMX_GUEST_MEM_H
#define VMX_GUEST_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vcpu;

/* Copies len bytes from guest-physical gpa; false if any byte is not
 * readable guest memory. */
bool guest_phys_read(struct vcpu *v, uint64_t gpa, void *buf, size_t len);

/* Copies len bytes from guest-virtual gva (current CR3); false if any byte
 * is not mapped. Matches guest_read_fn (vmm/hypercall.h) with ctx = vcpu. */
bool guest_virt_read(void *vcpu, uint64_t gva, void *buf, size_t len);

#endif
