/* The guest's virtual PMU counted lazily on the software backend
 * (pmu/vpmu/pmu_guest_clock.c) against counting every run at its exit, as the
 * VM-exit loop did before: random sequences of guest runs (each bounded by
 * the deadline the clock gives, sometimes overshooting it by a few events
 * as Bochs' timer does), emulated instructions, register accesses and
 * LVTPC writes must deliver every PMI at the same step, give the same
 * deadlines at every entry, and leave the same registers whenever the
 * guest can look. Then the points one by one: a counter of one mode does
 * not see the other's events, a counter of both modes sees their sum, no
 * counter with a PMI means no deadline. */
#include "tests/unit/unit.h"
#include "pmu/vpmu/pmu_guest_clock.h"
#include "pmu/vpmu/vpmu.h"

#define GP        4u
#define FIXED     3u
#define WIDTH_MAX ((1ull << 48) - 1)
#define AVAILABLE ((1u << VPMU_EV_CYCLES) | (1u << VPMU_EV_INSTRUCTIONS) | \
                   (1u << VPMU_EV_REF_CYCLES))
/* The register bits by short names (pmu/vpmu/vpmu.h's) */
#define USR       VPMU_EVTSEL_USR
#define OS        VPMU_EVTSEL_OS
#define INT       VPMU_EVTSEL_INT
#define EN        VPMU_EVTSEL_EN
#define LVT_MASK  VPMU_LVT_MASKED
#define LVT_NMI   (4u << 8)
#define NO_PMI    (1ull << 60)      /* deadlines at least this far are "none" */

static const struct vpmu_config offered = { GP, FIXED, AVAILABLE };

/* One guest, counted two ways, each with the guest's LVTPC as it sees
 * it (read when a PMI is due, masked when one is delivered). */
struct side {
    struct vpmu pmu;
    uint32_t lvtpc;
    uint64_t pmis;                      /* handed to the guest */
};

struct guest {
    struct side eager, lazy;
    struct pmu_guest_clock clock;
};

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
    return unit_rand(&rng_state);
}

static void handed(struct side *s)
{
    if (s->pmu.nmis_pending || s->pmu.vectors_pending)
        s->lvtpc |= LVT_MASK;
    s->pmis += s->pmu.nmis_pending + s->pmu.vectors_pending;
    s->pmu.nmis_pending = s->pmu.vectors_pending = 0;
}

static uint64_t eager_to_pmi(const struct vpmu *p, enum vpmu_mode mode)
{
    uint64_t nearest = UINT64_MAX;
    for (unsigned int ev = 0; ev < VPMU_EV_COUNT; ev++) {
        uint64_t n = vpmu_events_to_pmi(p, (enum vpmu_arch_event)ev, mode);
        nearest = n < nearest ? n : nearest;
    }
    return nearest;
}

/* The exit loop before: every run counted at its exit. */
static void eager_count(struct guest *g, enum vpmu_mode mode, uint64_t n)
{
    struct side *e = &g->eager;
    bool pmi = eager_to_pmi(&e->pmu, mode) <= n;
    if (pmi)
        vpmu_lvtpc_write(&e->pmu, e->lvtpc);
    vpmu_count_every_event(&e->pmu, mode, n);
    if (pmi)
        handed(e);
}

/* What pmu/vpmu/pmu_guest.c does with the clock (take): with `settle` the
 * budgets set at once, else left to the caller (what they must become,
 * returned). */
static enum pmu_guest_clock_budgets lazy_take_settled(struct guest *g, bool settle)
{
    struct side *l = &g->lazy;
    bool pmi = pmu_guest_clock_due(&g->clock);
    if (pmi)
        vpmu_lvtpc_write(&l->pmu, l->lvtpc);
    enum pmu_guest_clock_budgets what = PMU_GUEST_CLOCK_KEEP;
    if (settle)
        pmu_guest_clock_take(&g->clock, &l->pmu);
    else
        what = pmu_guest_clock_count(&g->clock, &l->pmu);
    if (pmi)
        handed(l);
    return what;
}

static void lazy_take(struct guest *g)
{
    lazy_take_settled(g, true);
}

