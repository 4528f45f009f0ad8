/* Is VT-x usable on this CPU? CPUID and IA32_FEATURE_CONTROL checks
 * (SDM Vol. 3C, 24.6 "Discovering Support for VMX" and 24.7). */
#ifndef VMX_VMX_DETECT_H
#define VMX_VMX_DETECT_H

/* vmx_detect and vmx_availability_text: the core's hooks (vmm/vmx_hooks.h). */
#include "vmm/vmx_hooks.h"

#endif
