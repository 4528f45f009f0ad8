/* Paravirtual counters on hardware counters (pmu/hw/pv_hw.c) against the
 * register-level model of the architectural PMU (tests/unit/pmu_model.c),
 * with its RDPMC: a program places each event on a counter Vertigo's
 * session leaves free and writes its select with the mode bits and no
 * interrupt bit; every run starts it from 0 and the page's sum is the
 * count; during a run a user-mode read made as the page says
 * (sum + model RDPMC) equals the model's count; after the exit the count
 * taken back equals it too; two VCPUs sharing the CPU keep their own
 * counts across switches and one never reads the other's counters (or
 * Vertigo's) by RDPMC; without pass-through the page says "exit" and the
 * counts stay exact; events that cannot be placed are refused. */
#include "tests/unit/unit.h"
#include "tests/unit/pmu_model.h"
#include "pmu/hw/pv_hw.h"

#define WIDTH     48u
#define FW_WRITE  (1ull << 13)
#define USR       (1ull << 16)
#define OS        (1ull << 17)
#define INT       (1ull << 20)
#define EN        (1ull << 22)
#define FIXED(j)  (1ull << (32 + (j)))
#define RDPMC_FIXED (1u << 30)

struct vcpu_state {
    struct pmu_pv pv;
    struct pv_hw ph;
    struct vertigo_pv_page *page;
};

struct rig {
    struct pmu_model model;
    struct pmu_hw hw;
    struct pmu_event_caps caps;
    struct vcpu_state vcpu[2];
};

static _Alignas(4096) uint8_t pages[2][VERTIGO_PV_PAGE_BYTES];

static bool rig_init(struct rig *r, bool full)
{
    *r = (struct rig){ 0 };
    struct pmu_desc d = { .version = 3, .gp_counters = 4, .gp_width = WIDTH,
                          .fixed_counters = 3, .fixed_width = WIDTH, .fixed_mask = 0x7,
                          .events_available = 0x7f };
    struct pmu_model_config cfg = { 3, 4, WIDTH, 0x7, WIDTH, full, false };
    pmu_model_init(&r->model, &cfg);
    struct pmu_msr_ops ops = { pmu_model_rdmsr, pmu_model_wrmsr, &r->model };
    if (!CHECK_EQ(pmu_hw_init(&r->hw, &d, full ? FW_WRITE : 0, &ops), PMU_OK))
        return false;
    pmu_event_caps_hw(&r->caps, &d);
    for (unsigned int i = 0; i < 2; i++) {
        struct vcpu_state *v = &r->vcpu[i];
        v->page = (struct vertigo_pv_page *)pages[i];
        pv_hw_init(&v->ph, &r->hw);
        pmu_pv_set_page(&v->pv, v->page, i);
    }
    return true;
}

static int64_t program(struct rig *r, unsigned int vcpu, const char *events, uint64_t busy)
{
    struct vcpu_state *v = &r->vcpu[vcpu];
    return pv_hw_program(&v->ph, &v->pv, events, &r->caps, busy, NULL);
}

/* The entry: load, publish the page, the VM entry's GLOBAL_CTRL load
 * (Vertigo's own bits `busy` with them). */
static uint64_t enter(struct rig *r, unsigned int vcpu, uint64_t busy, bool passthrough_ok)
{
    struct vcpu_state *v = &r->vcpu[vcpu];
    uint64_t enable = pv_hw_load(&v->ph, &v->pv, busy, passthrough_ok);
    pmu_pv_publish(&v->pv, 1000, 3);
    pmu_pv_entering(&v->pv, 1001);
    r->model.global_ctrl = enable | busy;
    return enable;
}

static void leave(struct rig *r, unsigned int vcpu)
{
    r->model.global_ctrl = 0;
    pv_hw_save(&r->vcpu[vcpu].ph, &r->vcpu[vcpu].pv);
}

/* A user-mode read of counter i on the VCPU, as the page says; -1 when the
 * page sends it to an exit. */
