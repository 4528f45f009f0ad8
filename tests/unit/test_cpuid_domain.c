/* A Linux domain's CPUID: x2APIC and TSC-deadline on, MONITOR and the
 * features without a model off, the hypervisor bit, leaves 0x15/0x16
 * giving back the TSC rate, leaf 0xB's topology for 1, 2, 3 and 8 VCPUs,
 * hidden leaves, and what passes untouched. */
#include "tests/unit/unit.h"
#include "vmm/vhw/cpuid_domain.h"
#include "vmm/vhw/vlapic.h"

#define ALL_ONES (struct cpuid_domain_regs){ ~0u, ~0u, ~0u, ~0u }

static struct cpuid_domain_regs ask(const struct cpuid_domain *d, uint32_t apic_id,
                                    uint32_t leaf, uint32_t subleaf,
                                    struct cpuid_domain_regs host)
{
    cpuid_domain_apply(d, apic_id, leaf, subleaf, &host);
    return host;
}

TEST(leaf_1_features_and_ids)
{
    struct cpuid_domain d = { .vcpus = 2, .tsc_hz = 500000000, .host_max_leaf = 0x20 };
    struct cpuid_domain_regs r = ask(&d, 1, 1, 0, (struct cpuid_domain_regs){ 0x906ea, 0x00ff0800, 0, 0 });

    CHECK_EQ(r.eax, 0x906ea);
    CHECK_EQ(r.ebx, 0x01020800);            /* APIC ID 1, 2 logical processors, CLFLUSH kept */
    CHECK_EQ(r.ecx, (1u << 21) | (1u << 24) | (1u << 31));
    CHECK_EQ(r.edx, (1u << 9) | (1u << 28));
    r = ask(&d, 0, 1, 0, ALL_ONES);
    CHECK_EQ(r.ecx & ((1u << 3) | (1u << 5) | (1u << 6) | (1u << 7) | (1u << 8) | (1u << 15)), 0);
    CHECK_EQ(r.edx & ((1u << 7) | (1u << 14) | (1u << 22) | (1u << 29) | (1u << 21)), 0);
    CHECK_EQ(r.ecx & (1u << 0), 1u << 0);   /* SSE3 and the rest pass */
    d.vcpus = 1;
    CHECK_EQ(ask(&d, 0, 1, 0, ALL_ONES).edx & (1u << 28), 0);
}

TEST(leaf_15_and_16_give_the_tsc_rate)
{
    static const uint64_t rates[] = { 500000000ull, 2100000000ull, 4294967295ull,
                                      4294967296ull, 5000000000ull, 3000000001ull };
    for (unsigned i = 0; i < sizeof rates / sizeof rates[0]; i++) {
        struct cpuid_domain d = { .vcpus = 1, .tsc_hz = rates[i], .host_max_leaf = 0xd };
        struct cpuid_domain_regs r = ask(&d, 0, 0x15, 0, ALL_ONES);
        uint64_t ratio = cpuid_domain_tsc_per_crystal(&d);
        uint64_t tsc = (uint64_t)r.ecx * r.ebx / r.eax;

        CHECK_EQ(r.eax, 1);
        CHECK_EQ(r.ebx, ratio);
        CHECK(rates[i] - tsc < ratio);      /* exact up to the ratio's rounding */
        CHECK_EQ(ratio, rates[i] <= 0xffffffffull ? 1 : 2);
        r = ask(&d, 0, 0x16, 0, ALL_ONES);
        CHECK_EQ(r.eax, rates[i] / 1000000);
        CHECK_EQ(r.ebx, rates[i] / 1000000);
        CHECK_EQ(r.ecx, rates[i] / ratio / 1000000);
        CHECK_EQ(r.edx, 0);
    }
}

TEST(leaf_b_topology)
{
    static const struct { unsigned vcpus; uint32_t shift; } cases[] = {
        { 1, 0 }, { 2, 1 }, { 3, 2 }, { 8, 3 },
    };
    for (unsigned i = 0; i < 4; i++) {
        struct cpuid_domain d = { .vcpus = cases[i].vcpus, .tsc_hz = 1000000, .host_max_leaf = 2 };
        uint32_t id = cases[i].vcpus - 1;
        struct cpuid_domain_regs smt = ask(&d, id, 0xb, 0, ALL_ONES);
        struct cpuid_domain_regs core = ask(&d, id, 0xb, 1, ALL_ONES);
        struct cpuid_domain_regs end = ask(&d, id, 0xb, 2, ALL_ONES);

        CHECK_EQ(smt.eax, 0);
        CHECK_EQ(smt.ebx, 1);
        CHECK_EQ(smt.ecx, 0x100);
        CHECK_EQ(smt.edx, id);
        CHECK_EQ(core.eax, cases[i].shift);
        CHECK_EQ(core.ebx, cases[i].vcpus);
        CHECK_EQ(core.ecx, 0x201);
        CHECK_EQ(core.edx, id);
        CHECK_EQ(end.eax, 0);
        CHECK_EQ(end.ebx, 0);
        CHECK_EQ(end.ecx, 2);               /* level type 0: the list ends */
        CHECK_EQ(end.edx, id);
        CHECK(id >> core.eax == 0);         /* every ID fits the core field: one package */
    }
}

