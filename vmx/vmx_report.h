/* The "vmx:" capability line of the platform report. */
#ifndef VMX_VMX_REPORT_H
#define VMX_VMX_REPORT_H

/* vmx_report: the core's hook (vmm/vmx_hooks.h). */
#include "vmm/vmx_hooks.h"

#endif
