/* Tables of VM-exit reason names (SDM Vol. 3D Appendix C) and
 * VM-instruction error texts (SDM Vol. 3C 31.4, table 31-1). */
#include "vmx/exit_names.h"

#include <stddef.h>

#include "vmx/vmx_defs.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const char *const exit_reason_names[EXIT_REASON_COUNT] = {
    [EXIT_REASON_EXCEPTION_NMI]           = "exception or NMI",
    [EXIT_REASON_EXTERNAL_INTERRUPT]      = "external interrupt",
    [EXIT_REASON_TRIPLE_FAULT]            = "triple fault",
    [EXIT_REASON_INIT_SIGNAL]             = "INIT signal",
    [EXIT_REASON_SIPI]                    = "SIPI",
    [EXIT_REASON_IO_SMI]                  = "I/O SMI",
    [EXIT_REASON_OTHER_SMI]               = "other SMI",
    [EXIT_REASON_INTERRUPT_WINDOW]        = "interrupt window",
    [EXIT_REASON_NMI_WINDOW]              = "NMI window",
    [EXIT_REASON_TASK_SWITCH]             = "task switch",
    [EXIT_REASON_CPUID]                   = "CPUID",
    [EXIT_REASON_GETSEC]                  = "GETSEC",
    [EXIT_REASON_HLT]                     = "HLT",
    [EXIT_REASON_INVD]                    = "INVD",
    [EXIT_REASON_INVLPG]                  = "INVLPG",
    [EXIT_REASON_RDPMC]                   = "RDPMC",
    [EXIT_REASON_RDTSC]                   = "RDTSC",
    [EXIT_REASON_RSM]                     = "RSM",
    [EXIT_REASON_VMCALL]                  = "VMCALL",
    [EXIT_REASON_VMCLEAR]                 = "VMCLEAR",
    [EXIT_REASON_VMLAUNCH]                = "VMLAUNCH",
    [EXIT_REASON_VMPTRLD]                 = "VMPTRLD",
    [EXIT_REASON_VMPTRST]                 = "VMPTRST",
    [EXIT_REASON_VMREAD]                  = "VMREAD",
    [EXIT_REASON_VMRESUME]                = "VMRESUME",
    [EXIT_REASON_VMWRITE]                 = "VMWRITE",
    [EXIT_REASON_VMXOFF]                  = "VMXOFF",
    [EXIT_REASON_VMXON]                   = "VMXON",
    [EXIT_REASON_CR_ACCESS]               = "control-register access",
    [EXIT_REASON_MOV_DR]                  = "MOV DR",
    [EXIT_REASON_IO_INSTRUCTION]          = "I/O instruction",
    [EXIT_REASON_RDMSR]                   = "RDMSR",
    [EXIT_REASON_WRMSR]                   = "WRMSR",
    [EXIT_REASON_ENTRY_INVALID_GUEST]     = "VM-entry failure: invalid guest state",
    [EXIT_REASON_ENTRY_MSR_LOADING]       = "VM-entry failure: MSR loading",
    [EXIT_REASON_MWAIT]                   = "MWAIT",
    [EXIT_REASON_MONITOR_TRAP_FLAG]       = "monitor trap flag",
    [EXIT_REASON_MONITOR]                 = "MONITOR",
    [EXIT_REASON_PAUSE]                   = "PAUSE",
    [EXIT_REASON_ENTRY_MACHINE_CHECK]     = "VM-entry failure: machine check",
    [EXIT_REASON_TPR_BELOW_THRESHOLD]     = "TPR below threshold",
    [EXIT_REASON_APIC_ACCESS]             = "APIC access",
    [EXIT_REASON_VIRTUALIZED_EOI]         = "virtualized EOI",
    [EXIT_REASON_GDTR_IDTR_ACCESS]        = "GDTR/IDTR access",
    [EXIT_REASON_LDTR_TR_ACCESS]          = "LDTR/TR access",
    [EXIT_REASON_EPT_VIOLATION]           = "EPT violation",
    [EXIT_REASON_EPT_MISCONFIG]           = "EPT misconfiguration",
    [EXIT_REASON_INVEPT]                  = "INVEPT",
    [EXIT_REASON_RDTSCP]                  = "RDTSCP",
    [EXIT_REASON_PREEMPTION_TIMER]        = "VMX-preemption timer expired",
    [EXIT_REASON_INVVPID]                 = "INVVPID",
    [EXIT_REASON_WBINVD]                  = "WBINVD/WBNOINVD",
    [EXIT_REASON_XSETBV]                  = "XSETBV",
    [EXIT_REASON_APIC_WRITE]              = "APIC write",
    [EXIT_REASON_RDRAND]                  = "RDRAND",
    [EXIT_REASON_INVPCID]                 = "INVPCID",
    [EXIT_REASON_VMFUNC]                  = "VMFUNC",
    [EXIT_REASON_ENCLS]                   = "ENCLS",
    [EXIT_REASON_RDSEED]                  = "RDSEED",
    [EXIT_REASON_PML_FULL]                = "page-modification log full",
    [EXIT_REASON_XSAVES]                  = "XSAVES",
    [EXIT_REASON_XRSTORS]                 = "XRSTORS",
    [EXIT_REASON_PCONFIG]                 = "PCONFIG",
    [EXIT_REASON_SPP_EVENT]               = "SPP-related event",
    [EXIT_REASON_UMWAIT]                  = "UMWAIT",
    [EXIT_REASON_TPAUSE]                  = "TPAUSE",
    [EXIT_REASON_LOADIWKEY]               = "LOADIWKEY",
    [EXIT_REASON_ENCLV]                   = "ENCLV",
    [EXIT_REASON_ENQCMD_PASID_FAIL]       = "ENQCMD PASID translation failure",
    [EXIT_REASON_ENQCMDS_PASID_FAIL]      = "ENQCMDS PASID translation failure",
    [EXIT_REASON_BUS_LOCK]                = "bus lock",
    [EXIT_REASON_INSTRUCTION_TIMEOUT]     = "instruction timeout",
    [EXIT_REASON_SEAMCALL]                = "SEAMCALL",
    [EXIT_REASON_TDCALL]                  = "TDCALL",
};

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

const char *vmx_exit_reason_name(uint32_t reason)
{
    uint32_t basic = reason & EXIT_REASON_BASIC_MASK;

    if (basic >= ARRAY_LEN(exit_reason_names) || exit_reason_names[basic] == NULL)
        return "unknown";
    return exit_reason_names[basic];
}

const char *vmx_instruction_error_text(uint32_t error)
{
    if (error >= ARRAY_LEN(instruction_error_texts) || instruction_error_texts[error] == NULL)
        return "unknown VM-instruction error";
    return instruction_error_texts[error];
}
