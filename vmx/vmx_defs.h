/* VT-x architectural constants: VM-execution/exit/entry control bits,
 * capability-MSR layouts, exit reasons, exit-qualification layouts,
 * interruption-information format, VM-instruction error numbers and the
 * INVEPT/INVVPID descriptors. Numbers only; no logic.
 * References: Intel SDM Vol. 3C chapters 25-31 and Vol. 3D Appendices A, C. */
#ifndef VMX_VMX_DEFS_H
#define VMX_VMX_DEFS_H

#include <stdint.h>

#include "lib/exit_names.h"

#define VMX_BIT(n)  (1u << (n))
#define VMX_BIT64(n) (1ull << (n))

/* ---- Pin-based VM-execution controls (SDM Vol. 3C 25.6.1) ---- */
#define PIN_EXTERNAL_INTR_EXITING       VMX_BIT(0)
#define PIN_NMI_EXITING                 VMX_BIT(3)
#define PIN_VIRTUAL_NMIS                VMX_BIT(5)
#define PIN_PREEMPTION_TIMER            VMX_BIT(6)
#define PIN_POSTED_INTERRUPTS           VMX_BIT(7)

/* ---- Primary processor-based VM-execution controls (25.6.2, table 25-6) ---- */
#define PROC_INTR_WINDOW_EXITING        VMX_BIT(2)
#define PROC_TSC_OFFSETTING             VMX_BIT(3)
#define PROC_HLT_EXITING                VMX_BIT(7)
#define PROC_INVLPG_EXITING             VMX_BIT(9)
#define PROC_MWAIT_EXITING              VMX_BIT(10)
#define PROC_RDPMC_EXITING              VMX_BIT(11)
#define PROC_RDTSC_EXITING              VMX_BIT(12)
#define PROC_CR3_LOAD_EXITING           VMX_BIT(15)  /* default1 */
#define PROC_CR3_STORE_EXITING          VMX_BIT(16)  /* default1 */
#define PROC_TERTIARY_CONTROLS          VMX_BIT(17)
#define PROC_CR8_LOAD_EXITING           VMX_BIT(19)
#define PROC_CR8_STORE_EXITING          VMX_BIT(20)
#define PROC_TPR_SHADOW                 VMX_BIT(21)
#define PROC_NMI_WINDOW_EXITING         VMX_BIT(22)
#define PROC_MOV_DR_EXITING             VMX_BIT(23)
#define PROC_UNCOND_IO_EXITING          VMX_BIT(24)
#define PROC_IO_BITMAPS                 VMX_BIT(25)
#define PROC_MONITOR_TRAP_FLAG          VMX_BIT(27)
#define PROC_MSR_BITMAPS                VMX_BIT(28)
#define PROC_MONITOR_EXITING            VMX_BIT(29)
#define PROC_PAUSE_EXITING              VMX_BIT(30)
#define PROC_SECONDARY_CONTROLS         VMX_BIT(31)

/* ---- Secondary processor-based VM-execution controls (25.6.2, table 25-7) ---- */
#define PROC2_VIRT_APIC_ACCESSES        VMX_BIT(0)
#define PROC2_ENABLE_EPT                VMX_BIT(1)
#define PROC2_DESC_TABLE_EXITING        VMX_BIT(2)
#define PROC2_ENABLE_RDTSCP             VMX_BIT(3)
#define PROC2_VIRT_X2APIC_MODE          VMX_BIT(4)
#define PROC2_ENABLE_VPID               VMX_BIT(5)
#define PROC2_WBINVD_EXITING            VMX_BIT(6)
#define PROC2_UNRESTRICTED_GUEST        VMX_BIT(7)
#define PROC2_APIC_REGISTER_VIRT        VMX_BIT(8)
#define PROC2_VIRT_INTR_DELIVERY        VMX_BIT(9)
#define PROC2_PAUSE_LOOP_EXITING        VMX_BIT(10)
#define PROC2_RDRAND_EXITING            VMX_BIT(11)
#define PROC2_ENABLE_INVPCID            VMX_BIT(12)
#define PROC2_ENABLE_VMFUNC             VMX_BIT(13)
#define PROC2_VMCS_SHADOWING            VMX_BIT(14)
#define PROC2_ENCLS_EXITING             VMX_BIT(15)
#define PROC2_RDSEED_EXITING            VMX_BIT(16)
#define PROC2_ENABLE_PML                VMX_BIT(17)
#define PROC2_EPT_VIOLATION_VE          VMX_BIT(18)
#define PROC2_CONCEAL_VMX_FROM_PT       VMX_BIT(19)
#define PROC2_ENABLE_XSAVES             VMX_BIT(20)
#define PROC2_MODE_BASED_EPT_EXEC       VMX_BIT(22)
#define PROC2_SUBPAGE_WRITE_PERM        VMX_BIT(23)
#define PROC2_PT_USES_GPA               VMX_BIT(24)
#define PROC2_TSC_SCALING               VMX_BIT(25)
#define PROC2_USER_WAIT_PAUSE           VMX_BIT(26)
#define PROC2_ENCLV_EXITING             VMX_BIT(28)