static int64_t user_read(struct rig *r, unsigned int vcpu, unsigned int i)
{
    const struct vertigo_pv_counter *c = &r->vcpu[vcpu].page->counters[i];
    uint64_t value = 0;
    if (c->user_how & VERTIGO_PV_READ_RDPMC) {
        if (pmu_model_rdpmc(&r->model, c->user_how & ~VERTIGO_PV_READ_RDPMC, &value) != 0)
            return -2;
        return (int64_t)(c->sum + value);
    }
    if (c->user_how == VERTIGO_PV_READ_FIXED)
        return (int64_t)c->sum;
    return -1;
}

TEST(pv_hw_places_events_with_their_mode_bits)
{
    struct rig r;
    CHECK(rig_init(&r, true));
    CHECK_EQ(program(&r, 0, "instructions:u,cycles:k,branches,branch-misses:u", 0), 4);
    uint64_t enable = enter(&r, 0, 0, true);
    CHECK_EQ(enable, FIXED(0) | FIXED(1) | 0x1 | 0x2);
    CHECK_EQ(r.model.fixed_ctrl & 0xff, 0x12);              /* fixed 0 USR, fixed 1 OS, no PMI */
    CHECK_EQ(r.model.evtsel[0], 0xc4 | USR | OS | EN);      /* no INT: no overflow interrupt */
    CHECK_EQ(r.model.evtsel[1], 0xc5 | USR | EN);
    CHECK_EQ(r.vcpu[0].page->counters[0].user_how, VERTIGO_PV_READ_RDPMC | RDPMC_FIXED | 0);
    CHECK_EQ(r.vcpu[0].page->counters[1].user_how, VERTIGO_PV_READ_RDPMC | RDPMC_FIXED | 1);
    CHECK_EQ(r.vcpu[0].page->counters[2].user_how, VERTIGO_PV_READ_RDPMC | 0);
    CHECK_EQ(r.vcpu[0].page->counters[3].user_how, VERTIGO_PV_READ_RDPMC | 1);
    CHECK_EQ(r.vcpu[0].page->abi_version, 3);
    leave(&r, 0);
}

TEST(pv_hw_user_reads_by_rdpmc_equal_the_model)
{
    struct rig r;
    CHECK(rig_init(&r, false));                             /* legacy writes */
    CHECK_EQ(program(&r, 0, "instructions:u,instructions:k,branches:u", 0), 3);
    uint64_t user = 0, kernel = 0, branches = 0;
    for (unsigned int run = 0; run < 5; run++) {
        enter(&r, 0, 0, true);
        CHECK_EQ(user_read(&r, 0, 0), (int64_t)user);       /* at the entry */
        pmu_model_count(&r.model, &pmu_model_instructions, PMU_MODEL_USER, 1000 + run);
        pmu_model_count(&r.model, &pmu_model_instructions, PMU_MODEL_KERNEL, 77);
        pmu_model_count(&r.model, &pmu_model_branches, PMU_MODEL_USER, 9);
        pmu_model_count(&r.model, &pmu_model_branches, PMU_MODEL_KERNEL, 4);
        user += 1000 + run;
        kernel += 77;
        branches += 9;
        CHECK_EQ(user_read(&r, 0, 0), (int64_t)user);       /* mid-run, no exit */
        CHECK_EQ(user_read(&r, 0, 1), (int64_t)kernel);
        CHECK_EQ(user_read(&r, 0, 2), (int64_t)branches);
        leave(&r, 0);
        CHECK_EQ(pmu_pv_read(&r.vcpu[0].pv, 0), (int64_t)user);
        CHECK_EQ(pmu_pv_read(&r.vcpu[0].pv, 1), (int64_t)kernel);
        CHECK_EQ(pmu_pv_read(&r.vcpu[0].pv, 2), (int64_t)branches);
    }
    CHECK_EQ(r.hw.msr_faults, 0);
}

/* Every run starts the counter from 0, so the page's sum is the count
 * itself (the guest kernel folds sums): one value write per run. */
