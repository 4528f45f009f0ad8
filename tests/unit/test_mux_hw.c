/* Interval multiplexing's sets under a hardware PMU's constraints, from
 * CPUID leaf 0AH to the register-level model (tests/unit/pmu_model.c):
 * the PMU described by CPUID has 2 general-purpose and 3 fixed counters
 * and lacks the architectural ref-cycles event, so ref-cycles can only go
 * on fixed counter 2 and two ref-cycles events never share a set; every
 * set the schedule forms is then programmed on the hardware backend over
 * the model exactly as placed (fixed counter or general-purpose counter)
 * and must count each of its events' known amounts, by mode. */
#include "pmu/mux/mux_events.h"
#include "pmu/hw/pmu_hw.h"
#include "tests/unit/pmu_model.h"
#include "tests/unit/unit.h"

#define EVENTS 9
#define CPL_USER 3u
#define USER_N 1000u     /* per set: user-mode instructions, cycles, ... */
#define KERNEL_N 300u    /* ... and kernel-mode ones */

/* CPUID.0AH: version 4, 2 GP counters of 48 bits, an EBX vector of 7
 * events with bit 2 (ref-cycles) set: not available; 3 fixed counters of
 * 48 bits. */
#define CPUID_EAX (4u | 2u << 8 | 48u << 16 | 7u << 24)
#define CPUID_EBX (1u << PMU_ARCH_REF_CYCLES)
#define CPUID_EDX (3u | 48u << 5)

static const char *const names[EVENTS] = {
    "instructions:u", "instructions:k", "cycles:u", "cycles:k", "ref-cycles:u",
    "ref-cycles:k", "branches:u", "branch-misses:u", "r00c0:k",
};

/* Each kind of event happens a different multiple of a run's n (so an
 * event placed on another kind's counter shows): n instructions, 2n
 * cycles, 3n reference cycles, n / 4 branches, n / 8 branch misses. What
 * each event of the list counts over a user run of USER_N and a kernel
 * run of KERNEL_N: */
static const uint64_t expect[EVENTS] = {
    USER_N, KERNEL_N, 2 * USER_N, 2 * KERNEL_N, 3 * USER_N, 3 * KERNEL_N, USER_N / 4,
    USER_N / 8, KERNEL_N,
};

struct hw {
    struct pmu_desc desc;
    struct pmu_event_list list;         /* the session's events, unplaced */
    bool on_counter[EVENTS];            /* what the schedule sees of them */
    struct mux_event_need needs[EVENTS];
    struct mux_plan plan;
};

static bool hw_plan(struct hw *h)
{
    struct pmu_event_caps caps;
    unsigned int bad = 0;
    pmu_cpuid_decode(CPUID_EAX, CPUID_EBX, 0, CPUID_EDX, &h->desc);
    pmu_event_caps_hw(&caps, &h->desc);
    h->list.count = EVENTS;
    for (unsigned int e = 0; e < EVENTS; e++)
        if (!CHECK_EQ(pmu_event_parse(names[e], (unsigned int)strlen(names[e]), &caps,
                                      &h->list.events[e]), PMU_EVERR_NONE))
            return false;
    mux_needs_of(&h->list, h->on_counter, h->needs);
    struct mux_counters counters = mux_counters_hw(&h->desc);
    return CHECK_EQ(mux_plan_sets(h->needs, EVENTS, &counters, &h->plan, &bad), MUX_OK);
}

TEST(cpuid_constraints_shape_the_sets)
{
    static struct hw h;
    if (!hw_plan(&h))
        return;
    CHECK_EQ(h.desc.gp_counters, 2);
    CHECK_EQ(h.desc.fixed_mask, 0x7);
    /* ref-cycles: fixed counter 2 only */
    CHECK_EQ(h.needs[4].fixed_index, 2);
    CHECK(!h.needs[4].gp_ok);
    CHECK(h.needs[8].gp_ok && h.needs[8].fixed_index < 0);    /* raw: GP only */
    /* first fit: {0 f0, 1 gp0, 2 f1, 3 gp1, 4 f2} {5 f2, 6 gp0, 7 gp1} {8 gp0} */
    static const uint8_t set[EVENTS] = { 0, 0, 0, 0, 0, 1, 1, 1, 2 };
    static const bool fixed[EVENTS] = { true, false, true, false, true, true, false, false, false };
    static const uint8_t gp[EVENTS] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
    CHECK_EQ(h.plan.set_count, 3);
    for (unsigned int e = 0; e < EVENTS; e++) {
        CHECK_EQ(h.plan.set_of[e], set[e]);
        CHECK_EQ(h.plan.on_fixed[e], fixed[e]);
        if (!fixed[e])
            CHECK_EQ(h.plan.gp_index[e], gp[e]);
    }
}

