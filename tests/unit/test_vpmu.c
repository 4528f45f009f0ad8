/* The guest's virtual PMU (pmu/vpmu/vpmu_regs.c, pmu/vpmu/vpmu_count.c) against the
 * register-level model of the architectural PMU (tests/unit/pmu_model.c),
 * configured as the PMU the guest is offered (version 2, 4 GP and 3 fixed
 * counters of 48 bits, no full-width writes): random sequences of MSR
 * accesses, LVTPC writes and events must leave both with the same
 * registers, the same #GPs and the same PMIs. Then the rules one by one:
 * sign extension, width, reserved bits, GLOBAL_STATUS and OVF_CTRL, fixed
 * counter control, RDPMC, CPUID leaf 0xA, writes to running counters,
 * events the backend cannot count, the next PMI's distance. */
#include <string.h>

#include "tests/unit/unit.h"
#include "tests/unit/pmu_model.h"
#include "pmu/vpmu/vpmu.h"
#include "lib/msr.h"

#define GP        4u
#define FIXED     3u
#define WIDTH_MAX ((1ull << 48) - 1)
#define AVAILABLE ((1u << VPMU_EV_CYCLES) | (1u << VPMU_EV_INSTRUCTIONS) | \
                   (1u << VPMU_EV_REF_CYCLES))
#define EVTSEL(ev, umask, bits) ((uint64_t)(ev) | (uint64_t)(umask) << 8 | (bits))
#define USR       (1ull << 16)
#define OS        (1ull << 17)
#define INT       (1ull << 20)
#define EN        (1ull << 22)
#define LVT_NMI   (4u << 8)
#define LVT_MASK  (1u << 16)

static const struct vpmu_config offered = { GP, FIXED, AVAILABLE };
static const struct pmu_model_config model_config = {
    .version = 2, .gp_counters = GP, .gp_width = 48, .fixed_mask = 0x7, .fixed_width = 48,
};

static void fresh(struct vpmu *p, struct pmu_model *m)
{
    vpmu_init(p, &offered);
    pmu_model_init(m, &model_config);
}

/* ---- Differential: the same operations on both --------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Every MSR either PMU knows, one past each counter range, and the
 * full-width aliases and version 4 registers the guest is not offered. */
static const uint32_t msrs[] = {
    0x186, 0x187, 0x188, 0x189, 0x18a, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0x4c1, 0x4c2,
    0x309, 0x30a, 0x30b, 0x30c, 0x38d, 0x38e, 0x38f, 0x390, 0x391, 0x392,
};
#define MSR_COUNT (sizeof(msrs) / sizeof(msrs[0]))

/* Values of the kinds that find the rules: anything, low 32 bits, near a
 * wrap or a sign bit, enabled event selects of countable events, valid
 * control bits. */
static uint64_t interesting_value(void)
{
    static const uint64_t selects[] = { 0xc0, 0x3c, 0x13c, 0xc4 };
    switch (rnd() % 9) {
    case 0: return rnd();
    case 8: return rnd() & 0xc00000070000001full;          /* OVF_CTRL bits */
    case 1: return rnd() & 0xffffffffull;
    case 2: return 0x100000000ull - 1 - rnd() % 64;
    case 3: return WIDTH_MAX - rnd() % 64;
    case 4: return EVTSEL(selects[rnd() % 4], 0, EN | (rnd() & (USR | OS | INT)));
    case 5: return rnd() & 0x0000000700000000full;          /* GLOBAL_CTRL bits */
    case 6: return rnd() & 0xbbbull;                         /* FIXED_CTR_CTRL bits */
    default: return 0x80000000ull - rnd() % 64;
    }
}

/* The exit path's questions of a write, asked of the register the MSR
 * number names (vpmu_reg_of), as pmu_exit_wrmsr asks them. */
static bool changes_nothing(const struct vpmu *p, uint32_t msr, uint64_t value)
{
    return vpmu_reg_write_changes_nothing(p, vpmu_reg_of(p, msr), value);
}

static enum vpmu_msr_role role_of(const struct vpmu *p, uint32_t msr)
{
    return vpmu_reg_role(vpmu_reg_of(p, msr));
}

static const struct pmu_model_event *const model_events[] = {
    &pmu_model_cycles, &pmu_model_instructions, &pmu_model_ref_cycles,
};

