/* Owned MSRs (see vmx/msr_policy.h): the VMX capability MSRs and
 * FEATURE_CONTROL (the guest sees no VMX), the architectural PMU MSRs
 * (the PMU belongs to Vertigo: the guest sees its own virtual PMU with
 * pmu.guest=on, pmu/vpmu/pmu_guest.c, else none, and its MSRs #GP), in x2APIC
 * mode the APIC registers vmx/apic_guard.c watches (ICR; LVTPC and SVR,
 * for the hardware PMU's PMI), and the MSRs through which a guest could
 * reach physical memory past the EPT or change Vertigo's state
 * (vmx/msr_guard.h: APIC base, MTRRs, MISC_ENABLE, TSC, PT, PEBS, DS). */
#include "vmx/msr_policy.h"

#include <stddef.h>

#include "boot/apic.h"
#include "lib/cpu.h"
#include "lib/msr.h"
#include "vmx/apic_guard.h"
#include "vmx/msr_guard.h"
#include "vmx/mode_trap.h"
#include "pmu/pmu_loop.h"

#define MSR_BITMAP_READ_LOW   0x000
#define MSR_BITMAP_READ_HIGH  0x400
#define MSR_BITMAP_WRITE_LOW  0x800
#define MSR_BITMAP_WRITE_HIGH 0xc00
#define MSR_HIGH_BASE         0xc0000000u
#define MSR_RANGE_SIZE        0x2000u

static enum msr_access_result feature_control_read(struct vcpu *v, uint32_t msr, uint64_t *value)
{
    (void)v; (void)msr;
    *value = FEATURE_CONTROL_LOCKED;    /* locked, VMX off */
    return MSR_ACCESS_DONE;
}

static enum msr_access_result deny_read(struct vcpu *v, uint32_t msr, uint64_t *value)
{
    (void)v; (void)msr; (void)value;
    return MSR_ACCESS_GP;
}

static enum msr_access_result deny_write(struct vcpu *v, uint32_t msr, uint64_t value)
{
    (void)v; (void)msr; (void)value;
    return MSR_ACCESS_GP;
}

static enum msr_access_result passthrough_read(struct vcpu *v, uint32_t msr, uint64_t *value)
{
    (void)v;
    return rdmsr_safe(msr, value) == 0 ? MSR_ACCESS_DONE : MSR_ACCESS_GP;
}

/* The guest's virtual PMU decides (#GP without one). */
static enum msr_access_result guest_pmu_read(struct vcpu *v, uint32_t msr, uint64_t *value)
{
    return pmu_exit_rdmsr(v, msr, value) ? MSR_ACCESS_DONE : MSR_ACCESS_GP;
}

static enum msr_access_result guest_pmu_write(struct vcpu *v, uint32_t msr, uint64_t value)
{
    return pmu_exit_wrmsr(v, msr, value) ? MSR_ACCESS_DONE : MSR_ACCESS_GP;
}

/* No two rules' ranges overlap (tests/unit/test_msr_policy.c checks), so
 * their order decides only how soon msr_policy_find reaches one: the
 * guest's virtual PMU's first, which Linux's PMI handler asks for six
 * times or more a PMI (in Bochs each rule passed costs about six
 * emulated instructions). */
