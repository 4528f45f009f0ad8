/* The table of VM-exit reason names (SDM Vol. 3D Appendix C); see
 * lib/exit_names.h. */
#include "lib/exit_names.h"

#include <stddef.h>


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


const char *vmx_exit_reason_name(uint32_t reason)
{
    uint32_t basic = reason & EXIT_REASON_BASIC_MASK;

    if (basic >= ARRAY_LEN(exit_reason_names) || exit_reason_names[basic] == NULL)
        return "unknown";
    return exit_reason_names[basic];
}