static void same_state(const struct vpmu *p, const struct pmu_model *m, unsigned int step)
{
    bool same = p->global_ctrl == m->global_ctrl && p->global_status == m->global_status &&
                p->fixed_ctrl == m->fixed_ctrl && p->lvtpc == m->lvtpc &&
                p->pmis_delivered == m->pmi_nmis + m->pmi_vectors &&
                p->pmis_masked == m->pmis_lost;
    for (unsigned int k = 0; k < GP; k++)
        same &= p->evtsel[k] == m->evtsel[k] && p->pmc[k] == m->pmc[k];
    for (unsigned int j = 0; j < FIXED; j++)
        same &= p->fixed[j] == m->fixed[j];
    if (!same)
        fprintf(stderr, "    state differs after step %u\n", step);
    CHECK(same);
}

static void one_step(struct vpmu *p, struct pmu_model *m, unsigned int step)
{
    uint32_t msr = msrs[rnd() % MSR_COUNT];
    uint64_t a = 0, b = 0, value = interesting_value();
    /* The model counts every event regardless of CMASK, INV and EDGE (not
     * modelled there); the virtual PMU's rule for them has its own test. */
    if (msr >= MSR_IA32_PERFEVTSEL0 && msr < MSR_IA32_PERFEVTSEL0 + 8)
        value &= ~(0xff800000ull | 1ull << 18);
    switch (rnd() % 4) {
    case 0: {
        bool gp = vpmu_rdmsr(p, msr, &a) == VPMU_GP;
        bool model_gp = pmu_model_rdmsr(m, msr, &b) != 0;
        CHECK_EQ(gp, model_gp);
        if (!gp)
            CHECK_EQ(a, b);
        break;
    }
    case 1: {
        /* a register written again with what it holds, now and then; a
         * write that vpmu_reg_write_changes_nothing calls a no-op must be one
         * (the VM-exit loop then skips the write and all that follows) */
        if (rnd() % 4 == 0 && vpmu_rdmsr(p, msr, &a) == VPMU_DONE)
            value = a;
        struct vpmu before;
        memcpy(&before, p, sizeof(before));
        bool nothing = changes_nothing(p, msr, value);
        CHECK_EQ(vpmu_wrmsr(p, msr, value) == VPMU_GP, pmu_model_wrmsr(m, msr, value) != 0);
        if (nothing)
            CHECK(memcmp(&before, p, sizeof(before)) == 0);
        /* a write the loop neither logs as a programming nor re-checks
         * the modes for must have left what those depend on alone */
        enum vpmu_msr_role role = role_of(p, msr);
        if (role != VPMU_MSR_PROGRAM)
            CHECK(memcmp(before.evtsel, p->evtsel, sizeof(p->evtsel)) == 0 &&
                  before.fixed_ctrl == p->fixed_ctrl);
        if (role == VPMU_MSR_COUNT)
            CHECK_EQ(before.global_ctrl, p->global_ctrl);
        break;
    }
    case 2: {
        unsigned int e = (unsigned int)(rnd() % 3);
        bool user = rnd() & 1;
        uint64_t n = rnd() % 4 ? rnd() % 1000 : rnd() % (1ull << 33);
        vpmu_count(p, (enum vpmu_arch_event)e, user ? VPMU_USER : VPMU_KERNEL, n);
        pmu_model_count(m, model_events[e], user ? PMU_MODEL_USER : PMU_MODEL_KERNEL, n);
        break;
    }
    default: {
        uint32_t lvt = rnd() % 8 == 0 ? (uint32_t)rnd() :
                       (rnd() & 1 ? LVT_NMI : (uint32_t)rnd() & 0x7ffu) |
                       (rnd() % 4 ? 0 : LVT_MASK);
        vpmu_lvtpc_write(p, lvt);
        pmu_model_lvtpc_write(m, lvt);
        break;
    }
    }
    same_state(p, m, step);
}

TEST(random_accesses_match_the_register_model)
{
    struct vpmu p;
    struct pmu_model m;
    for (unsigned int run = 0; run < 20; run++) {
        fresh(&p, &m);
        for (unsigned int step = 0; step < 2000; step++)
            one_step(&p, &m, step);
    }
}

/* ---- The rules one by one ----------------------------------------------- */

