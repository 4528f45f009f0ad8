/* Unit tests of the MSR policy (vmx/msr_policy.c, vmx/msr_guard.c): the
 * MSR bitmap intercepts every MSR that reaches physical memory or
 * Vertigo's state, and each guest access to one is emulated, filtered or
 * refused with #GP as docs/architecture.md's "Owned MSRs" table says,
 * against a model of the CPU's MSRs that counts every real access (a
 * refused or emulated write must never reach the hardware). */
#include "tests/unit/unit.h"

#include "lib/cpu.h"
#include "lib/msr.h"
#include "vmm/vcpu.h"
#include "vmx/apic_guard.h"
#include "vmx/msr_guard.h"
#include "vmx/msr_policy.h"
#include "pmu/pmu_loop.h"

/* ---- A model of the CPU's MSRs -------------------------------------------- */

#define MODEL_MSRS 64

static struct model_msr {
    uint32_t msr;
    uint64_t value;
    unsigned int reads, writes;
} model[MODEL_MSRS];
static unsigned int model_count;

static struct model_msr *model_find(uint32_t msr)
{
    for (unsigned int i = 0; i < model_count; i++)
        if (model[i].msr == msr)
            return &model[i];
    return NULL;
}

static void model_set(uint32_t msr, uint64_t value)
{
    struct model_msr *m = model_find(msr);
    if (!m) {
        m = &model[model_count++];
        m->msr = msr;
    }
    m->value = value;
}

static unsigned int model_writes(uint32_t msr)
{
    const struct model_msr *m = model_find(msr);
    return m ? m->writes : 0;
}

/* MSRs the model does not hold #GP, like a CPU without them. */
int rdmsr_safe(uint32_t msr, uint64_t *value)
{
    struct model_msr *m = model_find(msr);
    if (!m)
        return -1;
    m->reads++;
    *value = m->value;
    return 0;
}

int wrmsr_safe(uint32_t msr, uint64_t value)
{
    struct model_msr *m = model_find(msr);
    if (!m)
        return -1;
    m->writes++;
    m->value = value;
    return 0;
}

/* The table's other handlers (vmx/apic_guard.c and the mode traps) are
 * not under test here; weak, so a table without them links too. */
enum msr_access_result vmx_efer_read(struct vcpu *v, uint32_t msr, uint64_t *value);
enum msr_access_result vmx_efer_write(struct vcpu *v, uint32_t msr, uint64_t value);

__attribute__((weak)) enum msr_access_result apic_guard_x2apic_icr(struct vcpu *v, uint32_t msr,
                                                                   uint64_t value)
{
    (void)v; (void)msr; (void)value;
    return MSR_ACCESS_DONE;
}

__attribute__((weak)) enum msr_access_result apic_guard_x2apic_lvtpc(struct vcpu *v, uint32_t msr,
                                                                     uint64_t value)
{
    (void)v; (void)msr; (void)value;
    return MSR_ACCESS_DONE;
}

__attribute__((weak)) enum msr_access_result apic_guard_x2apic_svr(struct vcpu *v, uint32_t msr,
                                                                   uint64_t value)
{
    (void)v; (void)msr; (void)value;
    return MSR_ACCESS_DONE;
}

__attribute__((weak)) enum msr_access_result vmx_efer_read(struct vcpu *v, uint32_t msr,
                                                           uint64_t *value)
{
    (void)v; (void)msr; (void)value;
    return MSR_ACCESS_DONE;
}

__attribute__((weak)) enum msr_access_result vmx_efer_write(struct vcpu *v, uint32_t msr,
                                                            uint64_t value)
{
    (void)v; (void)msr; (void)value;
    return MSR_ACCESS_DONE;
}

/* No guest virtual PMU here: its MSRs #GP, as without pmu.guest=on. */
bool pmu_exit_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value)
{
    (void)v; (void)msr; (void)value;
    return false;
}

bool pmu_exit_wrmsr(struct vcpu *v, uint32_t msr, uint64_t value)
{
    (void)v; (void)msr; (void)value;
    return false;
}

/* ---- Guest accesses through the policy, as vmx/exit_msr.c makes them ------- */

