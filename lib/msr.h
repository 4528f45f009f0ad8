/* Model-specific register numbers Vertigo uses (Intel SDM Vol. 4, "Model-
 * Specific Registers", architectural MSRs table) and the bits it tests. */
#ifndef LIB_MSR_H
#define LIB_MSR_H

#define MSR_IA32_TSC                    0x010
#define MSR_IA32_APIC_BASE              0x01b
#define MSR_IA32_FEATURE_CONTROL        0x03a
#define MSR_IA32_TSC_ADJUST             0x03b
#define MSR_IA32_SPEC_CTRL              0x048
#define MSR_IA32_ARCH_CAPABILITIES      0x10a
#define MSR_IA32_PMC0                   0x0c1  /* legacy-width writes */
#define MSR_IA32_MPERF                  0x0e7
#define MSR_IA32_APERF                  0x0e8
#define MSR_IA32_MTRRCAP                0x0fe
#define MSR_IA32_SYSENTER_CS            0x174
#define MSR_IA32_SYSENTER_ESP           0x175
#define MSR_IA32_SYSENTER_EIP           0x176
#define MSR_IA32_PERFEVTSEL0            0x186
#define MSR_IA32_MISC_ENABLE            0x1a0
#define MSR_IA32_DEBUGCTL               0x1d9
#define MSR_IA32_XSS                    0xda0  /* supervisor XSAVE components */
#define MSR_IA32_LBR_INFO_0             0x1200 /* architectural LBRs (0x1200-0x121f) */
#define MSR_IA32_LBR_CTL                0x14ce
#define MSR_IA32_LBR_DEPTH              0x14cf
#define MSR_IA32_LBR_FROM_0             0x1500 /* 0x1500-0x151f */
#define MSR_IA32_LBR_TO_0               0x1600 /* 0x1600-0x161f */
#define MSR_IA32_LBR_LAST               0x17ff /* the range reserved for them */
#define MSR_IA32_PAT                    0x277
#define MSR_IA32_MTRR_DEF_TYPE          0x2ff
#define MSR_IA32_FIXED_CTR0             0x309
#define MSR_IA32_PERF_CAPABILITIES      0x345
#define MSR_IA32_FIXED_CTR_CTRL         0x38d
#define MSR_IA32_PERF_GLOBAL_STATUS     0x38e
#define MSR_IA32_PERF_GLOBAL_CTRL       0x38f
#define MSR_IA32_PERF_GLOBAL_OVF_CTRL   0x390
#define MSR_IA32_PERF_GLOBAL_STATUS_RESET 0x390 /* v4 name of OVF_CTRL */
#define MSR_IA32_PERF_GLOBAL_STATUS_SET 0x391
#define MSR_IA32_PERF_GLOBAL_INUSE      0x392
#define MSR_IA32_A_PMC0                 0x4c1  /* full-width writes */

#define MSR_IA32_VMX_BASIC              0x480
#define MSR_IA32_VMX_PINBASED_CTLS      0x481
#define MSR_IA32_VMX_PROCBASED_CTLS     0x482
#define MSR_IA32_VMX_EXIT_CTLS          0x483
#define MSR_IA32_VMX_ENTRY_CTLS         0x484
#define MSR_IA32_VMX_MISC               0x485
#define MSR_IA32_VMX_CR0_FIXED0         0x486
#define MSR_IA32_VMX_CR0_FIXED1         0x487
#define MSR_IA32_VMX_CR4_FIXED0         0x488
#define MSR_IA32_VMX_CR4_FIXED1         0x489
#define MSR_IA32_VMX_VMCS_ENUM          0x48a
#define MSR_IA32_VMX_PROCBASED_CTLS2    0x48b
#define MSR_IA32_VMX_EPT_VPID_CAP       0x48c
#define MSR_IA32_VMX_TRUE_PINBASED_CTLS 0x48d
#define MSR_IA32_VMX_TRUE_PROCBASED_CTLS 0x48e
#define MSR_IA32_VMX_TRUE_EXIT_CTLS     0x48f
#define MSR_IA32_VMX_TRUE_ENTRY_CTLS    0x490
#define MSR_IA32_VMX_VMFUNC             0x491
#define MSR_IA32_VMX_FIRST              0x480
#define MSR_IA32_VMX_LAST               0x491

#define MSR_IA32_X2APIC_FIRST           0x800
#define MSR_IA32_X2APIC_LAST            0x8ff
#define MSR_IA32_X2APIC_ICR             0x830
#define MSR_IA32_X2APIC_LVT_PMI         0x834