static void lazy_count(struct guest *g, enum vpmu_mode mode, uint64_t n)
{
    if (pmu_guest_clock_add(&g->clock, mode, n))
        lazy_take(g);
}

static void fresh(struct guest *g)
{
    memset(g, 0, sizeof(*g));
    vpmu_init(&g->eager.pmu, &offered);
    vpmu_init(&g->lazy.pmu, &offered);
    pmu_guest_clock_plan(&g->clock, &g->lazy.pmu);
    g->eager.lvtpc = g->lazy.lvtpc = LVT_NMI;
}

static bool same_registers(const struct vpmu *a, const struct vpmu *b)
{
    bool same = a->global_ctrl == b->global_ctrl && a->global_status == b->global_status &&
                a->fixed_ctrl == b->fixed_ctrl && a->pmis_delivered == b->pmis_delivered &&
                a->pmis_masked == b->pmis_masked;
    for (unsigned int k = 0; k < GP; k++)
        same &= a->evtsel[k] == b->evtsel[k] && a->pmc[k] == b->pmc[k];
    for (unsigned int j = 0; j < FIXED; j++)
        same &= a->fixed[j] == b->fixed[j];
    return same;
}

/* ---- Differential ------------------------------------------------------------ */

static const uint32_t msrs[] = {
    0x186, 0x187, 0x188, 0x189, 0xc1, 0xc2, 0xc3, 0xc4, 0x309, 0x30a, 0x30b,
    0x38d, 0x38e, 0x38f, 0x390,
};
#define MSR_COUNT (sizeof(msrs) / sizeof(msrs[0]))

/* Values that program counters that count, with and without PMIs, near
 * their wrap, and the controls that enable them. */
static uint64_t interesting_value(uint32_t msr)
{
    static const uint64_t selects[] = { 0xc0, 0x3c, 0x13c, 0xc4 };
    if (msr >= 0x186 && msr <= 0x189)
        return selects[rnd() % 4] | EN | (rnd() & (USR | OS | INT));
    if (msr == 0x38d)
        return rnd() & 0xbbbull;
    if (msr == 0x38f)
        return rnd() & 0x70000000full;
    if (msr == 0x390)
        return rnd() & 0x70000000full;
    return rnd() % 2 ? 0x100000000ull - 1 - rnd() % 3000 : WIDTH_MAX - rnd() % 3000;
}

/* A guest run in a random mode, as the exit loop bounds it: at most the
 * clock's deadline, or a few events past it (Bochs' late timer). */
static void run(struct guest *g)
{
    enum vpmu_mode mode = rnd() & 1 ? VPMU_USER : VPMU_KERNEL;
    uint64_t deadline = pmu_guest_clock_to_pmi(&g->clock, mode);
    uint64_t want = rnd() % 4 ? 1 + rnd() % 700 : 1 + rnd() % 100000;
    uint64_t n = want < deadline ? want : deadline;
    if (n == deadline && rnd() % 3 == 0)
        n += rnd() % 8;
    eager_count(g, mode, n);
    lazy_count(g, mode, n);
}

static void access(struct guest *g)
{
    uint32_t msr = msrs[rnd() % MSR_COUNT];
    uint64_t a = 0, b = 0;
    if (rnd() % 2) {
        lazy_take(g);   /* pmu_guest_rdmsr/_rdpmc take the events first */
        CHECK_EQ(vpmu_rdmsr(&g->eager.pmu, msr, &a), vpmu_rdmsr(&g->lazy.pmu, msr, &b));
        CHECK_EQ(a, b);
    } else {
        /* pmu_guest_write: the events taken, the write, then one plan
         * if the write can move a counter or a PMI point, else the take's
         * budgets (GLOBAL_OVF_CTRL, or a write refused) */
        enum pmu_guest_clock_budgets what = lazy_take_settled(g, false);
        uint64_t value = interesting_value(msr);
        enum vpmu_access r = vpmu_wrmsr(&g->lazy.pmu, msr, value);
        CHECK_EQ(vpmu_wrmsr(&g->eager.pmu, msr, value), r);
        if (r == VPMU_DONE && msr != 0x390)
            what = PMU_GUEST_CLOCK_REPLAN;
        pmu_guest_clock_settle(&g->clock, &g->lazy.pmu, what);
    }
}