/* Each test that reaches the MTRR shadows uses VCPUs of its own: a shadow
 * is loaded once per VCPU. */
static struct vcpu vcpus[4] = { { .id = 0 }, { .id = 1 }, { .id = 2 }, { .id = 3 } };

static enum msr_access_result guest_rdmsr(unsigned int vcpu, uint32_t msr, uint64_t *value)
{
    const struct msr_rule *r = msr_policy_find(msr);
    if (!r)
        return rdmsr_safe(msr, value) == 0 ? MSR_ACCESS_DONE : MSR_ACCESS_GP;
    return r->read(&vcpus[vcpu], msr, value);
}

static enum msr_access_result guest_wrmsr(unsigned int vcpu, uint32_t msr, uint64_t value)
{
    const struct msr_rule *r = msr_policy_find(msr);
    if (!r)
        return wrmsr_safe(msr, value) == 0 ? MSR_ACCESS_DONE : MSR_ACCESS_GP;
    return r->write(&vcpus[vcpu], msr, value);
}

#define APIC_BASE_VALUE  (0xfee00000ull | APIC_BASE_ENABLE | APIC_BASE_BSP)
#define MISC_ENABLE_REAL (MISC_ENABLE_PERFMON_AVAILABLE | 1ull /* fast strings */ | \
                          (1ull << 16) /* EIST */)
#define MTRRCAP_REAL     (8ull | MTRRCAP_FIX | MTRRCAP_WC | MTRRCAP_SMRR)

/* A CPU with an APIC, a TSC, MISC_ENABLE, 8 variable and the fixed MTRRs
 * and SMRR, and a PMU with PEBS, DS and Intel PT. */
static void cpu_reset(void)
{
    memset(model, 0, sizeof(model));
    model_count = 0;
    model_set(MSR_IA32_APIC_BASE, APIC_BASE_VALUE);
    model_set(MSR_IA32_TSC, 123456789);
    model_set(MSR_IA32_TSC_ADJUST, 0);
    model_set(MSR_IA32_MISC_ENABLE, MISC_ENABLE_REAL);
    model_set(MSR_IA32_MTRRCAP, MTRRCAP_REAL);
    model_set(MSR_IA32_MTRR_DEF_TYPE, 0xc06);           /* enabled, fixed on, WB */
    for (uint32_t i = 0; i < 16; i++)
        model_set(MSR_IA32_MTRR_PHYSBASE0 + i, i == 0 ? 0x80000000ull : i == 1 ? 0xf80000800ull : 0);
    model_set(MSR_IA32_MTRR_FIX64K_00000, 0x0606060606060606ull);
    model_set(MSR_IA32_MTRR_FIX16K_80000, 0x0606060606060606ull);
    model_set(MSR_IA32_MTRR_FIX16K_A0000, 0);
    for (uint32_t m = MSR_IA32_MTRR_FIX4K_C0000; m <= MSR_IA32_MTRR_FIX4K_F8000; m++)
        model_set(m, 0x0505050505050505ull);
    model_set(MSR_IA32_SMRR_PHYSBASE, 0x7f000006);
    model_set(MSR_IA32_SMRR_PHYSMASK, 0xff000800);
    model_set(MSR_IA32_PEBS_ENABLE, 0);
    model_set(MSR_IA32_DS_AREA, 0);
    model_set(MSR_IA32_RTIT_CTL, 0);
    model_set(MSR_IA32_RTIT_OUTPUT_BASE, 0);
    model_set(MSR_IA32_PAT, 0x0007040600070406ull);
    model_set(MSR_IA32_XSS, 0);
    model_set(MSR_IA32_LBR_CTL, 0);
    model_set(MSR_IA32_LBR_FROM_0, 0xffffffff81000000ull);   /* a branch of someone's */
    msr_guard_init(39);
}