/* ---- Primary VM-exit controls (25.7.1, table 25-13) ---- */
#define EXIT_SAVE_DEBUG_CONTROLS        VMX_BIT(2)   /* default1 */
#define EXIT_HOST_ADDR_SPACE_SIZE       VMX_BIT(9)
#define EXIT_LOAD_PERF_GLOBAL_CTRL      VMX_BIT(12)
#define EXIT_ACK_INTR_ON_EXIT           VMX_BIT(15)
#define EXIT_SAVE_IA32_PAT              VMX_BIT(18)
#define EXIT_LOAD_IA32_PAT              VMX_BIT(19)
#define EXIT_SAVE_IA32_EFER             VMX_BIT(20)
#define EXIT_LOAD_IA32_EFER             VMX_BIT(21)
#define EXIT_SAVE_PREEMPTION_TIMER      VMX_BIT(22)
#define EXIT_CLEAR_IA32_BNDCFGS         VMX_BIT(23)
#define EXIT_CONCEAL_VMX_FROM_PT        VMX_BIT(24)
#define EXIT_CLEAR_IA32_RTIT_CTL        VMX_BIT(25)
#define EXIT_CLEAR_IA32_LBR_CTL         VMX_BIT(26)
#define EXIT_LOAD_CET_STATE             VMX_BIT(28)
#define EXIT_LOAD_PKRS                  VMX_BIT(29)

/* ---- VM-entry controls (25.8.1, table 25-15) ---- */
#define ENTRY_LOAD_DEBUG_CONTROLS       VMX_BIT(2)   /* default1 */
#define ENTRY_IA32E_MODE_GUEST          VMX_BIT(9)
#define ENTRY_TO_SMM                    VMX_BIT(10)
#define ENTRY_DEACT_DUAL_MONITOR        VMX_BIT(11)
#define ENTRY_LOAD_PERF_GLOBAL_CTRL     VMX_BIT(13)
#define ENTRY_LOAD_IA32_PAT             VMX_BIT(14)
#define ENTRY_LOAD_IA32_EFER            VMX_BIT(15)
#define ENTRY_LOAD_IA32_BNDCFGS         VMX_BIT(16)
#define ENTRY_CONCEAL_VMX_FROM_PT       VMX_BIT(17)
#define ENTRY_LOAD_IA32_RTIT_CTL        VMX_BIT(18)
#define ENTRY_LOAD_CET_STATE            VMX_BIT(20)
#define ENTRY_LOAD_PKRS                 VMX_BIT(22)

/* ---- IA32_VMX_BASIC (SDM Vol. 3D A.1) ---- */
#define VMX_BASIC_REVISION_MASK         0x7fffffffull
#define VMX_BASIC_REGION_SIZE_SHIFT     32
#define VMX_BASIC_REGION_SIZE_MASK      0x1fffull
#define VMX_BASIC_PHYS_ADDR_32BIT       VMX_BIT64(48)
#define VMX_BASIC_DUAL_MONITOR          VMX_BIT64(49)
#define VMX_BASIC_MEMTYPE_SHIFT         50
#define VMX_BASIC_MEMTYPE_MASK          0xfull
#define VMX_BASIC_INS_OUTS_INFO         VMX_BIT64(54)
#define VMX_BASIC_TRUE_CTLS             VMX_BIT64(55)
#define VMX_BASIC_NO_ERRCODE_CHECK      VMX_BIT64(56)

