/* Guest accesses to the MSRs that reach physical memory or Vertigo's
 * state (see vmx/msr_guard.h). */
#include "vmx/msr_guard.h"

#include <stdbool.h>

#include "lib/cpu.h"
#include "lib/smp.h"
#include "lib/msr.h"
#include "vmm/vcpu.h"

/* MTRR memory types (SDM Vol. 3A 12.11.2, table 12-8); 2, 3 and 7+ are reserved. */
#define MT_UC 0u
#define MT_WC 1u
#define MT_WT 4u
#define MT_WP 5u
#define MT_WB 6u

#define MTRR_DEF_TYPE_FE      (1ull << 10)
#define MTRR_DEF_TYPE_E       (1ull << 11)
#define MTRR_PHYSMASK_VALID   (1ull << 11)
#define MTRR_VAR_MAX          16u
#define MTRR_FIXED_COUNT      11u
#define DEFAULT_PHYS_BITS     36u

/* IA32_MISC_ENABLE bits Vertigo keeps: the PMU, BTS and PEBS are its own,
 * a CPUID limit would cut Vertigo's CPUID too, and XD disable would make
 * its page tables' NX bits reserved. */
#define MISC_ENABLE_OWNED (MISC_ENABLE_PERFMON_AVAILABLE | MISC_ENABLE_BTS_UNAVAILABLE | \
                           MISC_ENABLE_PEBS_UNAVAILABLE | MISC_ENABLE_LIMIT_CPUID |       \
                           MISC_ENABLE_XD_DISABLE)

static unsigned int phys_bits = DEFAULT_PHYS_BITS;

/* One VCPU's MTRRs as the guest sees them (index: VCPU id; VCPUs never
 * migrate, so each is read and written on its own CPU only). */
static struct mtrr_shadow {
    bool loaded;                /* taken from this CPU's MTRRs */
    bool present;               /* the CPU has MTRRs at all */
    uint64_t cap;               /* the guest's IA32_MTRRCAP: SMRR hidden */
    uint64_t def_type;
    uint64_t var[2 * MTRR_VAR_MAX];     /* PHYSBASEn, PHYSMASKn */
    uint64_t fixed[MTRR_FIXED_COUNT];
} shadows[MAX_CPUS];

void msr_guard_init(unsigned int phys_addr_bits)
{
    if (phys_addr_bits >= 32 && phys_addr_bits <= 52)
        phys_bits = phys_addr_bits;
}

enum msr_access_result msr_guard_read_through(struct vcpu *v, uint32_t msr, uint64_t *value)
{
    (void)v;
    return rdmsr_safe(msr, value) == 0 ? MSR_ACCESS_DONE : MSR_ACCESS_GP;
}

enum msr_access_result msr_guard_deny_read(struct vcpu *v, uint32_t msr, uint64_t *value)
{
    (void)v; (void)msr; (void)value;
    return MSR_ACCESS_GP;
}

enum msr_access_result msr_guard_deny_write(struct vcpu *v, uint32_t msr, uint64_t value)
{
    (void)v; (void)msr; (void)value;
    return MSR_ACCESS_GP;
}

/* ---- IA32_XSS ---------------------------------------------------------------- */

enum msr_access_result msr_guard_xss_read(struct vcpu *v, uint32_t msr, uint64_t *value)
{
    (void)v; (void)msr;
    *value = 0;
    return MSR_ACCESS_DONE;
}

enum msr_access_result msr_guard_xss_write(struct vcpu *v, uint32_t msr, uint64_t value)
{
    (void)v; (void)msr;
    return value == 0 ? MSR_ACCESS_DONE : MSR_ACCESS_GP;
}

/* ---- IA32_APIC_BASE ------------------------------------------------------ */

/* The only writes that pass: the value the register holds, or that value
 * with EXTD set (xAPIC -> x2APIC, SDM Vol. 3A 11.12.5). Moving the base
 * would take the xAPIC page from under its read-only EPT mapping (the
 * guest could then write ICR and LVTPC directly, or lay the page over
 * Vertigo's memory); disabling the APIC would stop Vertigo's own NMIs. */