/* The guest MSRs that must be intercepted, first and last of each range. */
static const uint32_t guarded[] = {
    MSR_IA32_APIC_BASE, MSR_IA32_TSC, MSR_IA32_TSC_ADJUST, MSR_IA32_MISC_ENABLE,
    MSR_IA32_MTRRCAP, MSR_IA32_MTRR_DEF_TYPE, MSR_IA32_MTRR_PHYSBASE0, MSR_IA32_MTRR_VAR_LAST,
    MSR_IA32_MTRR_FIX64K_00000, MSR_IA32_MTRR_FIX16K_80000, MSR_IA32_MTRR_FIX16K_A0000,
    MSR_IA32_MTRR_FIX4K_C0000, MSR_IA32_MTRR_FIX4K_F8000, MSR_IA32_SMRR_PHYSBASE,
    MSR_IA32_SMRR_PHYSMASK, MSR_IA32_PEBS_ENABLE, MSR_PEBS_LD_LAT, MSR_PEBS_FRONTEND,
    MSR_IA32_DS_AREA, MSR_OFFCORE_RSP_0, MSR_OFFCORE_RSP_1, MSR_PERF_METRICS,
    MSR_IA32_RTIT_OUTPUT_BASE, MSR_IA32_RTIT_OUTPUT_MASK_PTRS, MSR_IA32_RTIT_CTL,
    MSR_IA32_RTIT_STATUS, MSR_IA32_RTIT_CR3_MATCH, MSR_IA32_RTIT_ADDR0_A,
    MSR_IA32_RTIT_ADDR3_B, MSR_IA32_XSS, MSR_IA32_LBR_INFO_0, MSR_IA32_LBR_INFO_0 + 31,
    MSR_IA32_LBR_CTL, MSR_IA32_LBR_DEPTH, MSR_IA32_LBR_FROM_0, MSR_IA32_LBR_TO_0 + 31,
    MSR_IA32_LBR_LAST,
};

