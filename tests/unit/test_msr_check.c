/* WRMSR's architectural checks for the MSRs Vertigo emulates
 * (vmm/vhw/msr_check.c): each rule's accepted and refused values, the values
 * Linux writes passing, and the ones a hostile guest tried (TSC_AUX with
 * bits 63:32 set once ended the whole run) refused. */
#include "tests/unit/unit.h"

#include "lib/msr.h"
#include "vmm/vhw/msr_check.h"

#define LINUX_PAT 0x0407050600070106ull     /* WB WC UC- UC WB WP UC- WT */

TEST(tsc_aux_and_fmask_take_only_bits_31_0)
{
    static const uint32_t msrs[] = { MSR_IA32_TSC_AUX, MSR_IA32_FMASK };
    for (unsigned int i = 0; i < 2; i++) {
        CHECK(msr_check_write(msrs[i], 0));
        CHECK(msr_check_write(msrs[i], 0xffffffffull));
        CHECK(!msr_check_write(msrs[i], 1ull << 32));
        CHECK(!msr_check_write(msrs[i], 1ull << 63));
        CHECK(!msr_check_write(msrs[i], ~0ull));
    }
}

TEST(address_msrs_must_be_canonical)
{
    static const uint32_t msrs[] = { MSR_IA32_LSTAR, MSR_IA32_CSTAR, MSR_IA32_FS_BASE,
        MSR_IA32_GS_BASE, MSR_IA32_KERNEL_GS_BASE, MSR_IA32_SYSENTER_ESP,
        MSR_IA32_SYSENTER_EIP };
    for (unsigned int i = 0; i < sizeof(msrs) / sizeof(msrs[0]); i++) {
        CHECK(msr_check_write(msrs[i], 0));
        CHECK(msr_check_write(msrs[i], 0x00007fffffffffffull));
        CHECK(msr_check_write(msrs[i], 0xffff800000000000ull));
        CHECK(msr_check_write(msrs[i], 0xffffffff81000000ull));
        CHECK(!msr_check_write(msrs[i], 0x0000800000000000ull));
        CHECK(!msr_check_write(msrs[i], 0x8000000000000000ull));
        CHECK(!msr_check_write(msrs[i], 0xfffe800000000000ull));
    }
}

TEST(star_and_sysenter_cs_have_no_reserved_bits)
{
    CHECK(msr_check_write(MSR_IA32_STAR, ~0ull));
    CHECK(msr_check_write(MSR_IA32_STAR, 0x0023001000000000ull));
    CHECK(msr_check_write(MSR_IA32_SYSENTER_CS, 0x10));
}

TEST(pat_entries_must_be_valid_memory_types)
{
    CHECK(msr_check_write(MSR_IA32_PAT, 0x0007040600070406ull));   /* power-on value */
    CHECK(msr_check_write(MSR_IA32_PAT, LINUX_PAT));
    CHECK(msr_check_write(MSR_IA32_PAT, 0x0707070707070707ull));
    for (unsigned int entry = 0; entry < 8; entry++) {
        uint64_t others = LINUX_PAT & ~(0xffull << (entry * 8));
        CHECK(!msr_check_write(MSR_IA32_PAT, others | 2ull << (entry * 8)));
        CHECK(!msr_check_write(MSR_IA32_PAT, others | 3ull << (entry * 8)));
        CHECK(!msr_check_write(MSR_IA32_PAT, others | 0x0eull << (entry * 8)));  /* bit 3 */
        CHECK(!msr_check_write(MSR_IA32_PAT, others | 0x86ull << (entry * 8)));  /* bit 7 */
    }
    CHECK(!msr_check_pat(0x0007040600070486ull));
}

TEST(mtrr_def_type_checks_type_and_reserved_bits)
{
    CHECK(msr_check_write(MSR_IA32_MTRR_DEF_TYPE, 0x806));      /* E, WB */
    CHECK(msr_check_write(MSR_IA32_MTRR_DEF_TYPE, 0xc00));      /* E, FE, UC */
    CHECK(msr_check_write(MSR_IA32_MTRR_DEF_TYPE, 0));
    CHECK(!msr_check_write(MSR_IA32_MTRR_DEF_TYPE, 0x802));     /* type 2 */
    CHECK(!msr_check_write(MSR_IA32_MTRR_DEF_TYPE, 0x807));     /* type 7: PAT only */
    CHECK(!msr_check_write(MSR_IA32_MTRR_DEF_TYPE, 0x906));     /* bit 8 */
    CHECK(!msr_check_write(MSR_IA32_MTRR_DEF_TYPE, 1ull << 12 | 6));
    CHECK(!msr_check_mtrr_def_type(1ull << 63));
}

TEST(other_msrs_are_not_judged_here)
{
    CHECK(msr_check_write(MSR_IA32_EFER, ~0ull));
    CHECK(msr_check_write(0x12345678u, ~0ull));
}
