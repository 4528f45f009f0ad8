/* What the log learns of a guest's PMU programming (pmu/vpmu/vpmu_prog.c):
 * each counter's programming once, when it is enabled; nothing new for
 * the same programming disabled and enabled again (a counted thread
 * switched out and in), for GLOBAL_CTRL toggles or counter writes; a new
 * record for a changed event, modes or PMI bit; the table's bound, past
 * which new programmings are only counted. Driven through the virtual
 * PMU's own MSR writes (pmu/vpmu/vpmu_regs.c), as the guest makes them. */
#include "tests/unit/unit.h"
#include "pmu/vpmu/vpmu_prog.h"
#include "lib/msr.h"

#define USR       (1ull << 16)
#define OS        (1ull << 17)
#define INT       (1ull << 20)
#define EN        (1ull << 22)
#define INSTRUCTIONS_U (0xc0 | USR | EN)
#define CYCLES_UK_PMI  (0x3c | USR | OS | INT | EN)

static const struct vpmu_config offered = { 4, 3, 0x7 };

static void wr(struct vpmu *p, uint32_t msr, uint64_t v)
{
    CHECK_EQ(vpmu_wrmsr(p, msr, v), VPMU_DONE);
}

/* A fresh virtual PMU, nothing seen yet, and room for what is new. */
struct fixture {
    struct vpmu p;
    struct vpmu_prog_seen seen;
    struct vpmu_prog out[VPMU_PROG_NEW_MAX];
};

static struct fixture *fresh(const struct vpmu_config *config)
{
    static struct fixture f;
    memset(&f, 0, sizeof(f));
    vpmu_init(&f.p, config);
    return &f;
}

static unsigned int new_ones(struct fixture *f)
{
    return vpmu_prog_new(&f->p, &f->seen, f->out);
}

TEST(nothing_enabled_nothing_new)
{
    struct fixture *f = fresh(&offered);
    CHECK_EQ(new_ones(f), 0);
    wr(&f->p, MSR_IA32_PERFEVTSEL0, 0xc0 | USR);         /* programmed, not enabled */
    wr(&f->p, MSR_IA32_FIXED_CTR_CTRL, 0x8);             /* PMI bit only: counts nowhere */
    CHECK_EQ(new_ones(f), 0);
    CHECK_EQ(f->seen.count, 0);
}

TEST(each_programming_once_across_switches)
{
    struct fixture *f = fresh(&offered);
    wr(&f->p, MSR_IA32_PERFEVTSEL0 + 1, INSTRUCTIONS_U);
    wr(&f->p, MSR_IA32_FIXED_CTR_CTRL, 0x3u << 4);       /* fixed 1 (cycles), OS and USR */
    CHECK_EQ(new_ones(f), 2);
    CHECK_EQ(f->out[0].counter, 1);
    CHECK_EQ(f->out[0].control, INSTRUCTIONS_U);
    CHECK_EQ(f->out[1].counter, LOG_GUEST_COUNTER_FIXED + 1);
    CHECK_EQ(f->out[1].control, 0x3);
    for (int i = 0; i < 100; i++) {                    /* a context-switch storm */
        wr(&f->p, MSR_IA32_PERF_GLOBAL_CTRL, 0);
        wr(&f->p, MSR_IA32_PERFEVTSEL0 + 1, INSTRUCTIONS_U & ~EN);
        wr(&f->p, MSR_IA32_PMC0 + 1, (uint64_t)-10007);
        wr(&f->p, MSR_IA32_PERFEVTSEL0 + 1, INSTRUCTIONS_U);
        wr(&f->p, MSR_IA32_PERF_GLOBAL_CTRL, 0x2 | 1ull << 33);
        CHECK_EQ(new_ones(f), 0);
    }
    CHECK_EQ(f->seen.count, 2);
    CHECK_EQ(f->seen.not_logged, 0);
}

TEST(a_changed_event_mode_or_pmi_bit_is_new)
{
    struct fixture *f = fresh(&offered);
    wr(&f->p, MSR_IA32_PERFEVTSEL0, INSTRUCTIONS_U);
    CHECK_EQ(new_ones(f), 1);
    wr(&f->p, MSR_IA32_PERFEVTSEL0, INSTRUCTIONS_U | OS);
    CHECK_EQ(new_ones(f), 1);
    CHECK_EQ(f->out[0].control, INSTRUCTIONS_U | OS);
    wr(&f->p, MSR_IA32_PERFEVTSEL0, CYCLES_UK_PMI);
    CHECK_EQ(new_ones(f), 1);
    wr(&f->p, MSR_IA32_PERFEVTSEL0, CYCLES_UK_PMI & ~INT);
    CHECK_EQ(new_ones(f), 1);
    wr(&f->p, MSR_IA32_PERFEVTSEL0, INSTRUCTIONS_U);      /* seen before on counter 0 */
    CHECK_EQ(new_ones(f), 0);
    wr(&f->p, MSR_IA32_PERFEVTSEL0 + 2, INSTRUCTIONS_U);  /* the same event on another counter */
    CHECK_EQ(new_ones(f), 1);
    CHECK_EQ(f->out[0].counter, 2);
    CHECK_EQ(f->seen.count, 5);
}