/* Refused with #GP for read and write, as on a CPU without them. */
static const uint32_t refused[] = {
    MSR_IA32_TSC_ADJUST, MSR_IA32_SMRR_PHYSBASE, MSR_IA32_SMRR_PHYSMASK,
    MSR_IA32_PEBS_ENABLE, MSR_PEBS_LD_LAT, MSR_PEBS_FRONTEND, MSR_IA32_DS_AREA,
    MSR_OFFCORE_RSP_0, MSR_OFFCORE_RSP_1, MSR_PERF_METRICS, MSR_IA32_RTIT_OUTPUT_BASE,
    MSR_IA32_RTIT_OUTPUT_MASK_PTRS, MSR_IA32_RTIT_CTL, MSR_IA32_RTIT_STATUS,
    MSR_IA32_RTIT_CR3_MATCH, MSR_IA32_RTIT_ADDR0_A, 0x584, MSR_IA32_RTIT_ADDR3_B,
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static bool bit(const uint8_t *bitmap, uint32_t offset, uint32_t msr)
{
    return (bitmap[offset + msr / 8] >> (msr % 8)) & 1;
}

TEST(bitmap_intercepts_reads_and_writes_of_every_guarded_msr)
{
    static uint8_t bitmap[4096];
    msr_policy_fill_bitmap(bitmap);
    for (unsigned int i = 0; i < COUNT(guarded); i++) {
        if (!CHECK(msr_policy_find(guarded[i]) != NULL) ||
            !CHECK(bit(bitmap, 0x000, guarded[i]) && bit(bitmap, 0x800, guarded[i])))
            printf("    msr %#x not intercepted\n", guarded[i]);
    }
    /* the guest's own MSRs still pass through */
    CHECK(!bit(bitmap, 0x000, MSR_IA32_PAT) && !bit(bitmap, 0x800, MSR_IA32_PAT));
    CHECK(!bit(bitmap, 0x400, MSR_IA32_LSTAR - 0xc0000000u));
    CHECK(msr_policy_find(MSR_IA32_PAT) == NULL);
}

TEST(refused_msrs_gp_and_never_reach_the_hardware)
{
    cpu_reset();
    for (unsigned int i = 0; i < COUNT(refused); i++) {
        uint64_t value = 0x5a5a;
        CHECK_EQ(guest_rdmsr(0, refused[i], &value), MSR_ACCESS_GP);
        CHECK_EQ(guest_wrmsr(0, refused[i], 0x1000), MSR_ACCESS_GP);
        CHECK_EQ(value, 0x5a5a);
        CHECK_EQ(model_writes(refused[i]), 0);
    }
    /* the TSC: read through, never written */
    uint64_t tsc = 0;
    CHECK_EQ(guest_rdmsr(0, MSR_IA32_TSC, &tsc), MSR_ACCESS_DONE);
    CHECK_EQ(tsc, 123456789);
    CHECK_EQ(guest_wrmsr(0, MSR_IA32_TSC, 0), MSR_ACCESS_GP);
    CHECK_EQ(model_writes(MSR_IA32_TSC), 0);
}

TEST(apic_base_keeps_its_address_and_stays_enabled)
{
    cpu_reset();
    uint64_t v = 0;
    CHECK_EQ(guest_rdmsr(0, MSR_IA32_APIC_BASE, &v), MSR_ACCESS_DONE);
    CHECK_EQ(v, APIC_BASE_VALUE);
    static const uint64_t bad[] = {
        (APIC_BASE_VALUE & ~APIC_BASE_ADDR_MASK) | 0x200000,   /* over Vertigo's image */
        (APIC_BASE_VALUE & ~APIC_BASE_ADDR_MASK) | 0xfed00000, /* next to the guarded page */
        APIC_BASE_VALUE & ~APIC_BASE_ENABLE,                   /* disabled */
        APIC_BASE_VALUE | (1ull << 9),                         /* reserved bit */
        APIC_BASE_VALUE & ~APIC_BASE_BSP,
    };
    for (unsigned int i = 0; i < COUNT(bad); i++)
        CHECK_EQ(guest_wrmsr(0, MSR_IA32_APIC_BASE, bad[i]), MSR_ACCESS_GP);
    CHECK_EQ(model_writes(MSR_IA32_APIC_BASE), 0);
    CHECK_EQ(guest_wrmsr(0, MSR_IA32_APIC_BASE, APIC_BASE_VALUE), MSR_ACCESS_DONE);
    CHECK_EQ(guest_wrmsr(0, MSR_IA32_APIC_BASE, APIC_BASE_VALUE | APIC_BASE_X2APIC),
             MSR_ACCESS_DONE);      /* xAPIC -> x2APIC */
    CHECK_EQ(model_find(MSR_IA32_APIC_BASE)->value, APIC_BASE_VALUE | APIC_BASE_X2APIC);
    /* and no way back to xAPIC, or to a disabled APIC, from there */
    CHECK_EQ(guest_wrmsr(0, MSR_IA32_APIC_BASE, APIC_BASE_VALUE), MSR_ACCESS_GP);
    CHECK_EQ(model_writes(MSR_IA32_APIC_BASE), 2);
}

TEST(misc_enable_hides_the_pmu_and_keeps_vertigos_bits)
{
    cpu_reset();
    uint64_t view = 0;
    CHECK_EQ(guest_rdmsr(0, MSR_IA32_MISC_ENABLE, &view), MSR_ACCESS_DONE);
    CHECK(!(view & MISC_ENABLE_PERFMON_AVAILABLE));
    CHECK(view & MISC_ENABLE_BTS_UNAVAILABLE);
    CHECK(view & MISC_ENABLE_PEBS_UNAVAILABLE);
    CHECK_EQ(view & 0x10001, 0x10001);                  /* the rest as it is */
    /* writing back what it read, with fast strings off, passes; the real
     * register keeps its PMU bits */
    CHECK_EQ(guest_wrmsr(0, MSR_IA32_MISC_ENABLE, view & ~1ull), MSR_ACCESS_DONE);
    CHECK_EQ(model_find(MSR_IA32_MISC_ENABLE)->value, MISC_ENABLE_REAL & ~1ull);
    static const uint64_t kept[] = {
        MISC_ENABLE_PERFMON_AVAILABLE, MISC_ENABLE_BTS_UNAVAILABLE,
        MISC_ENABLE_PEBS_UNAVAILABLE, MISC_ENABLE_LIMIT_CPUID, MISC_ENABLE_XD_DISABLE,
    };
    for (unsigned int i = 0; i < COUNT(kept); i++)
        CHECK_EQ(guest_wrmsr(0, MSR_IA32_MISC_ENABLE, view ^ kept[i]), MSR_ACCESS_GP);
    CHECK_EQ(model_writes(MSR_IA32_MISC_ENABLE), 1);
}

TEST(mtrrs_are_a_per_vcpu_shadow_never_the_real_ones)
{
    cpu_reset();
    uint64_t v = 0;
    CHECK_EQ(guest_rdmsr(0, MSR_IA32_MTRRCAP, &v), MSR_ACCESS_DONE);
    CHECK_EQ(v, MTRRCAP_REAL & ~MTRRCAP_SMRR);          /* SMRR hidden */
    CHECK_EQ(guest_rdmsr(0, MSR_IA32_MTRR_PHYSBASE0 + 1, &v), MSR_ACCESS_DONE);
    CHECK_EQ(v, 0xf80000800ull);
    /* the guest makes everything uncacheable: only its shadow changes */
    CHECK_EQ(guest_wrmsr(0, MSR_IA32_MTRR_DEF_TYPE, 0x800), MSR_ACCESS_DONE);
    CHECK_EQ(guest_wrmsr(0, MSR_IA32_MTRR_PHYSBASE0, 0x200000), MSR_ACCESS_DONE);
    CHECK_EQ(guest_wrmsr(0, MSR_IA32_MTRR_PHYSBASE0 + 1, 0x7ffe00800ull), MSR_ACCESS_DONE);
    CHECK_EQ(guest_wrmsr(0, MSR_IA32_MTRR_FIX4K_F8000, 0), MSR_ACCESS_DONE);
    CHECK_EQ(guest_rdmsr(0, MSR_IA32_MTRR_DEF_TYPE, &v), MSR_ACCESS_DONE);
    CHECK_EQ(v, 0x800);
    CHECK_EQ(guest_rdmsr(0, MSR_IA32_MTRR_PHYSBASE0, &v), MSR_ACCESS_DONE);
    CHECK_EQ(v, 0x200000);
    for (uint32_t m = MSR_IA32_MTRR_PHYSBASE0; m <= MSR_IA32_MTRR_FIX4K_F8000; m++)
        CHECK_EQ(model_writes(m), 0);
    CHECK_EQ(model_find(MSR_IA32_MTRR_DEF_TYPE)->value, 0xc06);
    /* another VCPU has its own shadow */
    CHECK_EQ(guest_rdmsr(1, MSR_IA32_MTRR_DEF_TYPE, &v), MSR_ACCESS_DONE);
    CHECK_EQ(v, 0xc06);
}

TEST(mtrr_writes_the_hardware_would_refuse_gp)
{
    cpu_reset();
    uint64_t v = 0;
    static const struct { uint32_t msr; uint64_t value; } bad[] = {
        { MSR_IA32_MTRRCAP, 0 },                             /* read-only */
        { MSR_IA32_MTRR_DEF_TYPE, 0x802 },                   /* type 2 is reserved */
        { MSR_IA32_MTRR_DEF_TYPE, 0x1806 },                  /* reserved bit 12 */
        { MSR_IA32_MTRR_PHYSBASE0, 0x80000007 },             /* type 7 */
        { MSR_IA32_MTRR_PHYSBASE0, 0x80000106 },             /* reserved bit 8 */
        { MSR_IA32_MTRR_PHYSBASE0, 1ull << 39 },             /* above MAXPHYADDR */
        { MSR_IA32_MTRR_PHYSBASE0 + 1, 0x800 | 1 },          /* reserved bit 0 */
        { MSR_IA32_MTRR_PHYSBASE0 + 16, 0 },                 /* beyond VCNT = 8 */
        { MSR_IA32_MTRR_VAR_LAST, 0 },
        { MSR_IA32_MTRR_FIX64K_00000, 0x0606060606060603ull }, /* one byte reserved */
    };
    for (unsigned int i = 0; i < COUNT(bad); i++)
        if (!CHECK_EQ(guest_wrmsr(2, bad[i].msr, bad[i].value), MSR_ACCESS_GP))
            printf("    msr %#x value %#" PRIx64 "\n", bad[i].msr, bad[i].value);
    CHECK_EQ(guest_rdmsr(2, MSR_IA32_MTRR_PHYSBASE0 + 16, &v), MSR_ACCESS_GP);
    CHECK_EQ(guest_rdmsr(2, MSR_IA32_MTRR_DEF_TYPE, &v), MSR_ACCESS_DONE);
    CHECK_EQ(v, 0xc06);                                  /* nothing changed */
    /* without fixed-range MTRRs those are absent; without MTRRs, all are */
    cpu_reset();
    model_find(MSR_IA32_MTRRCAP)->value = 2;
    CHECK_EQ(guest_rdmsr(3, MSR_IA32_MTRR_FIX64K_00000, &v), MSR_ACCESS_GP);
    CHECK_EQ(guest_wrmsr(3, MSR_IA32_MTRR_PHYSBASE0 + 3, 0x800), MSR_ACCESS_DONE);
    CHECK_EQ(guest_wrmsr(3, MSR_IA32_MTRR_PHYSBASE0 + 4, 0), MSR_ACCESS_GP);
}

/* IA32_XSS holds no supervisor component: Intel PT's state (bit 8) restored
 * by XRSTORS would carry an output base past the EPT, and no component is
 * switched between domains. Only 0 is taken, and never written through. */
TEST(xss_stays_zero_and_never_reaches_the_hardware)
{
    uint64_t value = 1;
    cpu_reset();
    CHECK_EQ(guest_rdmsr(0, MSR_IA32_XSS, &value), MSR_ACCESS_DONE);
    CHECK_EQ(value, 0);
    CHECK_EQ(guest_wrmsr(0, MSR_IA32_XSS, 0), MSR_ACCESS_DONE);
    for (unsigned int bit = 0; bit < 64; bit++)
        CHECK_EQ(guest_wrmsr(0, MSR_IA32_XSS, 1ull << bit), MSR_ACCESS_GP);
    CHECK_EQ(model_writes(MSR_IA32_XSS), 0);
}

/* Architectural LBRs: LBR_CTL is not cleared by a VM exit on CPUs without
 * the "clear IA32_LBR_CTL" control, so a guest could record Vertigo's and
 * other domains' branches; the records would show them. All #GP. */
TEST(arch_lbr_msrs_gp_and_never_reach_the_hardware)
{
    static const uint32_t lbr[] = { MSR_IA32_LBR_CTL, MSR_IA32_LBR_DEPTH,
        MSR_IA32_LBR_INFO_0, MSR_IA32_LBR_FROM_0, MSR_IA32_LBR_TO_0 + 31 };
    uint64_t value;
    cpu_reset();
    for (unsigned int i = 0; i < sizeof(lbr) / sizeof(lbr[0]); i++) {
        CHECK_EQ(guest_rdmsr(0, lbr[i], &value), MSR_ACCESS_GP);
        CHECK_EQ(guest_wrmsr(0, lbr[i], 1), MSR_ACCESS_GP);
    }
    CHECK_EQ(model_writes(MSR_IA32_LBR_CTL), 0);
}

/* The rules' ranges are well formed and never overlap, so the order of
 * the table (the guest's PMU first, for speed) decides nothing but how
 * soon a rule is found: every MSR finds the one rule that covers it. */
TEST(no_two_rules_cover_the_same_msr)
{
    unsigned int count = 0;
    const struct msr_rule *rules = msr_policy_rules(&count);
    CHECK(count > 0);
    for (unsigned int i = 0; i < count; i++) {
        CHECK(rules[i].first <= rules[i].last);
        for (unsigned int j = i + 1; j < count; j++)
            if (!CHECK(rules[i].last < rules[j].first || rules[j].last < rules[i].first))
                fprintf(stderr, "    %s and %s overlap\n", rules[i].what, rules[j].what);
        CHECK(msr_policy_find(rules[i].first) == &rules[i]);
        CHECK(msr_policy_find(rules[i].last) == &rules[i]);
    }
}