TEST(pv_hw_every_run_starts_from_0_and_the_sum_is_the_count)
{
    struct rig r;
    CHECK(rig_init(&r, true));
    CHECK_EQ(program(&r, 0, "branches:u", 0), 1);
    enter(&r, 0, 0, true);
    pmu_model_count(&r.model, &pmu_model_branches, PMU_MODEL_USER, 50);
    leave(&r, 0);
    uint64_t writes = r.model.wrmsr_count;
    enter(&r, 0, 0, true);
    CHECK_EQ(r.model.wrmsr_count - writes, 1);              /* the counter's 0 only */
    CHECK_EQ(r.model.pmc[0], 0);
    CHECK_EQ(r.vcpu[0].page->counters[0].sum, 50);
    CHECK_EQ(user_read(&r, 0, 0), 50);
    leave(&r, 0);
}

TEST(pv_hw_vcpu_switches_keep_counts_and_leak_nothing)
{
    struct rig r;
    CHECK(rig_init(&r, true));
    CHECK_EQ(program(&r, 0, "branches:u,instructions:u", 0), 2);
    CHECK_EQ(program(&r, 1, "branch-misses,cycles:u", 0), 2);
    uint64_t a_br = 0, a_in = 0, b_bm = 0, b_cy = 0;
    for (unsigned int round = 0; round < 3; round++) {
        enter(&r, 0, 0, true);
        pmu_model_count(&r.model, &pmu_model_branches, PMU_MODEL_USER, 30);
        pmu_model_count(&r.model, &pmu_model_instructions, PMU_MODEL_USER, 500);
        pmu_model_count(&r.model, &pmu_model_branch_misses, PMU_MODEL_USER, 3);
        a_br += 30;
        a_in += 500;
        CHECK_EQ(user_read(&r, 0, 0), (int64_t)a_br);
        CHECK_EQ(user_read(&r, 0, 1), (int64_t)a_in);
        leave(&r, 0);

        enter(&r, 1, 0, true);                              /* the VCPU switch */
        /* RDPMC from B of A's counters (GP 0 is now B's, fixed 0 nobody's):
         * 0, never A's counts */
        uint64_t value = 1;
        CHECK_EQ(pmu_model_rdpmc(&r.model, RDPMC_FIXED | 0, &value), 0);
        CHECK_EQ(value, 0);
        value = 1;
        CHECK_EQ(pmu_model_rdpmc(&r.model, 0, &value), 0);
        CHECK_EQ(value, 0);
        CHECK_EQ(r.vcpu[1].page->counters[0].user_how, VERTIGO_PV_READ_RDPMC | 0);
        pmu_model_count(&r.model, &pmu_model_branch_misses, PMU_MODEL_KERNEL, 7);
        pmu_model_count(&r.model, &pmu_model_branches, PMU_MODEL_USER, 1000);
        pmu_model_count(&r.model, &pmu_model_cycles, PMU_MODEL_USER, 11);
        b_bm += 7;
        b_cy += 11;
        CHECK_EQ(user_read(&r, 1, 0), (int64_t)b_bm);
        CHECK_EQ(user_read(&r, 1, 1), (int64_t)b_cy);
        leave(&r, 1);
    }
    CHECK_EQ(pmu_pv_read(&r.vcpu[1].pv, 1), (int64_t)b_cy);
    CHECK_EQ(pmu_pv_read(&r.vcpu[0].pv, 0), (int64_t)a_br);
    CHECK_EQ(pmu_pv_read(&r.vcpu[0].pv, 1), (int64_t)a_in);
    CHECK_EQ(pmu_pv_read(&r.vcpu[1].pv, 0), (int64_t)b_bm);
    CHECK(r.vcpu[0].ph.cleared > 0);
    CHECK(r.vcpu[1].ph.cleared > 0);
}

