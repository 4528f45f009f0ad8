/* VT-x side of building a domain: EPT and the MSR/I/O bitmaps. */
#ifndef VMX_VMX_DOMAIN_H
#define VMX_VMX_DOMAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "vmm/loader/e820.h"
#include "vmm/loader/linux_boot.h"
#include "vmm/vcpu.h"
#include "vmm/vmx_hooks.h"

/* vmx_domain_init, vmx_domain_init_private and vmx_vcpu_run: the core's
 * hooks (vmm/vmx_hooks.h). */

/* Sets up v's VMCS (current afterwards), preemption timer and PMU state
 * for its first entry, on the CPU it runs on. */
void vmx_vcpu_start(struct vcpu *v, const struct linux_boot_state *start);

/* Enters v (its VMCS current) and handles its exits, for as long as this
 * CPU runs VCPUs (the scheduler may switch to another). */
__attribute__((noreturn)) void vmx_vcpu_loop(struct vcpu *v);

#endif