TEST(a_write_of_the_value_held_changes_nothing)
{
    struct vpmu p;
    vpmu_init(&p, &offered);
    uint64_t sel = EVTSEL(0xc0, 0, EN | USR | INT);
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PERFEVTSEL0 + 1, sel), VPMU_DONE);
    CHECK(changes_nothing(&p, MSR_IA32_PERFEVTSEL0 + 1, sel));
    CHECK(!changes_nothing(&p, MSR_IA32_PERFEVTSEL0 + 1, sel | OS));
    CHECK(changes_nothing(&p, MSR_IA32_PERFEVTSEL0, 0));
    CHECK(!changes_nothing(&p, MSR_IA32_PERFEVTSEL0 + GP, 0));  /* #GP */
    CHECK(changes_nothing(&p, MSR_IA32_PERF_GLOBAL_CTRL, 0));
    CHECK(!changes_nothing(&p, MSR_IA32_PERF_GLOBAL_CTRL, 1));
    CHECK(changes_nothing(&p, MSR_IA32_FIXED_CTR_CTRL, 0));
    CHECK(changes_nothing(&p, MSR_IA32_PERF_GLOBAL_OVF_CTRL, 0));
    CHECK(!changes_nothing(&p, MSR_IA32_PERF_GLOBAL_OVF_CTRL, 1));
    CHECK(!changes_nothing(&p, MSR_IA32_PMC0, 0));      /* counters never */
    CHECK(!changes_nothing(&p, MSR_IA32_FIXED_CTR0, 0));
    CHECK(!changes_nothing(&p, MSR_IA32_PERF_GLOBAL_STATUS, 0));  /* #GP */
}

/* What each register's write can change beyond itself (the VM-exit loop
 * re-checks the modes and logs programmings by it). */
TEST(each_register_has_its_write_role)
{
    struct vpmu p;
    vpmu_init(&p, &offered);
    for (unsigned int k = 0; k < GP; k++) {
        CHECK_EQ(role_of(&p, MSR_IA32_PERFEVTSEL0 + k), VPMU_MSR_PROGRAM);
        CHECK_EQ(role_of(&p, MSR_IA32_PMC0 + k), VPMU_MSR_COUNT);
    }
    for (unsigned int j = 0; j < FIXED; j++)
        CHECK_EQ(role_of(&p, MSR_IA32_FIXED_CTR0 + j), VPMU_MSR_COUNT);
    CHECK_EQ(role_of(&p, MSR_IA32_FIXED_CTR_CTRL), VPMU_MSR_PROGRAM);
    CHECK_EQ(role_of(&p, MSR_IA32_PERF_GLOBAL_CTRL), VPMU_MSR_ENABLE);
    CHECK_EQ(role_of(&p, MSR_IA32_PERF_GLOBAL_OVF_CTRL), VPMU_MSR_COUNT);
    CHECK_EQ(role_of(&p, MSR_IA32_PMC0 + GP), VPMU_MSR_PROGRAM);    /* no such counter */
}

static uint64_t rd(struct vpmu *p, uint32_t msr)
{
    uint64_t v = 0xdead;
    CHECK_EQ(vpmu_rdmsr(p, msr, &v), VPMU_DONE);
    return v;
}

TEST(legacy_counter_writes_sign_extend_bits_31_0)
{
    struct vpmu p;
    vpmu_init(&p, &offered);
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PMC0, 0x80000000ull), VPMU_DONE);
    CHECK_EQ(rd(&p, MSR_IA32_PMC0), 0xffff80000000ull);
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PMC0 + 1, 0x1234567800000005ull), VPMU_DONE);
    CHECK_EQ(rd(&p, MSR_IA32_PMC0 + 1), 5);     /* EDX ignored */
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PMC0 + GP, 1), VPMU_GP);     /* no fifth counter */
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_A_PMC0, 1), VPMU_GP);        /* no full-width alias */
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_FIXED_CTR0, WIDTH_MAX), VPMU_DONE);
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_FIXED_CTR0, WIDTH_MAX + 1), VPMU_GP);
}

