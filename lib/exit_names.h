/* VM-exit reasons (the basic reason numbers, SDM Vol. 3D Appendix C) and
 * their human-readable names: the architecture's vocabulary of exits, used by exit statistics, exit
 * dumps, the checked VMX-instruction wrappers and the software events
 * that count exits by reason (pmu/backend/swevents.c), so it sits in the
 * library floor, like the MSR numbers. */
#ifndef LIB_EXIT_NAMES_H
#define LIB_EXIT_NAMES_H

#include <stdint.h>

/* Basic exit reasons: bits 15:0 of the exit-reason field (SDM Vol. 3C
 * 28.2.1). */
#define EXIT_REASON_BASIC_MASK          0xffffu

enum vmx_exit_reason {
    EXIT_REASON_EXCEPTION_NMI           = 0,
    EXIT_REASON_EXTERNAL_INTERRUPT      = 1,
    EXIT_REASON_TRIPLE_FAULT            = 2,
    EXIT_REASON_INIT_SIGNAL             = 3,
    EXIT_REASON_SIPI                    = 4,
    EXIT_REASON_IO_SMI                  = 5,
    EXIT_REASON_OTHER_SMI               = 6,
    EXIT_REASON_INTERRUPT_WINDOW        = 7,
    EXIT_REASON_NMI_WINDOW              = 8,
    EXIT_REASON_TASK_SWITCH             = 9,
    EXIT_REASON_CPUID                   = 10,
    EXIT_REASON_GETSEC                  = 11,
    EXIT_REASON_HLT                     = 12,
    EXIT_REASON_INVD                    = 13,
    EXIT_REASON_INVLPG                  = 14,
    EXIT_REASON_RDPMC                   = 15,
    EXIT_REASON_RDTSC                   = 16,
    EXIT_REASON_RSM                     = 17,
    EXIT_REASON_VMCALL                  = 18,
    EXIT_REASON_VMCLEAR                 = 19,
    EXIT_REASON_VMLAUNCH                = 20,
    EXIT_REASON_VMPTRLD                 = 21,
    EXIT_REASON_VMPTRST                 = 22,
    EXIT_REASON_VMREAD                  = 23,
    EXIT_REASON_VMRESUME                = 24,
    EXIT_REASON_VMWRITE                 = 25,
    EXIT_REASON_VMXOFF                  = 26,
    EXIT_REASON_VMXON                   = 27,
    EXIT_REASON_CR_ACCESS               = 28,
    EXIT_REASON_MOV_DR                  = 29,
    EXIT_REASON_IO_INSTRUCTION          = 30,
    EXIT_REASON_RDMSR                   = 31,
    EXIT_REASON_WRMSR                   = 32,
    EXIT_REASON_ENTRY_INVALID_GUEST     = 33,
    EXIT_REASON_ENTRY_MSR_LOADING       = 34,
    EXIT_REASON_MWAIT                   = 36,
    EXIT_REASON_MONITOR_TRAP_FLAG       = 37,
    EXIT_REASON_MONITOR                 = 39,
    EXIT_REASON_PAUSE                   = 40,
    EXIT_REASON_ENTRY_MACHINE_CHECK     = 41,
    EXIT_REASON_TPR_BELOW_THRESHOLD     = 43,
    EXIT_REASON_APIC_ACCESS             = 44,
    EXIT_REASON_VIRTUALIZED_EOI         = 45,
    EXIT_REASON_GDTR_IDTR_ACCESS        = 46,
    EXIT_REASON_LDTR_TR_ACCESS          = 47,
    EXIT_REASON_EPT_VIOLATION           = 48,
    EXIT_REASON_EPT_MISCONFIG           = 49,
    EXIT_REASON_INVEPT                  = 50,
    EXIT_REASON_RDTSCP                  = 51,
    EXIT_REASON_PREEMPTION_TIMER        = 52,
    EXIT_REASON_INVVPID                 = 53,
    EXIT_REASON_WBINVD                  = 54,
    EXIT_REASON_XSETBV                  = 55,
    EXIT_REASON_APIC_WRITE              = 56,
    EXIT_REASON_RDRAND                  = 57,
    EXIT_REASON_INVPCID                 = 58,
    EXIT_REASON_VMFUNC                  = 59,
    EXIT_REASON_ENCLS                   = 60,
    EXIT_REASON_RDSEED                  = 61,
    EXIT_REASON_PML_FULL                = 62,
    EXIT_REASON_XSAVES                  = 63,
    EXIT_REASON_XRSTORS                 = 64,
    EXIT_REASON_PCONFIG                 = 65,
    EXIT_REASON_SPP_EVENT               = 66,
    EXIT_REASON_UMWAIT                  = 67,
    EXIT_REASON_TPAUSE                  = 68,
    EXIT_REASON_LOADIWKEY               = 69,
    EXIT_REASON_ENCLV                   = 70,
    EXIT_REASON_ENQCMD_PASID_FAIL       = 72,
    EXIT_REASON_ENQCMDS_PASID_FAIL      = 73,
    EXIT_REASON_BUS_LOCK                = 74,
    EXIT_REASON_INSTRUCTION_TIMEOUT     = 75,
    EXIT_REASON_SEAMCALL                = 76,
    EXIT_REASON_TDCALL                  = 77,
    EXIT_REASON_COUNT                   = 78,   /* one past the highest known reason */
};

/* Name of a basic exit reason (SDM Vol. 3D Appendix C), e.g. "CPUID" for
 * 10. Only bits 15:0 of reason are looked at, so a full exit-reason field
 * may be passed. Never NULL: unknown or reserved numbers give "unknown". */
const char *vmx_exit_reason_name(uint32_t reason);

#endif
