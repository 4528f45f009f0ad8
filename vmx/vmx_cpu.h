/* VMX operation on a physical CPU, and the control settings every VMCS
 * uses (computed once from the capability MSRs). */
#ifndef VMX_VMX_CPU_H
#define VMX_VMX_CPU_H

#include <stdbool.h>

#include "vmx/vmx_caps.h"

struct vmx_config {
    struct vmx_cap_msrs caps;
    struct vmx_ept_caps ept;
    struct vmx_controls ctl;        /* values at VCPU start */
    uint32_t pin_available;         /* pin-based controls Vertigo may turn on */
    uint32_t proc_available;        /* primary processor-based controls likewise */
    uint32_t exit_available;        /* exit controls likewise ("save VMX-
                                     * preemption timer value" goes with the timer) */
    uint64_t cr0_guest_host_mask;
    uint64_t cr4_guest_host_mask;
};

extern struct vmx_config vmx_config;

/* Reads the capabilities and computes the controls. On a missing required
 * feature prints which one and returns false. */
bool vmx_config_init(void);

/* Sets CR0/CR4 to VMX-compatible values, executes VMXON on this CPU with a
 * region from the heap. Returns false (with a message) on failure. */
bool vmx_cpu_enable(void);

#endif