TEST(reserved_bits_fault)
{
    struct vpmu p;
    vpmu_init(&p, &offered);
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PERFEVTSEL0, 1ull << 32), VPMU_GP);
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PERFEVTSEL0, 1ull << 21), VPMU_GP);  /* AnyThread: v3 */
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PERF_GLOBAL_CTRL, 1ull << GP), VPMU_GP);
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PERF_GLOBAL_CTRL, 1ull << (32 + FIXED)), VPMU_GP);
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_FIXED_CTR_CTRL, 0x4), VPMU_GP);      /* AnyThread */
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_FIXED_CTR_CTRL, 0xbull << 12), VPMU_GP);
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_FIXED_CTR_CTRL, 0xbbb), VPMU_DONE);
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PERF_GLOBAL_STATUS, 0), VPMU_GP);    /* read-only */
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PERF_GLOBAL_OVF_CTRL, 1ull << 40), VPMU_GP);
    uint64_t v;
    CHECK_EQ(vpmu_rdmsr(&p, MSR_IA32_PERF_CAPABILITIES, &v), VPMU_GP);   /* PDCM hidden */
    CHECK_EQ(vpmu_rdmsr(&p, MSR_IA32_PERF_GLOBAL_STATUS_SET, &v), VPMU_GP);
    CHECK(vpmu_owns_msr(&p, MSR_IA32_PERF_GLOBAL_INUSE));
    CHECK(!vpmu_owns_msr(&p, MSR_IA32_DEBUGCTL));
}

/* CMASK, INV and EDGE with one event a cycle (SDM Vol. 3B 20.2.1.1): CMASK
 * 1 counts every event, CMASK 2 none (every one with INV), INV with CMASK
 * 1 none, edge detection none. kvm-unit-tests' pmu test expects a CMASK
 * of 2 on instructions to count fewer than the loop's instructions. */
TEST(counter_mask_with_one_event_a_cycle)
{
    static const struct { uint64_t bits, want; } cases[] = {
        { 0, 100 }, { 1ull << 24, 100 }, { 2ull << 24, 0 }, { 2ull << 24 | 1ull << 23, 100 },
        { 1ull << 24 | 1ull << 23, 0 }, { 0xffull << 24, 0 }, { 1ull << 18, 0 },
        { 1ull << 23, 100 },                /* INV without CMASK: ignored */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct vpmu p;
        vpmu_init(&p, &offered);
        CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PERFEVTSEL0, EVTSEL(0xc0, 0, EN | USR | OS) | cases[i].bits),
                 VPMU_DONE);
        CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PERF_GLOBAL_CTRL, 1), VPMU_DONE);
        vpmu_count(&p, VPMU_EV_INSTRUCTIONS, VPMU_USER, 100);
        if (!CHECK_EQ(rd(&p, MSR_IA32_PMC0), cases[i].want))
            fprintf(stderr, "    case %zu\n", i);
        /* the same through the lazy count's one pass over every event */
        CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PMC0, 0), VPMU_DONE);
        vpmu_count_every_event(&p, VPMU_USER, 100);
        if (!CHECK_EQ(rd(&p, MSR_IA32_PMC0), cases[i].want))
            fprintf(stderr, "    case %zu, every event at once\n", i);
    }
}

/* Instructions in user mode on GP counter 0 with a PMI, 10 before the wrap. */
static void arm_counter0(struct vpmu *p)
{
    vpmu_init(p, &offered);
    vpmu_lvtpc_write(p, LVT_NMI);
    CHECK_EQ(vpmu_wrmsr(p, MSR_IA32_PERFEVTSEL0, EVTSEL(0xc0, 0, EN | USR | INT)), VPMU_DONE);
    CHECK_EQ(vpmu_wrmsr(p, MSR_IA32_PMC0, (uint64_t)-10), VPMU_DONE);
    CHECK_EQ(vpmu_wrmsr(p, MSR_IA32_PERF_GLOBAL_CTRL, 1), VPMU_DONE);
}

TEST(overflow_sets_status_and_delivers_one_nmi_through_lvtpc)
{
    struct vpmu p;
    arm_counter0(&p);
    CHECK_EQ(vpmu_events_to_pmi(&p, VPMU_EV_INSTRUCTIONS, VPMU_USER), 10);
    CHECK_EQ(vpmu_events_to_pmi(&p, VPMU_EV_INSTRUCTIONS, VPMU_KERNEL), UINT64_MAX);
    vpmu_count(&p, VPMU_EV_INSTRUCTIONS, VPMU_KERNEL, 100);     /* OS bit clear */
    CHECK_EQ(rd(&p, MSR_IA32_PMC0), WIDTH_MAX - 9);
    vpmu_count(&p, VPMU_EV_INSTRUCTIONS, VPMU_USER, 9);
    CHECK_EQ(rd(&p, MSR_IA32_PERF_GLOBAL_STATUS), 0);
    vpmu_count(&p, VPMU_EV_INSTRUCTIONS, VPMU_USER, 3);
    CHECK_EQ(rd(&p, MSR_IA32_PMC0), 2);
    CHECK_EQ(rd(&p, MSR_IA32_PERF_GLOBAL_STATUS), 1);
    CHECK_EQ(p.nmis_pending, 1);
    CHECK(vpmu_lvtpc_read(&p) & LVT_MASK);                      /* masked on delivery */
    /* The next overflow while LVTPC is still masked is lost, as on hardware. */
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PMC0, (uint64_t)-1), VPMU_DONE);
    vpmu_count(&p, VPMU_EV_INSTRUCTIONS, VPMU_USER, 1);
    CHECK_EQ(p.pmis_masked, 1);
    CHECK_EQ(p.nmis_pending, 1);
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PERF_GLOBAL_OVF_CTRL, 1), VPMU_DONE);
    CHECK_EQ(rd(&p, MSR_IA32_PERF_GLOBAL_STATUS), 0);
}