/* A control capability MSR: allowed-0 settings in bits 31:0 (a 1 there
 * means the control must be 1), allowed-1 settings in bits 63:32 (a 0
 * there means the control must be 0). SDM Vol. 3D A.3-A.5. */
#define VMX_CTLS_ALLOWED1_SHIFT         32

/* ---- IA32_VMX_MISC (A.6) ---- */
#define VMX_MISC_PREEMPT_TSC_SHIFT_MASK 0x1full
#define VMX_MISC_STORE_LMA              VMX_BIT64(5)
#define VMX_MISC_ACTIVITY_HLT           VMX_BIT64(6)
#define VMX_MISC_ACTIVITY_SHUTDOWN      VMX_BIT64(7)
#define VMX_MISC_ACTIVITY_WAIT_SIPI     VMX_BIT64(8)
#define VMX_MISC_PT_IN_VMX              VMX_BIT64(14)
#define VMX_MISC_SMBASE_READ_IN_SMM     VMX_BIT64(15)
#define VMX_MISC_CR3_TARGETS_SHIFT      16
#define VMX_MISC_CR3_TARGETS_MASK       0x1ffull
#define VMX_MISC_MSR_LIST_SHIFT         25
#define VMX_MISC_MSR_LIST_MASK          0x7ull
#define VMX_MISC_MSR_LIST_UNIT          512u     /* max = 512 * (N + 1) */
#define VMX_MISC_VMWRITE_ANY_FIELD      VMX_BIT64(29)
#define VMX_MISC_INJECT_ILEN0           VMX_BIT64(30)

/* ---- IA32_VMX_EPT_VPID_CAP (A.10) ---- */
#define EPT_CAP_EXEC_ONLY               VMX_BIT64(0)
#define EPT_CAP_WALK_4                  VMX_BIT64(6)
#define EPT_CAP_WALK_5                  VMX_BIT64(7)
#define EPT_CAP_MEMTYPE_UC              VMX_BIT64(8)
#define EPT_CAP_MEMTYPE_WB              VMX_BIT64(14)
#define EPT_CAP_PAGE_2M                 VMX_BIT64(16)
#define EPT_CAP_PAGE_1G                 VMX_BIT64(17)
#define EPT_CAP_INVEPT                  VMX_BIT64(20)
#define EPT_CAP_AD_FLAGS                VMX_BIT64(21)
#define EPT_CAP_ADVANCED_EXIT_INFO      VMX_BIT64(22)
#define EPT_CAP_SUPERVISOR_SHSTK        VMX_BIT64(23)
#define EPT_CAP_INVEPT_SINGLE           VMX_BIT64(25)
#define EPT_CAP_INVEPT_ALL              VMX_BIT64(26)
#define VPID_CAP_INVVPID                VMX_BIT64(32)
#define VPID_CAP_INVVPID_ADDR           VMX_BIT64(40)
#define VPID_CAP_INVVPID_SINGLE         VMX_BIT64(41)
#define VPID_CAP_INVVPID_ALL            VMX_BIT64(42)
#define VPID_CAP_INVVPID_SINGLE_GLOBALS VMX_BIT64(43)

/* ---- IA32_VMX_VMFUNC (A.11) ---- */
#define VMFUNC_EPTP_SWITCHING           VMX_BIT64(0)

/* ---- Guest activity state (25.4.2) ---- */
enum vmx_activity_state {
    VMX_ACTIVITY_ACTIVE    = 0,
    VMX_ACTIVITY_HLT       = 1,
    VMX_ACTIVITY_SHUTDOWN  = 2,
    VMX_ACTIVITY_WAIT_SIPI = 3,
};

/* ---- Guest interruptibility state (25.4.2, table 25-3) ---- */
#define INTERRUPTIBILITY_STI            VMX_BIT(0)
#define INTERRUPTIBILITY_MOV_SS         VMX_BIT(1)
#define INTERRUPTIBILITY_SMI            VMX_BIT(2)
#define INTERRUPTIBILITY_NMI            VMX_BIT(3)
#define INTERRUPTIBILITY_ENCLAVE        VMX_BIT(4)