enum msr_access_result msr_guard_apic_base_write(struct vcpu *v, uint32_t msr, uint64_t value)
{
    uint64_t now;
    (void)v;
    if (rdmsr_safe(msr, &now) != 0)
        return MSR_ACCESS_GP;
    if (value != now && value != (now | APIC_BASE_X2APIC))
        return MSR_ACCESS_GP;
    return wrmsr_safe(msr, value) == 0 ? MSR_ACCESS_DONE : MSR_ACCESS_GP;
}

/* ---- MTRRs ------------------------------------------------------------------ */

static bool mtrr_type_valid(const struct mtrr_shadow *s, uint64_t type)
{
    return type == MT_UC || type == MT_WT || type == MT_WP || type == MT_WB ||
           (type == MT_WC && (s->cap & MTRRCAP_WC));
}

static uint64_t phys_reserved(void)
{
    return ~((1ull << phys_bits) - 1);
}

static unsigned int var_count(const struct mtrr_shadow *s)
{
    unsigned int n = (unsigned int)(s->cap & MTRRCAP_VCNT_MASK);
    return n < MTRR_VAR_MAX ? n : MTRR_VAR_MAX;
}

/* Index in fixed[] of a fixed-range MTRR, or -1. */
static int fixed_index(uint32_t msr)
{
    if (msr == MSR_IA32_MTRR_FIX64K_00000)
        return 0;
    if (msr == MSR_IA32_MTRR_FIX16K_80000 || msr == MSR_IA32_MTRR_FIX16K_A0000)
        return 1 + (int)(msr - MSR_IA32_MTRR_FIX16K_80000);
    if (msr >= MSR_IA32_MTRR_FIX4K_C0000 && msr <= MSR_IA32_MTRR_FIX4K_F8000)
        return 3 + (int)(msr - MSR_IA32_MTRR_FIX4K_C0000);
    return -1;
}

static uint32_t fixed_msr(unsigned int index)
{
    if (index == 0)
        return MSR_IA32_MTRR_FIX64K_00000;
    if (index < 3)
        return MSR_IA32_MTRR_FIX16K_80000 + index - 1;
    return MSR_IA32_MTRR_FIX4K_C0000 + index - 3;
}

/* The shadow starts as this CPU's MTRRs, read on the first access. */
static struct mtrr_shadow *mtrr_shadow_of(const struct vcpu *v)
{
    struct mtrr_shadow *s = &shadows[v->id % MAX_CPUS];
    uint64_t cap;
    if (s->loaded)
        return s;
    s->loaded = true;
    s->present = rdmsr_safe(MSR_IA32_MTRRCAP, &cap) == 0;
    if (!s->present)
        return s;
    s->cap = cap & (MTRRCAP_VCNT_MASK | MTRRCAP_FIX | MTRRCAP_WC);
    rdmsr_safe(MSR_IA32_MTRR_DEF_TYPE, &s->def_type);
    for (unsigned int i = 0; i < 2 * var_count(s); i++)
        rdmsr_safe(MSR_IA32_MTRR_PHYSBASE0 + i, &s->var[i]);
    for (unsigned int i = 0; (s->cap & MTRRCAP_FIX) && i < MTRR_FIXED_COUNT; i++)
        rdmsr_safe(fixed_msr(i), &s->fixed[i]);
    return s;
}

/* The shadow's slot for msr, or NULL where the CPU (as the guest sees it)
 * has no such MTRR. */
