/* Owned MSRs (see vmx/msr_policy.h): the VMX capability MSRs and
 * FEATURE_CONTROL (the guest sees no VMX), the architectural PMU MSRs
 * (the PMU belongs to Vertigo: CPUID 0AH is hidden from the guest, so it
 * sees a CPU without an architectural PMU and its MSRs #GP), and in x2APIC
 * mode the APIC registers vmx/apic_guard.c watches (ICR; LVTPC and SVR,
 * for the hardware PMU's PMI). */
#include "vmx/msr_policy.h"

#include <stddef.h>

#include "boot/apic.h"
#include "boot/cpu.h"
#include "vmm/msr.h"
#include "vmx/apic_guard.h"

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

static const struct msr_rule rules[] = {
    { MSR_IA32_X2APIC_ICR, MSR_IA32_X2APIC_ICR, "x2APIC ICR (INIT/SIPI emulated)",
      passthrough_read, apic_guard_x2apic_icr },
    { MSR_IA32_X2APIC_LVT_PMI, MSR_IA32_X2APIC_LVT_PMI, "x2APIC LVTPC (Vertigo's PMI)",
      passthrough_read, apic_guard_x2apic_lvtpc },
    { X2APIC_MSR_OF(XAPIC_REG_SVR), X2APIC_MSR_OF(XAPIC_REG_SVR), "x2APIC SVR",
      passthrough_read, apic_guard_x2apic_svr },
    { MSR_IA32_FEATURE_CONTROL, MSR_IA32_FEATURE_CONTROL, "IA32_FEATURE_CONTROL",
      feature_control_read, deny_write },
    { MSR_IA32_VMX_FIRST, MSR_IA32_VMX_LAST, "VMX capability", deny_read, deny_write },
    { MSR_IA32_PMC0, MSR_IA32_PMC0 + 7, "PMU counter", deny_read, deny_write },
    { MSR_IA32_PERFEVTSEL0, MSR_IA32_PERFEVTSEL0 + 7, "PMU event select", deny_read, deny_write },
    { MSR_IA32_FIXED_CTR0, MSR_IA32_FIXED_CTR0 + 3, "PMU fixed counter", deny_read, deny_write },
    { MSR_IA32_PERF_CAPABILITIES, MSR_IA32_PERF_CAPABILITIES, "PERF_CAPABILITIES",
      deny_read, deny_write },
    { MSR_IA32_FIXED_CTR_CTRL, MSR_IA32_PERF_GLOBAL_INUSE, "PMU global control",
      deny_read, deny_write },
    { MSR_IA32_A_PMC0, MSR_IA32_A_PMC0 + 7, "PMU full-width counter", deny_read, deny_write },
};

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