static const struct msr_rule rules[] = {
    { MSR_IA32_FIXED_CTR_CTRL, MSR_IA32_PERF_GLOBAL_INUSE, "PMU global control (guest's "
      "virtual PMU)", guest_pmu_read, guest_pmu_write },
    { MSR_IA32_PMC0, MSR_IA32_PMC0 + 7, "PMU counter (guest's virtual PMU)",
      guest_pmu_read, guest_pmu_write },
    { MSR_IA32_PERFEVTSEL0, MSR_IA32_PERFEVTSEL0 + 7, "PMU event select (guest's virtual PMU)",
      guest_pmu_read, guest_pmu_write },
    { MSR_IA32_FIXED_CTR0, MSR_IA32_FIXED_CTR0 + 3, "PMU fixed counter (guest's virtual PMU)",
      guest_pmu_read, guest_pmu_write },
    { MSR_IA32_X2APIC_ICR, MSR_IA32_X2APIC_ICR, "x2APIC ICR (INIT/SIPI emulated)",
      passthrough_read, apic_guard_x2apic_icr },
    { MSR_IA32_X2APIC_LVT_PMI, MSR_IA32_X2APIC_LVT_PMI, "x2APIC LVTPC (Vertigo's PMI)",
      passthrough_read, apic_guard_x2apic_lvtpc },
    { X2APIC_MSR_OF(XAPIC_REG_SVR), X2APIC_MSR_OF(XAPIC_REG_SVR), "x2APIC SVR",
      passthrough_read, apic_guard_x2apic_svr },
    { MSR_IA32_FEATURE_CONTROL, MSR_IA32_FEATURE_CONTROL, "IA32_FEATURE_CONTROL",
      feature_control_read, deny_write },
    { MSR_IA32_EFER, MSR_IA32_EFER, "IA32_EFER (SCE shadowed for the mode traps)",
      vmx_efer_read, vmx_efer_write },
    { MSR_IA32_VMX_FIRST, MSR_IA32_VMX_LAST, "VMX capability", deny_read, deny_write },
    { MSR_IA32_PERF_CAPABILITIES, MSR_IA32_PERF_CAPABILITIES, "PERF_CAPABILITIES",
      deny_read, deny_write },
    { MSR_IA32_A_PMC0, MSR_IA32_A_PMC0 + 7, "PMU full-width counter", deny_read, deny_write },
    /* Paths to physical memory and to Vertigo's state (vmx/msr_guard.h). */
    { MSR_IA32_APIC_BASE, MSR_IA32_APIC_BASE, "IA32_APIC_BASE (base and enable kept)",
      msr_guard_read_through, msr_guard_apic_base_write },
    { MSR_IA32_TSC, MSR_IA32_TSC, "IA32_TSC (Vertigo's clock)",
      msr_guard_read_through, msr_guard_deny_write },
    { MSR_IA32_TSC_ADJUST, MSR_IA32_TSC_ADJUST, "IA32_TSC_ADJUST (hidden)",
      msr_guard_deny_read, msr_guard_deny_write },
    { MSR_IA32_MISC_ENABLE, MSR_IA32_MISC_ENABLE, "IA32_MISC_ENABLE (PMU/PEBS bits kept)",
      msr_guard_misc_enable_read, msr_guard_misc_enable_write },
    { MSR_IA32_MTRRCAP, MSR_IA32_MTRRCAP, "IA32_MTRRCAP (shadow)",
      msr_guard_mtrr_read, msr_guard_mtrr_write },
    { MSR_IA32_MTRR_DEF_TYPE, MSR_IA32_MTRR_DEF_TYPE, "IA32_MTRR_DEF_TYPE (shadow)",
      msr_guard_mtrr_read, msr_guard_mtrr_write },
    { MSR_IA32_MTRR_PHYSBASE0, MSR_IA32_MTRR_VAR_LAST, "variable MTRRs (shadow)",
      msr_guard_mtrr_read, msr_guard_mtrr_write },
    { MSR_IA32_MTRR_FIX64K_00000, MSR_IA32_MTRR_FIX64K_00000, "fixed MTRR (shadow)",
      msr_guard_mtrr_read, msr_guard_mtrr_write },
    { MSR_IA32_MTRR_FIX16K_80000, MSR_IA32_MTRR_FIX16K_A0000, "fixed MTRRs (shadow)",
      msr_guard_mtrr_read, msr_guard_mtrr_write },
    { MSR_IA32_MTRR_FIX4K_C0000, MSR_IA32_MTRR_FIX4K_F8000, "fixed MTRRs (shadow)",
      msr_guard_mtrr_read, msr_guard_mtrr_write },
    { MSR_IA32_SMRR_PHYSBASE, MSR_IA32_SMRR_PHYSMASK, "SMRR (hidden)",
      msr_guard_deny_read, msr_guard_deny_write },
    { MSR_OFFCORE_RSP_0, MSR_OFFCORE_RSP_1, "PMU off-core response",
      msr_guard_deny_read, msr_guard_deny_write },
    { MSR_PERF_METRICS, MSR_PERF_METRICS, "PMU PERF_METRICS", msr_guard_deny_read,
      msr_guard_deny_write },
    { MSR_IA32_PEBS_ENABLE, MSR_IA32_PEBS_ENABLE, "PEBS_ENABLE", msr_guard_deny_read,
      msr_guard_deny_write },
    { MSR_PEBS_LD_LAT, MSR_PEBS_FRONTEND, "PEBS load latency and front end",
      msr_guard_deny_read, msr_guard_deny_write },
    { MSR_IA32_DS_AREA, MSR_IA32_DS_AREA, "IA32_DS_AREA", msr_guard_deny_read,
      msr_guard_deny_write },
    { MSR_IA32_RTIT_OUTPUT_BASE, MSR_IA32_RTIT_OUTPUT_MASK_PTRS, "Intel PT output",
      msr_guard_deny_read, msr_guard_deny_write },
    { MSR_IA32_RTIT_CTL, MSR_IA32_RTIT_CR3_MATCH, "Intel PT control",
      msr_guard_deny_read, msr_guard_deny_write },
    { MSR_IA32_RTIT_ADDR0_A, MSR_IA32_RTIT_ADDR3_B, "Intel PT address ranges",
      msr_guard_deny_read, msr_guard_deny_write },
    { MSR_IA32_XSS, MSR_IA32_XSS, "IA32_XSS (no supervisor state: 0)",
      msr_guard_xss_read, msr_guard_xss_write },
    /* Architectural LBRs (CPUID hides them): LBR_CTL keeps recording in
     * root mode and in the next domain, which VM exit does not stop. */
    { MSR_IA32_LBR_INFO_0, MSR_IA32_LBR_INFO_0 + 31, "arch LBR info",
      msr_guard_deny_read, msr_guard_deny_write },
    { MSR_IA32_LBR_CTL, MSR_IA32_LBR_DEPTH, "arch LBR control and depth",
      msr_guard_deny_read, msr_guard_deny_write },
    { MSR_IA32_LBR_FROM_0, MSR_IA32_LBR_LAST, "arch LBR records",
      msr_guard_deny_read, msr_guard_deny_write },
};