/* Set s's events placed as the plan says, into list. */
static unsigned int set_list(const struct hw *h, unsigned int s, struct pmu_event_list *list,
                             unsigned int *ids)
{
    unsigned int n = 0;
    for (unsigned int e = 0; e < EVENTS; e++) {
        if (h->plan.set_of[e] != s)
            continue;
        struct pmu_event ev = h->list.events[e];
        ev.slot = h->plan.on_fixed[e] ? PMU_SLOT_FIXED : PMU_SLOT_GP;
        ev.slot_index = h->plan.on_fixed[e] ? (uint8_t)ev.fixed_index : h->plan.gp_index[e];
        ids[n] = e;
        list->events[n++] = ev;
    }
    list->count = n;
    return n;
}

/* One guest run in mode cpl on the model: the entry loads the plan's
 * GLOBAL_CTRL, the events happen (multiples of n, above), the exit loads
 * the host's. */
static void guest_run(struct pmu_model *m, struct pmu_backend *be, struct pmu_ctx *ctx,
                      unsigned int cpl, uint64_t n)
{
    struct pmu_entry_plan plan;
    enum pmu_model_mode mode = cpl ? PMU_MODEL_USER : PMU_MODEL_KERNEL;
    be->ops->enter(be->self, ctx, cpl, &plan);
    m->global_ctrl = plan.guest_global_ctrl;
    pmu_model_count(m, &pmu_model_instructions, mode, n);
    pmu_model_count(m, &pmu_model_cycles, mode, 2 * n);
    pmu_model_count(m, &pmu_model_ref_cycles, mode, 3 * n);
    pmu_model_count(m, &pmu_model_branches, mode, n / 4);
    pmu_model_count(m, &pmu_model_branch_misses, mode, n / 8);
    m->global_ctrl = plan.host_global_ctrl;
    be->ops->exit(be->self, ctx, 0);
}

TEST(every_set_counts_on_the_register_model_as_placed)
{
    static struct hw h;
    static struct pmu_model model;
    static struct pmu_hw hw;
    if (!hw_plan(&h))
        return;
    struct pmu_model_config cfg = { h.desc.version, h.desc.gp_counters, h.desc.gp_width,
                                    h.desc.fixed_mask, h.desc.fixed_width, true, false };
    struct pmu_msr_ops ops = { pmu_model_rdmsr, pmu_model_wrmsr, &model };
    unsigned int counted = 0;
    for (unsigned int s = 0; s < h.plan.set_count; s++) {
        struct pmu_event_list list;
        struct pmu_ctx ctx;
        unsigned int ids[EVENTS];
        unsigned int n = set_list(&h, s, &list, ids);
        pmu_model_init(&model, &cfg);
        struct pmu_backend be = pmu_hw_backend(&hw);
        CHECK_EQ(pmu_hw_init(&hw, &h.desc, 1ull << 13, &ops), PMU_OK);
        pmu_ctx_init(&ctx, &list, NULL);
        CHECK_EQ(be.ops->program(be.self, &ctx), PMU_OK);
        CHECK_EQ(be.ops->load(be.self, &ctx), PMU_OK);
        guest_run(&model, &be, &ctx, CPL_USER, USER_N);
        guest_run(&model, &be, &ctx, 0, KERNEL_N);
        for (unsigned int i = 0; i < n; i++, counted++)
            CHECK_EQ(be.ops->read(be.self, &ctx, i), expect[ids[i]]);
        CHECK_EQ(hw.msr_faults, 0);
    }
    CHECK_EQ(counted, EVENTS);
}

/* A PMU with no general-purpose counter: the fixed events fit, each in
 * its own set when two want one counter; an event only a general-purpose
 * counter counts is refused by its position. */
TEST(without_gp_counters_only_fixed_events_fit)
{
    static struct hw h;
    struct pmu_event_caps caps;
    struct mux_plan plan;
    unsigned int bad = 99;
    pmu_cpuid_decode(4u | 0u << 8 | 48u << 16 | 7u << 24, 0, 0, CPUID_EDX, &h.desc);
    pmu_event_caps_hw(&caps, &h.desc);
    static const char *const fixed_only[] = { "cycles:u", "cycles:k", "instructions", "branches" };
    h.list.count = 4;
    for (unsigned int e = 0; e < 4; e++)
        CHECK_EQ(pmu_event_parse(fixed_only[e], (unsigned int)strlen(fixed_only[e]), &caps,
                                 &h.list.events[e]), e < 3 ? PMU_EVERR_NONE : PMU_EVERR_UNAVAILABLE);
    mux_needs_of(&h.list, h.on_counter, h.needs);
    struct mux_counters counters = mux_counters_hw(&h.desc);
    CHECK_EQ(counters.gp, 0);
    CHECK_EQ(mux_plan_sets(h.needs, 3, &counters, &plan, &bad), MUX_OK);
    CHECK_EQ(plan.set_count, 2);                 /* cycles:u and :k both need fixed 1 */
    CHECK_EQ(plan.set_of[2], 0);                 /* instructions: fixed 0, with cycles:u */
    h.needs[3] = (struct mux_event_need){ -1, true };    /* a GP event all the same */
    CHECK_EQ(mux_plan_sets(h.needs, 4, &counters, &plan, &bad), MUX_ERR_NO_COUNTER);
    CHECK_EQ(bad, 3);
}
