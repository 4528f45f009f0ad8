/* WRMSR's architectural checks for the MSRs Vertigo emulates (see
 * vmm/vhw/msr_check.h). The rules, from the SDM:
 *  - IA32_TSC_AUX (0xC0000103): bits 31:0 are the value RDTSCP/RDPID
 *    return, bits 63:32 reserved (Vol. 4 table 2-2) -> #GP if set;
 *  - IA32_FMASK (0xC0000084): bits 31:0 the SYSCALL RFLAGS mask, bits
 *    63:32 reserved (Vol. 4 table 2-2) -> #GP if set;
 *  - IA32_STAR: every bit is defined (selectors and the legacy SYSCALL
 *    EIP), no check;
 *  - IA32_LSTAR, IA32_CSTAR, IA32_FS_BASE, IA32_GS_BASE,
 *    IA32_KERNEL_GS_BASE, IA32_SYSENTER_ESP, IA32_SYSENTER_EIP: addresses,
 *    #GP if not canonical (Vol. 2B WRMSR, "Protected Mode Exceptions";
 *    VM entry also refuses non-canonical SYSENTER_ESP/EIP, Vol. 3C
 *    27.3.1.1); checked at 48 bits, the width of 4-level paging (a domain
 *    with 5-level paging would see #GP for a 57-bit address);
 *  - IA32_SYSENTER_CS: bits 15:0 the selector, the rest unused, no check
 *    (its VMCS field holds 32 bits, as the CPU's SYSENTER uses);
 *  - IA32_PAT: each byte a valid memory type, #GP otherwise (Vol. 3A
 *    13.12.2; VM entry checks the same, 27.3.1.1);
 *  - IA32_MTRR_DEF_TYPE: valid type, reserved bits clear (Vol. 3A
 *    13.11.2.1; a reserved bit or type set #GPs, 13.11.2). */
#include "vmm/vhw/msr_check.h"

#include "vmm/guest/guest_pt.h"
#include "lib/msr.h"

#define LOW32_ONLY          0xffffffff00000000ull
#define PAT_ENTRY_RESERVED  0xf8u
#define MTRR_DEF_RESERVED   (~0xcffull)    /* all but type (7:0), FE (10), E (11) */

/* Memory types 2 and 3 are reserved (Vol. 3A table 13-10). */
static bool pat_type_valid(unsigned int type)
{
    return type <= 7 && type != 2 && type != 3;
}

bool msr_check_pat(uint64_t value)
{
    for (unsigned int i = 0; i < 8; i++) {
        unsigned int entry = (unsigned int)(value >> (i * 8)) & 0xffu;
        if ((entry & PAT_ENTRY_RESERVED) || !pat_type_valid(entry))
            return false;
    }
    return true;
}

/* MTRR types: UC 0, WC 1, WT 4, WP 5, WB 6 (Vol. 3A table 13-8); 7 is
 * reserved there, unlike in the PAT (UC-). */
bool msr_check_mtrr_def_type(uint64_t value)
{
    unsigned int type = (unsigned int)(value & 0xffu);
    return !(value & MTRR_DEF_RESERVED) && pat_type_valid(type) && type != 7;
}

bool msr_check_write(uint32_t msr, uint64_t value)
{
    switch (msr) {
    case MSR_IA32_TSC_AUX:
    case MSR_IA32_FMASK:
        return !(value & LOW32_ONLY);
    case MSR_IA32_LSTAR:
    case MSR_IA32_CSTAR:
    case MSR_IA32_FS_BASE:
    case MSR_IA32_GS_BASE:
    case MSR_IA32_KERNEL_GS_BASE:
    case MSR_IA32_SYSENTER_ESP:
    case MSR_IA32_SYSENTER_EIP:
        return guest_pt_canonical(value, false);     /* 48 bits (4-level paging) */
    case MSR_IA32_PAT:
        return msr_check_pat(value);
    case MSR_IA32_MTRR_DEF_TYPE:
        return msr_check_mtrr_def_type(value);
    default:
        return true;
    }
}