TEST(pv_hw_without_pass_through_the_page_says_exit_and_counts_stay_exact)
{
    struct rig r;
    CHECK(rig_init(&r, true));
    uint64_t busy = 0x1;                                    /* Vertigo's session: GP 0 */
    r.model.evtsel[0] = 0xc4 | OS | INT | EN;
    r.model.pmc[0] = 12345;
    CHECK_EQ(program(&r, 0, "branches:u,instructions:k", busy), 2);
    uint64_t enable = enter(&r, 0, busy, true);
    CHECK_EQ(enable, 0x2 | FIXED(0));                       /* GP 0 left to Vertigo */
    CHECK_EQ(r.model.pmc[0], 12345);                        /* Vertigo's counter untouched */
    CHECK_EQ(r.vcpu[0].page->counters[0].user_how, VERTIGO_PV_READ_EXIT);
    CHECK_EQ(r.vcpu[0].page->counters[1].user_how, VERTIGO_PV_READ_FIXED);   /* no user mode */
    CHECK(!r.vcpu[0].ph.passthrough);
    pmu_model_count(&r.model, &pmu_model_branches, PMU_MODEL_USER, 40);
    pmu_model_count(&r.model, &pmu_model_instructions, PMU_MODEL_KERNEL, 60);
    CHECK_EQ(user_read(&r, 0, 0), -1);
    leave(&r, 0);
    CHECK_EQ(pmu_pv_read(&r.vcpu[0].pv, 0), 40);
    CHECK_EQ(pmu_pv_read(&r.vcpu[0].pv, 1), 60);
    /* a VCPU with a virtual PMU: no pass-through either */
    enter(&r, 0, 0, false);
    CHECK(!r.vcpu[0].ph.passthrough);
    CHECK_EQ(r.vcpu[0].page->counters[0].user_how, VERTIGO_PV_READ_EXIT);
    CHECK_EQ(r.vcpu[0].page->counters[0].sum, 40);
    leave(&r, 0);
}

TEST(pv_hw_refuses_what_cannot_be_placed)
{
    struct rig r;
    CHECK(rig_init(&r, true));
    const char *why = NULL;
    CHECK_EQ(program(&r, 0, "branches", 0), 1);
    /* every GP counter and fixed 0 are Vertigo's: instructions has nowhere */
    uint64_t busy = 0xf | FIXED(0);
    CHECK_EQ(pv_hw_program(&r.vcpu[0].ph, &r.vcpu[0].pv, "instructions:u", &r.caps, busy, &why),
             (uint64_t)-VERTIGO_EBUSY);
    CHECK(why != NULL);
    CHECK_EQ(r.vcpu[0].pv.count, 1);                        /* unchanged */
    CHECK_EQ(r.vcpu[0].ph.count, 1);
    /* cycles still has fixed 1; branches needs a GP counter */
    CHECK_EQ(program(&r, 0, "cycles:u", busy), 1);
    CHECK_EQ(program(&r, 0, "cycles:u,branches", busy), (uint64_t)-VERTIGO_EBUSY);
    /* two events for the one free counter */
    CHECK_EQ(program(&r, 0, "branches,branch-misses", 0x7 | FIXED(0) | FIXED(1) | FIXED(2)),
             (uint64_t)-VERTIGO_EBUSY);
    /* pmu_pv_program's own refusals */
    CHECK_EQ(program(&r, 0, "instructions:h", 0), (uint64_t)-VERTIGO_EINVAL);
    CHECK_EQ(program(&r, 0, "bogus", 0), (uint64_t)-VERTIGO_EINVAL);
    CHECK_EQ(program(&r, 0, "", 0), 0);                     /* stops them all */
    CHECK_EQ(enter(&r, 0, 0, true), 0);
    leave(&r, 0);
}

TEST(pv_hw_a_counter_vertigo_took_later_does_not_count)
{
    struct rig r;
    CHECK(rig_init(&r, true));
    CHECK_EQ(program(&r, 0, "branches:u", 0), 1);
    uint64_t busy = 0xf;                                    /* a session took every GP counter */
    CHECK_EQ(enter(&r, 0, busy, true), 0);
    pmu_model_count(&r.model, &pmu_model_branches, PMU_MODEL_USER, 40);
    leave(&r, 0);
    CHECK_EQ(pmu_pv_read(&r.vcpu[0].pv, 0), 0);
    CHECK_EQ(r.vcpu[0].ph.counters_unplaced, 1);
    CHECK_EQ(r.vcpu[0].page->counters[0].user_how, VERTIGO_PV_READ_EXIT);
}