static uint64_t *mtrr_slot(struct mtrr_shadow *s, uint32_t msr)
{
    if (!s->present)
        return NULL;
    if (msr == MSR_IA32_MTRRCAP)
        return &s->cap;
    if (msr == MSR_IA32_MTRR_DEF_TYPE)
        return &s->def_type;
    if (msr >= MSR_IA32_MTRR_PHYSBASE0 && msr < MSR_IA32_MTRR_PHYSBASE0 + 2 * var_count(s))
        return &s->var[msr - MSR_IA32_MTRR_PHYSBASE0];
    int f = fixed_index(msr);
    if (f >= 0 && (s->cap & MTRRCAP_FIX))
        return &s->fixed[f];
    return NULL;
}

/* Would the hardware take this value (SDM Vol. 3A 12.11.2-12.11.3)? */
static bool mtrr_value_valid(const struct mtrr_shadow *s, uint32_t msr, uint64_t value)
{
    if (msr == MSR_IA32_MTRRCAP)
        return false;                               /* read-only */
    if (msr == MSR_IA32_MTRR_DEF_TYPE)
        return !(value & ~(0xffull | MTRR_DEF_TYPE_FE | MTRR_DEF_TYPE_E)) &&
               mtrr_type_valid(s, value & 0xff);
    if (fixed_index(msr) >= 0) {
        for (unsigned int b = 0; b < 64; b += 8)
            if (!mtrr_type_valid(s, (value >> b) & 0xff))
                return false;
        return true;
    }
    if ((msr - MSR_IA32_MTRR_PHYSBASE0) % 2 == 0)   /* PHYSBASEn */
        return !(value & (phys_reserved() | 0xf00ull)) && mtrr_type_valid(s, value & 0xff);
    return !(value & (phys_reserved() | 0x7ffull));  /* PHYSMASKn */
}

enum msr_access_result msr_guard_mtrr_read(struct vcpu *v, uint32_t msr, uint64_t *value)
{
    const uint64_t *slot = mtrr_slot(mtrr_shadow_of(v), msr);
    if (!slot)
        return MSR_ACCESS_GP;
    *value = *slot;
    return MSR_ACCESS_DONE;
}

/* The real MTRRs are never written: they decide the memory types of
 * Vertigo's own accesses, and a guest could make its memory uncacheable. */
enum msr_access_result msr_guard_mtrr_write(struct vcpu *v, uint32_t msr, uint64_t value)
{
    struct mtrr_shadow *s = mtrr_shadow_of(v);
    uint64_t *slot = mtrr_slot(s, msr);
    if (!slot || !mtrr_value_valid(s, msr, value))
        return MSR_ACCESS_GP;
    *slot = value;
    return MSR_ACCESS_DONE;
}

/* ---- IA32_MISC_ENABLE ------------------------------------------------------- */

/* What the guest reads: the PMU is not available, nor BTS or PEBS. */
static uint64_t misc_enable_view(uint64_t real)
{
    return (real & ~MISC_ENABLE_PERFMON_AVAILABLE) | MISC_ENABLE_BTS_UNAVAILABLE |
           MISC_ENABLE_PEBS_UNAVAILABLE;
}

enum msr_access_result msr_guard_misc_enable_read(struct vcpu *v, uint32_t msr, uint64_t *value)
{
    uint64_t real;
    (void)v;
    if (rdmsr_safe(msr, &real) != 0)
        return MSR_ACCESS_GP;
    *value = misc_enable_view(real);
    return MSR_ACCESS_DONE;
}

/* A write may change the bits Vertigo does not keep; one that would change
 * a kept bit from what the guest reads is refused like a reserved bit. */
enum msr_access_result msr_guard_misc_enable_write(struct vcpu *v, uint32_t msr, uint64_t value)
{
    uint64_t real;
    (void)v;
    if (rdmsr_safe(msr, &real) != 0)
        return MSR_ACCESS_GP;
    if ((value ^ misc_enable_view(real)) & MISC_ENABLE_OWNED)
        return MSR_ACCESS_GP;
    uint64_t merged = (value & ~MISC_ENABLE_OWNED) | (real & MISC_ENABLE_OWNED);
    return wrmsr_safe(msr, merged) == 0 ? MSR_ACCESS_DONE : MSR_ACCESS_GP;
}