/* False once the two differ (the sequence stops there). */
static bool one_step(struct guest *g, unsigned int step)
{
    bool same = true;
    switch (rnd() % 8) {
    case 0: case 1: case 2:
        run(g);
        break;
    case 3: {
        enum vpmu_mode mode = rnd() & 1 ? VPMU_USER : VPMU_KERNEL;
        eager_count(g, mode, 1);                    /* an emulated instruction */
        lazy_count(g, mode, 1);
        break;
    }
    case 4:
        /* the guest's handler unmasks it (or leaves it masked) */
        g->eager.lvtpc = g->lazy.lvtpc = rnd() % 4 ? LVT_NMI : LVT_NMI | LVT_MASK;
        break;
    default:
        access(g);
        same &= CHECK(same_registers(&g->eager.pmu, &g->lazy.pmu));
    }
    same &= CHECK_EQ(g->eager.pmis, g->lazy.pmis);
    same &= CHECK_EQ(g->eager.lvtpc, g->lazy.lvtpc);
    for (unsigned int mode = 0; mode < VPMU_BOTH_MODES; mode++) {
        uint64_t e = eager_to_pmi(&g->eager.pmu, (enum vpmu_mode)mode);
        uint64_t l = pmu_guest_clock_to_pmi(&g->clock, (enum vpmu_mode)mode);
        same &= CHECK_EQ(e < NO_PMI ? e : NO_PMI, l < NO_PMI ? l : NO_PMI);
    }
    if (!same)
        fprintf(stderr, "    the two differ after step %u\n", step);
    return same;
}

TEST(lazy_counting_equals_counting_every_run)
{
    static struct guest g;
    uint64_t pmis = 0;
    for (unsigned int r = 0; r < 40; r++) {
        fresh(&g);
        for (unsigned int step = 0; step < 3000; step++)
            if (!one_step(&g, step))
                return;
        lazy_take(&g);
        CHECK(same_registers(&g.eager.pmu, &g.lazy.pmu));
        pmis += g.eager.pmis;
    }
    CHECK(pmis > 100);              /* the sequences did raise PMIs */
}

/* ---- Rules one by one ---------------------------------------------------------- */

/* Counting every event at once is counting each in turn, but for counters
 * of different events that wrap at the same event: one PMI, not two (the
 * second lost to the LVTPC the first masked). */
TEST(every_event_at_once_is_each_in_turn_with_one_pmi_for_wraps_together)
{
    struct vpmu each, all;
    static const uint64_t programs[][2] = {
        { 0x186, 0xc0 | USR | OS | INT | EN }, { 0x187, 0x3c | USR | INT | EN },
        { 0x188, 0x13c | OS | EN }, { 0x189, 0xc4 | USR | OS | INT | EN },
        { 0x38d, 0x3bb }, { 0x38f, 0x70000000full },
        { 0xc1, 0xfffffc18 }, { 0xc2, 0xfffffc18 }, { 0x309, WIDTH_MAX - 999 },
    };
    vpmu_init(&each, &offered);
    vpmu_init(&all, &offered);
    for (size_t i = 0; i < sizeof(programs) / sizeof(programs[0]); i++) {
        vpmu_wrmsr(&each, (uint32_t)programs[i][0], programs[i][1]);
        vpmu_wrmsr(&all, (uint32_t)programs[i][0], programs[i][1]);
    }
    vpmu_lvtpc_write(&each, LVT_NMI);
    vpmu_lvtpc_write(&all, LVT_NMI);
    for (unsigned int ev = 0; ev < VPMU_EV_COUNT; ev++)
        vpmu_count(&each, (enum vpmu_arch_event)ev, VPMU_USER, 1500);
    vpmu_count_every_event(&all, VPMU_USER, 1500);
    /* GP 0 (instructions), GP 1 (cycles) and fixed 0 wrap at event 1000 */
    CHECK_EQ(each.pmis_delivered + each.pmis_masked, 2);
    CHECK_EQ(all.pmis_delivered, 1);
    CHECK_EQ(all.pmis_masked, 0);
    CHECK_EQ(all.global_status, each.global_status);
    CHECK_EQ(all.global_status, 0x100000003ull);
    each.pmis_delivered = all.pmis_delivered;
    each.pmis_masked = all.pmis_masked;
    each.nmis_pending = all.nmis_pending;
    CHECK(same_registers(&each, &all));
    CHECK_EQ(all.pmc[2], 0);                    /* kernel only */
    CHECK_EQ(all.pmc[3], 0);                    /* branches: not counted here */
    CHECK_EQ(all.fixed[1], 1500);               /* fixed 1: cycles, USR */
}

