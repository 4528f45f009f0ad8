/* VMX operation on a physical CPU, and the control settings every VMCS
 * uses (computed once from the capability MSRs). */
#ifndef VMX_VMX_CPU_H
#define VMX_VMX_CPU_H

#include <stdbool.h>

#include "vmm/vmx_hooks.h"
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

/* vmx_config_init and vmx_cpu_enable: the core's hooks (vmm/vmx_hooks.h). */

#endif