TEST(the_table_is_bounded_and_counts_the_rest)
{
    struct fixture *f = fresh(&offered);
    unsigned int logged = 0;
    for (unsigned int e = 0; e < VPMU_PROG_SEEN_MAX + 10; e++) {
        wr(&f->p, MSR_IA32_PERFEVTSEL0, (0x10 + e) | USR | EN);     /* raw events */
        logged += new_ones(f);
    }
    CHECK_EQ(logged, VPMU_PROG_SEEN_MAX);
    CHECK_EQ(f->seen.count, VPMU_PROG_SEEN_MAX);
    CHECK_EQ(f->seen.not_logged, 10);
    wr(&f->p, MSR_IA32_PERFEVTSEL0, 0x10 | USR | EN);               /* the first: seen */
    CHECK_EQ(new_ones(f), 0);
    CHECK_EQ(f->seen.not_logged, 10);
}

TEST(only_the_counters_offered)
{
    static const struct vpmu_config small = { 1, 1, 0x7 };
    struct fixture *f = fresh(&small);
    CHECK_EQ(vpmu_wrmsr(&f->p, MSR_IA32_PERFEVTSEL0 + 1, INSTRUCTIONS_U), VPMU_GP);
    CHECK_EQ(vpmu_wrmsr(&f->p, MSR_IA32_FIXED_CTR_CTRL, 0x30), VPMU_GP);   /* fixed 1 absent */
    wr(&f->p, MSR_IA32_FIXED_CTR_CTRL, 0x2);
    CHECK_EQ(new_ones(f), 1);
    CHECK_EQ(f->out[0].counter, LOG_GUEST_COUNTER_FIXED);
    CHECK_EQ(f->out[0].control, 0x2);
}

/* The set of (counter, control) pairs the log has taken, kept the plain
 * way: the reference each answer of vpmu_prog_new must equal. */
struct reference {
    unsigned int count;
    struct vpmu_prog taken[VPMU_PROG_SEEN_MAX];
    uint64_t not_logged;
};

static bool reference_has(const struct reference *r, struct vpmu_prog prog)
{
    for (unsigned int i = 0; i < r->count; i++)
        if (r->taken[i].counter == prog.counter && r->taken[i].control == prog.control)
            return true;
    return false;
}

/* Every enabled counter in counter order: what is new goes out. */
static unsigned int reference_new(struct reference *r, const struct vpmu *p, struct vpmu_prog *out)
{
    unsigned int n = 0;
    struct vpmu_prog progs[VPMU_PROG_NEW_MAX];
    unsigned int count = 0;
    for (unsigned int k = 0; k < p->config.gp_counters; k++)
        if (p->evtsel[k] & EN)
            progs[count++] = (struct vpmu_prog){ (uint8_t)k, p->evtsel[k] };
    for (unsigned int j = 0; j < p->config.fixed_counters; j++) {
        uint64_t field = (p->fixed_ctrl >> (4 * j)) & 0xfu;
        if (field & 0x3u)
            progs[count++] = (struct vpmu_prog){ (uint8_t)(LOG_GUEST_COUNTER_FIXED + j), field };
    }
    for (unsigned int i = 0; i < count; i++) {
        if (reference_has(r, progs[i]))
            continue;
        if (r->count == VPMU_PROG_SEEN_MAX) {
            r->not_logged++;
            continue;
        }
        r->taken[r->count++] = progs[i];
        out[n++] = progs[i];
    }
    return n;
}

/* Counters stopped and started again, reprogrammed, and the table filled
 * past its bound: each answer is the reference's. */
TEST(random_programmings_match_the_reference)
{
    struct fixture *f = fresh(&offered);
    static struct reference r;
    memset(&r, 0, sizeof(r));
    uint32_t x = 12345;
    for (unsigned int step = 0; step < 4000; step++) {
        x = x * 1103515245u + 12345u;
        unsigned int what = (x >> 16) % 5;
        uint64_t event = step < 2000 ? 0xc0 + (x >> 24) % 3 : 0x10 + (x >> 20) % 60;
        if (what < 4)
            wr(&f->p, MSR_IA32_PERFEVTSEL0 + what, event | USR | ((x >> 8) & 1 ? EN : 0));
        else
            wr(&f->p, MSR_IA32_FIXED_CTR_CTRL, (x >> 4) & 0x333u);
        struct vpmu_prog want[VPMU_PROG_NEW_MAX];
        unsigned int n = reference_new(&r, &f->p, want);
        CHECK_EQ(new_ones(f), n);
        for (unsigned int i = 0; i < n; i++) {
            CHECK_EQ(f->out[i].counter, want[i].counter);
            CHECK_EQ(f->out[i].control, want[i].control);
        }
        CHECK_EQ(f->seen.not_logged, r.not_logged);
    }
    CHECK_EQ(f->seen.count, VPMU_PROG_SEEN_MAX);
    CHECK(r.not_logged > 0);
}