TEST(a_write_to_a_running_counter_counts_on_from_the_new_value)
{
    struct vpmu p;
    arm_counter0(&p);
    vpmu_count(&p, VPMU_EV_INSTRUCTIONS, VPMU_USER, 5);
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PMC0, 1000), VPMU_DONE);
    vpmu_count(&p, VPMU_EV_INSTRUCTIONS, VPMU_USER, 7);
    CHECK_EQ(rd(&p, MSR_IA32_PMC0), 1007);
    CHECK_EQ(vpmu_events_to_pmi(&p, VPMU_EV_INSTRUCTIONS, VPMU_USER), WIDTH_MAX + 1 - 1007);
}

TEST(fixed_counters_count_their_event_per_mode)
{
    struct vpmu p;
    vpmu_init(&p, &offered);
    /* fixed 0 instructions (OS), fixed 1 cycles (USR), fixed 2 ref-cycles (both) */
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_FIXED_CTR_CTRL, 0x1 | 0x2 << 4 | 0x3 << 8), VPMU_DONE);
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PERF_GLOBAL_CTRL, 0x7ull << 32), VPMU_DONE);
    CHECK(vpmu_active(&p));
    CHECK(vpmu_counts_one_mode(&p));                            /* fixed 0 and 1 */
    vpmu_count(&p, VPMU_EV_INSTRUCTIONS, VPMU_USER, 11);
    vpmu_count(&p, VPMU_EV_INSTRUCTIONS, VPMU_KERNEL, 13);
    vpmu_count(&p, VPMU_EV_CYCLES, VPMU_USER, 17);
    vpmu_count(&p, VPMU_EV_CYCLES, VPMU_KERNEL, 19);
    vpmu_count(&p, VPMU_EV_REF_CYCLES, VPMU_USER, 23);
    vpmu_count(&p, VPMU_EV_REF_CYCLES, VPMU_KERNEL, 29);
    CHECK_EQ(rd(&p, MSR_IA32_FIXED_CTR0), 13);
    CHECK_EQ(rd(&p, MSR_IA32_FIXED_CTR0 + 1), 17);
    CHECK_EQ(rd(&p, MSR_IA32_FIXED_CTR0 + 2), 52);
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PERF_GLOBAL_CTRL, 0x4ull << 32), VPMU_DONE);
    CHECK(!vpmu_counts_one_mode(&p));                           /* fixed 2: both modes */
}

/* Linux's PMI handler and tick clear GLOBAL_CTRL and set it back: the
 * value set back enables what the programming then says, whether or not
 * it changed while GLOBAL_CTRL was clear. */
