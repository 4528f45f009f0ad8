/* The table of VM-instruction error texts (SDM Vol. 3C 31.4, table 31-1);
 * see vmx/vmx_errors.h. */
#include "vmx/vmx_errors.h"

#include <stddef.h>

#include "vmx/vmx_defs.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const char *const instruction_error_texts[VMXERR_COUNT] = {
    [0]                                  = "no error",
    [VMXERR_VMCALL_IN_ROOT]              = "VMCALL executed in VMX root operation",
    [VMXERR_VMCLEAR_INVALID_ADDR]        = "VMCLEAR with invalid physical address",
    [VMXERR_VMCLEAR_VMXON_PTR]           = "VMCLEAR with VMXON pointer",
    [VMXERR_VMLAUNCH_NONCLEAR_VMCS]      = "VMLAUNCH with non-clear VMCS",
    [VMXERR_VMRESUME_NONLAUNCHED_VMCS]   = "VMRESUME with non-launched VMCS",
    [VMXERR_VMRESUME_AFTER_VMXOFF]       = "VMRESUME after VMXOFF",
    [VMXERR_ENTRY_INVALID_CONTROLS]      = "VM entry with invalid control field(s)",
    [VMXERR_ENTRY_INVALID_HOST_STATE]    = "VM entry with invalid host-state field(s)",
    [VMXERR_VMPTRLD_INVALID_ADDR]        = "VMPTRLD with invalid physical address",
    [VMXERR_VMPTRLD_VMXON_PTR]           = "VMPTRLD with VMXON pointer",
    [VMXERR_VMPTRLD_BAD_REVISION]        = "VMPTRLD with incorrect VMCS revision identifier",
    [VMXERR_UNSUPPORTED_FIELD]           = "VMREAD/VMWRITE from/to unsupported VMCS component",
    [VMXERR_VMWRITE_READ_ONLY_FIELD]     = "VMWRITE to read-only VMCS component",
    [VMXERR_VMXON_IN_ROOT]               = "VMXON executed in VMX root operation",
    [VMXERR_ENTRY_INVALID_EXECUTIVE_VMCS] = "VM entry with invalid executive-VMCS pointer",
    [VMXERR_ENTRY_NONLAUNCHED_EXECUTIVE] = "VM entry with non-launched executive VMCS",
    [VMXERR_ENTRY_EXECUTIVE_NOT_VMXON]   = "VM entry with executive-VMCS pointer not VMXON pointer",
    [VMXERR_VMCALL_NONCLEAR_VMCS]        = "VMCALL with non-clear VMCS",
    [VMXERR_VMCALL_INVALID_EXIT_CONTROLS] = "VMCALL with invalid VM-exit control fields",
    [VMXERR_VMCALL_BAD_MSEG_REVISION]    = "VMCALL with incorrect MSEG revision identifier",
    [VMXERR_VMXOFF_DUAL_MONITOR]         = "VMXOFF under dual-monitor treatment of SMIs and SMM",
    [VMXERR_VMCALL_INVALID_SMM_FEATURES] = "VMCALL with invalid SMM-monitor features",
    [VMXERR_ENTRY_INVALID_EXECUTIVE_CTLS] = "VM entry with invalid VM-execution control fields in executive VMCS",
    [VMXERR_ENTRY_BLOCKED_BY_MOV_SS]     = "VM entry with events blocked by MOV SS",
    [VMXERR_INVALID_INVEPT_INVVPID]      = "invalid operand to INVEPT/INVVPID",
};

const char *vmx_instruction_error_text(uint32_t error)
{
    if (error >= ARRAY_LEN(instruction_error_texts) || instruction_error_texts[error] == NULL)
        return "unknown VM-instruction error";
    return instruction_error_texts[error];
}
