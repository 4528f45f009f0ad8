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