TEST(leaf_4_counts_cores_and_sharing)
{
    struct cpuid_domain d = { .vcpus = 4, .tsc_hz = 1, .host_max_leaf = 0x16 };
    /* host: L1 data (type 1, level 1), L3 unified (type 3, level 3) */
    struct cpuid_domain_regs l1 = ask(&d, 0, 4, 0, (struct cpuid_domain_regs){ 0xfc004121, 1, 2, 3 });
    struct cpuid_domain_regs l3 = ask(&d, 0, 4, 3, (struct cpuid_domain_regs){ 0xfc0fc163, 1, 2, 3 });
    struct cpuid_domain_regs none = ask(&d, 0, 4, 4, (struct cpuid_domain_regs){ 0, 0, 0, 0 });

    CHECK_EQ(l1.eax, (3u << 26) | 0x121);
    CHECK_EQ(l3.eax, (3u << 26) | (3u << 14) | 0x163);
    CHECK_EQ(l3.ecx, 2);
    CHECK_EQ(none.eax, 0);
}

TEST(hidden_and_synthesized_leaves)
{
    struct cpuid_domain d = { .vcpus = 1, .tsc_hz = 1000000000, .host_max_leaf = 0xd };
    struct cpuid_domain_regs r;

    CHECK_EQ(ask(&d, 0, 0, 0, (struct cpuid_domain_regs){ 0xd, 1, 2, 3 }).eax, 0x16);
    CHECK_EQ(ask(&d, 0, 0, 0, (struct cpuid_domain_regs){ 0x20, 1, 2, 3 }).ebx, 1);
    r = ask(&d, 0, 5, 0, ALL_ONES);
    CHECK(r.eax == 0 && r.ebx == 0 && r.ecx == 0 && r.edx == 0);
    r = ask(&d, 0, 6, 0, ALL_ONES);
    CHECK(r.eax == 4 && r.ebx == 0 && r.ecx == 0 && r.edx == 0);
    /* past the host's maximum: zero, not the host's repeated highest leaf */
    r = ask(&d, 0, 0x12, 0, ALL_ONES);
    CHECK(r.eax == 0 && r.ebx == 0 && r.ecx == 0 && r.edx == 0);
    d.host_max_leaf = 0x3;
    r = ask(&d, 0, 4, 0, ALL_ONES);
    CHECK(r.eax == 0 && r.ebx == 0 && r.ecx == 0 && r.edx == 0);
    CHECK_EQ(ask(&d, 0, 6, 0, ALL_ONES).eax, 4);
    d.host_max_leaf = 0x20;
    r = ask(&d, 0, 0x12, 0, ALL_ONES);
    CHECK_EQ(r.eax, ~0u);
    r = ask(&d, 0, 0x1f, 0, ALL_ONES);
    CHECK(r.eax == 0 && r.ebx == 0 && r.ecx == 0 && r.edx == 0);
    r = ask(&d, 0, 7, 0, ALL_ONES);
    CHECK_EQ(r.ecx & (1u << 23), 0);
    CHECK_EQ(r.edx & ((1u << 15) | (1u << 18)), 0);
    CHECK_EQ(r.ebx, ~0u);
    CHECK_EQ(ask(&d, 0, 7, 1, ALL_ONES).edx, ~0u);
}

TEST(pmu_extended_and_hypervisor_leaves_pass)
{
    struct cpuid_domain d = { .vcpus = 1, .tsc_hz = 1000000000, .host_max_leaf = 0x16 };
    struct cpuid_domain_regs pmu = { 0x07300404, 0, 0, 0x603 }, r;

    r = ask(&d, 0, 0xa, 0, pmu);
    CHECK(r.eax == pmu.eax && r.edx == pmu.edx);
    CHECK_EQ(ask(&d, 0, 0x80000001, 0, ALL_ONES).edx, ~0u);
    CHECK_EQ(ask(&d, 0, 0x40000000, 0, ALL_ONES).eax, ~0u);
    r = ask(&d, 0, 0x80000007, 0, ALL_ONES);
    CHECK(r.eax == 0 && r.ebx == 0 && r.ecx == 0 && r.edx == (1u << 8));
}

/* Linux takes the APIC timer's rate from leaf 0x15's crystal
 * (native_calibrate_tsc: lapic_timer_period = crystal kHz * 1000 / HZ) and
 * programs period / 16 counts at divide-by-16 for one jiffy: on the virtual
 * x2APIC driven by cpuid_domain_tsc_per_crystal that jiffy lasts
 * tsc_hz / HZ guest TSC ticks, up to the crystal's rounding. */
TEST(apic_timer_rate_agrees_with_leaf_15)
{
    static const uint64_t rates[] = { 500000000ull, 2100000000ull, 5000000000ull };
    const uint64_t hz = 250;

    for (unsigned i = 0; i < 3; i++) {
        struct cpuid_domain d = { .vcpus = 1, .tsc_hz = rates[i], .host_max_leaf = 0x16 };
        struct cpuid_domain_regs r = ask(&d, 0, 0x15, 0, ALL_ONES);
        uint64_t period = (r.ecx / 1000) * 1000 / hz, jiffy_tsc;
        struct vlapic a;

        vlapic_init(&a, 0, true, cpuid_domain_tsc_per_crystal(&d));
        CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_SVR, 0x1ff, 0), VLAPIC_OK);
        CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_DCR, 0x3, 0), VLAPIC_OK);
        CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_LVT_TIMER, 0xec | VLAPIC_TIMER_PERIODIC, 0),
                 VLAPIC_OK);
        CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_ICR, period / 16, 0), VLAPIC_OK);
        jiffy_tsc = vlapic_next_deadline(&a);
        CHECK(jiffy_tsc <= rates[i] / hz);
        CHECK(rates[i] / hz - jiffy_tsc <= rates[i] / hz / 10000);   /* within 100 ppm */
    }
}