TEST(global_ctrl_set_back_enables_the_programming_of_that_moment)
{
    struct vpmu p;
    vpmu_init(&p, &offered);
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_FIXED_CTR_CTRL, 0x3), VPMU_DONE);     /* fixed 0: both */
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PERF_GLOBAL_CTRL, 0x1ull << 32), VPMU_DONE);
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PERF_GLOBAL_CTRL, 0), VPMU_DONE);
    vpmu_count(&p, VPMU_EV_INSTRUCTIONS, VPMU_KERNEL, 5);
    CHECK(!vpmu_counts_anything(&p));
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PERF_GLOBAL_CTRL, 0x1ull << 32), VPMU_DONE);
    vpmu_count(&p, VPMU_EV_INSTRUCTIONS, VPMU_KERNEL, 7);
    CHECK_EQ(rd(&p, MSR_IA32_FIXED_CTR0), 7);
    CHECK(!vpmu_counts_one_mode(&p));
    /* reprogrammed while clear: fixed 0 user mode only, with a PMI */
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PERF_GLOBAL_CTRL, 0), VPMU_DONE);
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_FIXED_CTR_CTRL, 0xa), VPMU_DONE);
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PERF_GLOBAL_CTRL, 0x1ull << 32), VPMU_DONE);
    CHECK(vpmu_counts_one_mode(&p));
    vpmu_count(&p, VPMU_EV_INSTRUCTIONS, VPMU_KERNEL, 11);
    vpmu_count(&p, VPMU_EV_INSTRUCTIONS, VPMU_USER, 13);
    CHECK_EQ(rd(&p, MSR_IA32_FIXED_CTR0), 20);
    uint64_t budget[VPMU_MODE_SETS];
    vpmu_pmi_budget(&p, budget);
    CHECK_EQ(budget[VPMU_ONLY_USER], WIDTH_MAX + 1 - 20);
    CHECK_EQ(budget[VPMU_BOTH_MODES], UINT64_MAX);
    /* another value, then the first again */
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PERF_GLOBAL_CTRL, 0), VPMU_DONE);
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_FIXED_CTR_CTRL, 0xa | 0x3 << 4), VPMU_DONE);
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PERF_GLOBAL_CTRL, 0x2ull << 32), VPMU_DONE);
    CHECK(!vpmu_counts_one_mode(&p));
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PERF_GLOBAL_CTRL, 0x1ull << 32), VPMU_DONE);
    CHECK(vpmu_counts_one_mode(&p));
    vpmu_count(&p, VPMU_EV_INSTRUCTIONS, VPMU_USER, 3);
    vpmu_count(&p, VPMU_EV_CYCLES, VPMU_USER, 100);
    CHECK_EQ(rd(&p, MSR_IA32_FIXED_CTR0), 23);
    CHECK_EQ(rd(&p, MSR_IA32_FIXED_CTR0 + 1), 0);
}

TEST(events_the_backend_cannot_count_count_nothing)
{
    struct vpmu p;
    vpmu_init(&p, &offered);
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PERFEVTSEL0, EVTSEL(0xc4, 0, EN | USR | OS)), VPMU_DONE);
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PERF_GLOBAL_CTRL, 1), VPMU_DONE);
    vpmu_count(&p, VPMU_EV_BRANCHES, VPMU_USER, 100);
    vpmu_count(&p, VPMU_EV_INSTRUCTIONS, VPMU_USER, 100);
    CHECK_EQ(rd(&p, MSR_IA32_PMC0), 0);
    CHECK(!vpmu_active(&(struct vpmu){ .config = offered }));
}

TEST(rdpmc_follows_cpl_pce_index_and_fast_read_rules)
{
    struct vpmu p;
    uint64_t v = 0;
    vpmu_init(&p, &offered);
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_PMC0 + 2, 0x7fffffffull), VPMU_DONE);
    CHECK_EQ(vpmu_wrmsr(&p, MSR_IA32_FIXED_CTR0 + 1, 0x123456789abull), VPMU_DONE);
    CHECK_EQ(vpmu_rdpmc(&p, 2, 3, false, &v), VPMU_GP);         /* user mode, no PCE */
    CHECK_EQ(vpmu_rdpmc(&p, 2, 3, true, &v), VPMU_DONE);
    CHECK_EQ(v, 0x7fffffff);
    CHECK_EQ(vpmu_rdpmc(&p, 1u << 30 | 1, 0, false, &v), VPMU_DONE);
    CHECK_EQ(v, 0x123456789abull);
    CHECK_EQ(vpmu_rdpmc(&p, 1u << 31 | 1u << 30 | 1, 0, false, &v), VPMU_DONE);
    CHECK_EQ(v, 0x456789ab);                                    /* fast: bits 31:0 */
    CHECK_EQ(vpmu_rdpmc(&p, GP, 0, false, &v), VPMU_GP);
    CHECK_EQ(vpmu_rdpmc(&p, 1u << 30 | FIXED, 0, false, &v), VPMU_GP);
}

TEST(cpuid_leaf_0xa_describes_what_is_offered)
{
    uint32_t r[4];
    vpmu_cpuid_leaf(&offered, r);
    CHECK_EQ(r[0], 2u | GP << 8 | 48u << 16 | 7u << 24);
    CHECK_EQ(r[1], 0x78);           /* LLC references/misses, branches, misses: unavailable */
    CHECK_EQ(r[2], 0);
    CHECK_EQ(r[3], FIXED | 48u << 5);
}