TEST(a_counter_of_one_mode_takes_only_its_modes_events)
{
    static struct guest g;
    fresh(&g);
    vpmu_wrmsr(&g.lazy.pmu, 0xc1, 0x100000000ull - 1000);         /* -1000 */
    vpmu_wrmsr(&g.lazy.pmu, 0x186, 0xc0 | USR | INT | EN);
    vpmu_wrmsr(&g.lazy.pmu, 0x38f, 1);
    pmu_guest_clock_plan(&g.clock, &g.lazy.pmu);
    CHECK_EQ(pmu_guest_clock_to_pmi(&g.clock, VPMU_USER), 1000);
    CHECK(pmu_guest_clock_to_pmi(&g.clock, VPMU_KERNEL) >= NO_PMI);
    CHECK(!pmu_guest_clock_add(&g.clock, VPMU_KERNEL, 5000));
    CHECK(!pmu_guest_clock_add(&g.clock, VPMU_USER, 999));
    CHECK_EQ(pmu_guest_clock_to_pmi(&g.clock, VPMU_USER), 1);
    CHECK(pmu_guest_clock_add(&g.clock, VPMU_USER, 1));
    lazy_take(&g);
    CHECK_EQ(g.lazy.pmis, 1);
    CHECK_EQ(g.lazy.pmu.pmc[0], 0);
    CHECK_EQ(g.lazy.pmu.global_status, 1);
}

TEST(a_counter_of_both_modes_takes_their_sum)
{
    static struct guest g;
    fresh(&g);
    vpmu_wrmsr(&g.lazy.pmu, 0x30a, WIDTH_MAX + 1 - 300);          /* fixed 1: cycles */
    vpmu_wrmsr(&g.lazy.pmu, 0x38d, 0xb0);                         /* OS, USR, PMI */
    vpmu_wrmsr(&g.lazy.pmu, 0x38f, 1ull << 33);
    pmu_guest_clock_plan(&g.clock, &g.lazy.pmu);
    CHECK(!pmu_guest_clock_add(&g.clock, VPMU_USER, 100));
    CHECK_EQ(pmu_guest_clock_to_pmi(&g.clock, VPMU_KERNEL), 200);
    CHECK(!pmu_guest_clock_add(&g.clock, VPMU_KERNEL, 150));
    CHECK_EQ(pmu_guest_clock_to_pmi(&g.clock, VPMU_USER), 50);
    CHECK(pmu_guest_clock_add(&g.clock, VPMU_USER, 53));     /* 3 events late */
    lazy_take(&g);
    CHECK_EQ(g.lazy.pmis, 1);
    CHECK_EQ(g.lazy.pmu.fixed[1], 3);
    CHECK_EQ(g.lazy.lvtpc, LVT_NMI | LVT_MASK);
}

TEST(no_counter_with_a_pmi_no_deadline_nothing_taken)
{
    static struct guest g;
    fresh(&g);
    vpmu_wrmsr(&g.lazy.pmu, 0x186, 0xc0 | USR | OS | EN);        /* counts, no PMI */
    vpmu_wrmsr(&g.lazy.pmu, 0x38f, 1);
    pmu_guest_clock_plan(&g.clock, &g.lazy.pmu);
    CHECK(pmu_guest_clock_to_pmi(&g.clock, VPMU_USER) >= NO_PMI);
    CHECK(!pmu_guest_clock_add(&g.clock, VPMU_USER, 1ull << 40));
    CHECK(!pmu_guest_clock_add(&g.clock, VPMU_KERNEL, 7));
    CHECK_EQ(g.lazy.pmu.pmc[0], 0);                 /* not taken yet */
    lazy_take(&g);
    CHECK_EQ(g.lazy.pmu.pmc[0], (1ull << 40) + 7);
}