const struct msr_rule *msr_policy_rules(unsigned int *count)
{
    *count = sizeof(rules) / sizeof(rules[0]);
    return rules;
}

const struct msr_rule *msr_policy_find(uint32_t msr)
{
    for (unsigned int i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
        if (msr >= rules[i].first && msr <= rules[i].last)
            return &rules[i];
    return NULL;
}

static void set_bit(uint8_t *bitmap, uint32_t offset, uint32_t index)
{
    bitmap[offset + index / 8] |= (uint8_t)(1u << (index % 8));
}

static void intercept(uint8_t *bitmap, uint32_t msr)
{
    if (msr < MSR_RANGE_SIZE) {
        set_bit(bitmap, MSR_BITMAP_READ_LOW, msr);
        set_bit(bitmap, MSR_BITMAP_WRITE_LOW, msr);
    } else if (msr >= MSR_HIGH_BASE && msr < MSR_HIGH_BASE + MSR_RANGE_SIZE) {
        set_bit(bitmap, MSR_BITMAP_READ_HIGH, msr - MSR_HIGH_BASE);
        set_bit(bitmap, MSR_BITMAP_WRITE_HIGH, msr - MSR_HIGH_BASE);
    }
    /* MSRs outside both ranges always exit. */
}

void msr_policy_fill_bitmap(uint8_t *bitmap)
{
    for (unsigned int i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
        for (uint32_t msr = rules[i].first; msr <= rules[i].last; msr++)
            intercept(bitmap, msr);
}