/* ---- Exit reason field (SDM Vol. 3C 28.2.1; basic reasons: Vol. 3D App. C) ---- */
#define EXIT_REASON_ENCLAVE_MODE        VMX_BIT(27)
#define EXIT_REASON_PENDING_MTF         VMX_BIT(28)
#define EXIT_REASON_FROM_VMX_ROOT       VMX_BIT(29)
#define EXIT_REASON_ENTRY_FAILURE       VMX_BIT(31)
/* The basic reasons (enum vmx_exit_reason, EXIT_REASON_BASIC_MASK) are
 * lib/exit_names.h's. */

/* ---- Exit qualification: control-register access (28.2.1, table 28-3) ---- */
#define CR_QUAL_CR_NUMBER(q)            ((unsigned)((q) & 0xf))
#define CR_QUAL_ACCESS_TYPE(q)          ((unsigned)(((q) >> 4) & 0x3))
#define CR_QUAL_LMSW_MEMORY             VMX_BIT64(6)
#define CR_QUAL_GPR(q)                  ((unsigned)(((q) >> 8) & 0xf))
#define CR_QUAL_LMSW_SOURCE(q)          ((unsigned)(((q) >> 16) & 0xffff))
enum cr_access_type {
    CR_ACCESS_MOV_TO_CR   = 0,
    CR_ACCESS_MOV_FROM_CR = 1,
    CR_ACCESS_CLTS        = 2,
    CR_ACCESS_LMSW        = 3,
};

/* ---- Exit qualification: I/O instruction (28.2.1, table 28-5) ---- */
#define IO_QUAL_SIZE(q)                 ((unsigned)((q) & 0x7) + 1)   /* bytes */
#define IO_QUAL_IN                      VMX_BIT64(3)
#define IO_QUAL_STRING                  VMX_BIT64(4)
#define IO_QUAL_REP                     VMX_BIT64(5)
#define IO_QUAL_IMMEDIATE               VMX_BIT64(6)
#define IO_QUAL_PORT(q)                 ((unsigned)(((q) >> 16) & 0xffff))

/* ---- Exit qualification: EPT violation (28.2.1, table 28-7) ---- */
#define EPT_QUAL_READ                   VMX_BIT64(0)
#define EPT_QUAL_WRITE                  VMX_BIT64(1)
#define EPT_QUAL_FETCH                  VMX_BIT64(2)
#define EPT_QUAL_READABLE               VMX_BIT64(3)
#define EPT_QUAL_WRITABLE               VMX_BIT64(4)
#define EPT_QUAL_EXECUTABLE             VMX_BIT64(5)
#define EPT_QUAL_USER_EXECUTABLE        VMX_BIT64(6)
#define EPT_QUAL_GLA_VALID              VMX_BIT64(7)
#define EPT_QUAL_GLA_TRANSLATED         VMX_BIT64(8)  /* 0: a paging-structure access */
#define EPT_QUAL_USER_MODE              VMX_BIT64(9)  /* advanced exit information */
#define EPT_QUAL_WRITABLE_LINEAR        VMX_BIT64(10)
#define EPT_QUAL_EXECUTE_DISABLE        VMX_BIT64(11)
#define EPT_QUAL_NMI_UNBLOCKING         VMX_BIT64(12)

/* ---- Interruption information: VM-entry, VM-exit and IDT-vectoring
 * (25.8.3 table 25-17, 28.2.2 table 28-9, 28.2.4) ---- */