#define MSR_IA32_EFER                   0xc0000080
#define MSR_IA32_STAR                   0xc0000081
#define MSR_IA32_LSTAR                  0xc0000082
#define MSR_IA32_CSTAR                  0xc0000083
#define MSR_IA32_FMASK                  0xc0000084
#define MSR_IA32_FS_BASE                0xc0000100
#define MSR_IA32_GS_BASE                0xc0000101
#define MSR_IA32_KERNEL_GS_BASE         0xc0000102
#define MSR_IA32_TSC_AUX                0xc0000103

/* IA32_FEATURE_CONTROL (SDM Vol. 3C, 23.7 "Enabling and Entering VMX Operation") */
#define FEATURE_CONTROL_LOCKED          (1ull << 0)
#define FEATURE_CONTROL_VMX_IN_SMX      (1ull << 1)
#define FEATURE_CONTROL_VMX_OUTSIDE_SMX (1ull << 2)

/* IA32_EFER */
#define EFER_SCE   (1ull << 0)
#define EFER_LME   (1ull << 8)
#define EFER_LMA   (1ull << 10)
#define EFER_NXE   (1ull << 11)

/* IA32_APIC_BASE */
#define APIC_BASE_BSP     (1ull << 8)
#define APIC_BASE_X2APIC  (1ull << 10)
#define APIC_BASE_ENABLE  (1ull << 11)
#define APIC_BASE_ADDR_MASK 0xfffffffff000ull

/* IA32_PERFEVTSELx (SDM Vol. 3B, 20.2.1.1) */
#define PERFEVTSEL_USR    (1ull << 16)
#define PERFEVTSEL_OS     (1ull << 17)
#define PERFEVTSEL_EDGE   (1ull << 18)
#define PERFEVTSEL_PC     (1ull << 19)
#define PERFEVTSEL_INT    (1ull << 20)
#define PERFEVTSEL_ANY    (1ull << 21)
#define PERFEVTSEL_EN     (1ull << 22)
#define PERFEVTSEL_INV    (1ull << 23)

/* MSRs that reach physical memory or Vertigo's own state, which the guest
 * may not program (vmx/msr_guard.c; SDM Vol. 4 tables 2-2 ff.). */
#define MSR_IA32_SMRR_PHYSBASE          0x1f2
#define MSR_IA32_SMRR_PHYSMASK          0x1f3
#define MSR_IA32_MTRR_PHYSBASE0         0x200  /* PHYSBASEn = 0x200 + 2n, PHYSMASKn + 1 */
#define MSR_IA32_MTRR_VAR_LAST          0x21f  /* room for 16 variable ranges */
#define MSR_IA32_MTRR_FIX64K_00000      0x250
#define MSR_IA32_MTRR_FIX16K_80000      0x258
#define MSR_IA32_MTRR_FIX16K_A0000      0x259
#define MSR_IA32_MTRR_FIX4K_C0000       0x268  /* ... FIX4K_F8000 0x26f */
#define MSR_IA32_MTRR_FIX4K_F8000       0x26f
#define MSR_OFFCORE_RSP_0               0x1a6  /* PMU: off-core response filters */
#define MSR_OFFCORE_RSP_1               0x1a7
#define MSR_PERF_METRICS                0x329  /* PMU: top-down metrics */
#define MSR_IA32_PEBS_ENABLE            0x3f1
#define MSR_PEBS_LD_LAT                 0x3f6
#define MSR_PEBS_FRONTEND               0x3f7
#define MSR_IA32_RTIT_OUTPUT_BASE       0x560  /* Intel PT (SDM Vol. 3C 33.2.8) */
#define MSR_IA32_RTIT_OUTPUT_MASK_PTRS  0x561
#define MSR_IA32_RTIT_CTL               0x570
#define MSR_IA32_RTIT_STATUS            0x571
#define MSR_IA32_RTIT_CR3_MATCH         0x572
#define MSR_IA32_RTIT_ADDR0_A           0x580  /* ... ADDR3_B 0x587 */
#define MSR_IA32_RTIT_ADDR3_B           0x587
#define MSR_IA32_DS_AREA                0x600

/* IA32_MTRRCAP (SDM Vol. 3A 12.11.1) */
#define MTRRCAP_VCNT_MASK   0xffull
#define MTRRCAP_FIX         (1ull << 8)
#define MTRRCAP_WC          (1ull << 10)
#define MTRRCAP_SMRR        (1ull << 11)

/* IA32_MISC_ENABLE (SDM Vol. 4, table 2-2) */
#define MISC_ENABLE_PERFMON_AVAILABLE   (1ull << 7)
#define MISC_ENABLE_BTS_UNAVAILABLE     (1ull << 11)
#define MISC_ENABLE_PEBS_UNAVAILABLE    (1ull << 12)
#define MISC_ENABLE_LIMIT_CPUID         (1ull << 22)
#define MISC_ENABLE_XD_DISABLE          (1ull << 34)

#endif