#define INTR_INFO_VECTOR_MASK           0xffu
#define INTR_INFO_TYPE_SHIFT            8
#define INTR_INFO_TYPE_MASK             (0x7u << INTR_INFO_TYPE_SHIFT)
#define INTR_INFO_ERROR_CODE_VALID      VMX_BIT(11)
#define INTR_INFO_NMI_UNBLOCKING        VMX_BIT(12)   /* exit information only */
#define INTR_INFO_VALID                 VMX_BIT(31)
enum vmx_intr_type {
    INTR_TYPE_EXTERNAL       = 0,
    INTR_TYPE_NMI            = 2,
    INTR_TYPE_HW_EXCEPTION   = 3,
    INTR_TYPE_SW_INTERRUPT   = 4,
    INTR_TYPE_PRIV_SW_EXCEPTION = 5,
    INTR_TYPE_SW_EXCEPTION   = 6,
    INTR_TYPE_OTHER_EVENT    = 7,
};
/* Builds a valid interruption-information word. */
#define INTR_INFO(vector, type) \
    (INTR_INFO_VALID | ((uint32_t)(type) << INTR_INFO_TYPE_SHIFT) | ((uint32_t)(vector) & INTR_INFO_VECTOR_MASK))

/* ---- VM-instruction error numbers (SDM Vol. 3C 31.4, table 31-1) ---- */
enum vmx_instruction_error {
    VMXERR_VMCALL_IN_ROOT                = 1,
    VMXERR_VMCLEAR_INVALID_ADDR          = 2,
    VMXERR_VMCLEAR_VMXON_PTR             = 3,
    VMXERR_VMLAUNCH_NONCLEAR_VMCS        = 4,
    VMXERR_VMRESUME_NONLAUNCHED_VMCS     = 5,
    VMXERR_VMRESUME_AFTER_VMXOFF         = 6,
    VMXERR_ENTRY_INVALID_CONTROLS        = 7,
    VMXERR_ENTRY_INVALID_HOST_STATE      = 8,
    VMXERR_VMPTRLD_INVALID_ADDR          = 9,
    VMXERR_VMPTRLD_VMXON_PTR             = 10,
    VMXERR_VMPTRLD_BAD_REVISION          = 11,
    VMXERR_UNSUPPORTED_FIELD             = 12,
    VMXERR_VMWRITE_READ_ONLY_FIELD       = 13,
    VMXERR_VMXON_IN_ROOT                 = 15,
    VMXERR_ENTRY_INVALID_EXECUTIVE_VMCS  = 16,
    VMXERR_ENTRY_NONLAUNCHED_EXECUTIVE   = 17,
    VMXERR_ENTRY_EXECUTIVE_NOT_VMXON     = 18,
    VMXERR_VMCALL_NONCLEAR_VMCS          = 19,
    VMXERR_VMCALL_INVALID_EXIT_CONTROLS  = 20,
    VMXERR_VMCALL_BAD_MSEG_REVISION      = 22,
    VMXERR_VMXOFF_DUAL_MONITOR           = 23,
    VMXERR_VMCALL_INVALID_SMM_FEATURES   = 24,
    VMXERR_ENTRY_INVALID_EXECUTIVE_CTLS  = 25,
    VMXERR_ENTRY_BLOCKED_BY_MOV_SS       = 26,
    VMXERR_INVALID_INVEPT_INVVPID        = 28,
    VMXERR_COUNT                         = 29,  /* one past the highest */
};

/* ---- INVEPT / INVVPID (SDM Vol. 3C 31.3, "INVEPT", "INVVPID") ---- */
enum invept_type {
    INVEPT_SINGLE_CONTEXT = 1,
    INVEPT_ALL_CONTEXT    = 2,
};

enum invvpid_type {
    INVVPID_INDIVIDUAL_ADDR       = 0,
    INVVPID_SINGLE_CONTEXT        = 1,
    INVVPID_ALL_CONTEXT           = 2,
    INVVPID_SINGLE_CONTEXT_GLOBALS = 3,
};

/* 128-bit INVEPT descriptor: bits 63:0 EPTP, bits 127:64 reserved (0). */
struct invept_desc {
    uint64_t eptp;
    uint64_t reserved;
};
_Static_assert(sizeof(struct invept_desc) == 16, "INVEPT descriptor is 128 bits");

/* 128-bit INVVPID descriptor: bits 15:0 VPID, 63:16 reserved (0),
 * bits 127:64 linear address (individual-address type only). */
struct invvpid_desc {
    uint16_t vpid;
    uint16_t reserved[3];
    uint64_t linear_addr;
};
_Static_assert(sizeof(struct invvpid_desc) == 16, "INVVPID descriptor is 128 bits");

#endif
