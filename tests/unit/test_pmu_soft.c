/* The software PMU's policy (pmu/soft/pmu_soft.c): exact counts for scripted
 * guest runs (ticks in user and kernel mode), preemption-timer deadlines
 * (step granularity, nearest overflow), overflow at exactly the period,
 * the emulated-instruction correction, and that time the caller does not
 * report (hypervisor, halted) never counts. */
#include "pmu/soft/pmu_soft.h"
#include "tests/unit/unit.h"

#define ARRAY_LEN(a) ((unsigned int)(sizeof(a) / sizeof((a)[0])))

struct soft_rig {
    struct pmu_soft soft;
    struct pmu_backend be;
    struct pmu_ctx ctx;
    struct pmu_entry_plan plan;
};

static bool soft_setup(struct soft_rig *r, bool exact, uint64_t step, const char *events,
                       const uint64_t *periods)
{
    struct pmu_soft_config cfg = { step, exact };
    struct pmu_event_caps caps;
    struct pmu_event_list list;
    if (!CHECK_EQ(pmu_soft_init(&r->soft, &cfg), PMU_OK))
        return false;
    r->be = pmu_soft_backend(&r->soft);
    pmu_event_caps_soft(&caps, exact);
    if (!CHECK_EQ(pmu_event_list_parse(events, &caps, &list, NULL), PMU_EVERR_NONE))
        return false;
    pmu_ctx_init(&r->ctx, &list, periods);
    return CHECK_EQ(r->be.ops->program(r->be.self, &r->ctx), PMU_OK) &&
           CHECK_EQ(r->be.ops->load(r->be.self, &r->ctx), PMU_OK);
}

/* One guest step: enter at cpl, the guest runs `ticks`, VM exit. */
static uint32_t run(struct soft_rig *r, unsigned int cpl, uint64_t ticks)
{
    r->be.ops->enter(r->be.self, &r->ctx, cpl, &r->plan);
    return r->be.ops->exit(r->be.self, &r->ctx, ticks);
}

/* Runs `ticks` at cpl in steps no longer than the deadlines the PMU asks. */
static void run_stepped(struct soft_rig *r, unsigned int cpl, uint64_t ticks)
{
    while (ticks) {
        r->be.ops->enter(r->be.self, &r->ctx, cpl, &r->plan);
        uint64_t n = r->plan.deadline_ticks < ticks ? r->plan.deadline_ticks : ticks;
        r->be.ops->exit(r->be.self, &r->ctx, n);
        ticks -= n;
    }
}

static uint64_t rd(struct soft_rig *r, unsigned int i)
{
    return r->be.ops->read(r->be.self, &r->ctx, i);
}

TEST(soft_counts_user_and_kernel_exactly)
{
    struct soft_rig r;
    if (!soft_setup(&r, true, 1, "instructions:u,instructions:k,cycles,ref-cycles:u", NULL))
        return;
    CHECK_EQ(r.ctx.counters[0].event.slot, PMU_SLOT_SOFT);
    run_stepped(&r, 3, 1000);       /* N ticks in user */
    run_stepped(&r, 0, 250);        /* M in kernel */
    run_stepped(&r, 3, 7);
    CHECK_EQ(rd(&r, 0), 1007);
    CHECK_EQ(rd(&r, 1), 250);
    CHECK_EQ(rd(&r, 2), 1257);
    CHECK_EQ(rd(&r, 3), 1007);
    CHECK_EQ(r.plan.guest_global_ctrl, 0);
    CHECK_EQ(r.soft.entries, 1257);         /* granularity 1: one tick per step */
}

TEST(soft_loop_difference_is_exact)
{
    /* The acceptance shape: a loop of N and of 2N iterations differ by
     * exactly N x (instructions per iteration) in instructions:u. */
    const uint64_t per_iter = 7, n = 1000, startup = 123;
    uint64_t counts[2];
    for (int run_no = 0; run_no < 2; run_no++) {
        struct soft_rig r;
        if (!soft_setup(&r, true, 1, "instructions:u,instructions:k", NULL))
            return;
        run_stepped(&r, 0, 5000);                       /* exec, kernel */
        run_stepped(&r, 3, startup + per_iter * n * (uint64_t)(run_no + 1));
        run_stepped(&r, 0, 5000);                       /* exit */
        counts[run_no] = rd(&r, 0);
        CHECK_EQ(rd(&r, 1), 10000);
    }
    CHECK_EQ(counts[1] - counts[0], n * per_iter);
}

TEST(soft_deadline_is_step_or_nearest_overflow)
{
    struct soft_rig r;
    const uint64_t periods[] = { 1000, 300, 0 };
    if (!soft_setup(&r, true, 100, "instructions:u,cycles:k,ref-cycles", periods))
        return;
    CHECK_EQ(pmu_soft_deadline(&r.soft, &r.ctx, 3), 100);     /* step < 1000 */
    run(&r, 0, 250);
    CHECK_EQ(pmu_soft_deadline(&r.soft, &r.ctx, 0), 50);      /* 300 - 250 */
    CHECK_EQ(run(&r, 0, 50), 1u << 1);                        /* overflow exactly there */
    CHECK_EQ(rd(&r, 1), 300);
    CHECK_EQ(r.be.ops->overflow(r.be.self, &r.ctx), 1u << 1);
    CHECK_EQ(r.be.ops->overflow(r.be.self, &r.ctx), 0);
    CHECK_EQ(pmu_soft_deadline(&r.soft, &r.ctx, 0), 100);

    /* no mode filter, no period: no deadline at all */
    struct soft_rig plain;
    if (!soft_setup(&plain, false, 100, "cycles,ref-cycles", NULL))
        return;
    CHECK_EQ(pmu_soft_deadline(&plain.soft, &plain.ctx, 3), PMU_NO_DEADLINE);
    /* no mode filter, a period: the overflow is the deadline */
    const uint64_t p[] = { 12345 };
    if (!soft_setup(&plain, false, 100, "cycles", p))
        return;
    CHECK_EQ(pmu_soft_deadline(&plain.soft, &plain.ctx, 3), 12345);
}

TEST(soft_overflow_at_exact_period_with_stepping)
{
    struct soft_rig r;
    const uint64_t periods[] = { 64 };
    if (!soft_setup(&r, true, 10, "instructions:u", periods))
        return;
    unsigned int overflows = 0;
    uint64_t ticks_at_overflow[4] = { 0 }, t = 0;
    while (t < 200) {
        r.be.ops->enter(r.be.self, &r.ctx, 3, &r.plan);
        CHECK(r.plan.deadline_ticks <= 10);
        t += r.plan.deadline_ticks;
        if (r.be.ops->exit(r.be.self, &r.ctx, r.plan.deadline_ticks) && overflows < 4) {
            ticks_at_overflow[overflows++] = t;
            r.be.ops->overflow(r.be.self, &r.ctx);
        }
    }
    CHECK_EQ(overflows, 3);
    CHECK_EQ(ticks_at_overflow[0], 64);
    CHECK_EQ(ticks_at_overflow[1], 128);
    CHECK_EQ(ticks_at_overflow[2], 192);
    CHECK_EQ(r.ctx.counters[0].overflows, 3);
    CHECK_EQ(rd(&r, 0), t);

    /* a run that overshoots (coarse timer) reports every period crossed */
    const uint64_t p2[] = { 10 };
    if (!soft_setup(&r, true, 1000, "cycles", p2))
        return;
    CHECK_EQ(run(&r, 3, 35), 1u);
    CHECK_EQ(r.ctx.counters[0].overflows, 3);
    CHECK_EQ(rd(&r, 0), 35);
}

TEST(soft_excludes_time_not_reported_and_other_modes)
{
    struct soft_rig r;
    if (!soft_setup(&r, false, 50, "cycles:u,cycles:k", NULL))
        return;
    run(&r, 3, 40);
    /* the hypervisor and a halted VCPU: the caller reports nothing, and an
     * exit without an entry adds nothing */
    CHECK_EQ(r.be.ops->exit(r.be.self, &r.ctx, 99999), 0);
    run(&r, 1, 5);          /* CPL 1 counts as user (CPL > 0), like USR */
    CHECK_EQ(rd(&r, 0), 45);
    CHECK_EQ(rd(&r, 1), 0);
    r.be.ops->save(r.be.self, &r.ctx);
    r.be.ops->load(r.be.self, &r.ctx);
    CHECK_EQ(rd(&r, 0), 45);
}

TEST(soft_emulated_instruction_correction)
{
    struct soft_rig exact, tsc;
    const uint64_t periods[] = { 0, 3 };
    if (!soft_setup(&exact, true, 1, "instructions:u,cycles:k", periods) ||
        !soft_setup(&tsc, false, 1, "cycles:u", NULL))
        return;
    run(&exact, 0, 2);
    exact.be.ops->emulated_instruction(exact.be.self, &exact.ctx, 3);
    exact.be.ops->emulated_instruction(exact.be.self, &exact.ctx, 0);
    CHECK_EQ(rd(&exact, 0), 1);
    CHECK_EQ(rd(&exact, 1), 3);
    CHECK_EQ(exact.be.ops->overflow(exact.be.self, &exact.ctx), 1u << 1);
    /* real hardware: the software PMU counts time; no +1 */
    tsc.be.ops->emulated_instruction(tsc.be.self, &tsc.ctx, 3);
    CHECK_EQ(rd(&tsc, 0), 0);
}

TEST(soft_rejects_bad_config_and_foreign_slots)
{
    struct pmu_soft soft;
    struct pmu_soft_config cfg = { 0, true };
    CHECK_EQ(pmu_soft_init(&soft, &cfg), PMU_ERR_CONFIG);

    /* a context assigned for the hardware PMU cannot run on the software one */
    struct pmu_desc d = { 4, 4, 48, 3, 48, 0x7, 0x7f };
    struct pmu_event_caps caps;
    struct pmu_event_list list;
    struct pmu_ctx ctx;
    pmu_event_caps_hw(&caps, &d);
    CHECK_EQ(pmu_event_list_parse("cycles", &caps, &list, NULL), PMU_EVERR_NONE);
    pmu_ctx_init(&ctx, &list, NULL);
    cfg.step_ticks = 1;
    pmu_soft_init(&soft, &cfg);
    struct pmu_backend be = pmu_soft_backend(&soft);
    CHECK_EQ(be.ops->program(be.self, &ctx), PMU_ERR_SLOT);
    CHECK_STR(be.ops->name, "soft");
}

/* ---- Vertigo's own time (:h) ------------------------------------------- */

enum { SEG_USER, SEG_KERNEL, SEG_HV };

struct hv_script {
    unsigned int mode;
    uint64_t ticks;
};

/* Runs a script of guest and hypervisor stretches as the VCPU loop would:
 * guest ticks in deadline-sized steps, Vertigo's ticks one step at a time
 * through the stepper (as the #DB handler does), then added to the context
 * at the next sync. Returns how many hypervisor overflows the stepper
 * found; positions[] gets their global tick numbers (1-based), counter
 * `which` only. */
static unsigned int run_hv_script(struct soft_rig *r, const struct hv_script *script,
                                  unsigned int n, unsigned int which, uint64_t *positions,
                                  unsigned int max)
{
    struct pmu_soft_stepper st;
    uint64_t tick = 0;
    unsigned int found = 0;
    for (unsigned int s = 0; s < n; s++) {
        if (script[s].mode != SEG_HV) {
            run_stepped(r, script[s].mode == SEG_USER ? 3 : 0, script[s].ticks);
            tick += script[s].ticks;
            pmu_ctx_take_overflows(&r->ctx);
            continue;
        }
        pmu_soft_stepper_sync(&st, &r->ctx);
        for (uint64_t step = 1; step <= script[s].ticks; step++) {
            if (step != st.next)
                continue;
            uint32_t mask = pmu_soft_stepper_overflow(&st);
            if ((mask & (1u << which)) && found < max)
                positions[found++] = tick + step;
        }
        pmu_soft_hypervisor_ticks(&r->ctx, script[s].ticks);
        tick += script[s].ticks;
        pmu_ctx_take_overflows(&r->ctx);
    }
    return found;
}

TEST(soft_hypervisor_time_counts_only_for_h)
{
    struct soft_rig r;
    if (!soft_setup(&r, true, 1000, "instructions,instructions:h,instructions:ukh,cycles:uh",
                    NULL))
        return;
    CHECK_EQ(r.ctx.hypervisor_mask, 0xeu);     /* every event but the first */
    CHECK(!pmu_soft_samples_hypervisor(&r.ctx));     /* no period: counting only */
    run_stepped(&r, 3, 100);
    pmu_soft_hypervisor_ticks(&r.ctx, 40);
    run_stepped(&r, 0, 10);
    CHECK_EQ(rd(&r, 0), 110);
    CHECK_EQ(rd(&r, 1), 40);
    CHECK_EQ(rd(&r, 2), 150);
    CHECK_EQ(rd(&r, 3), 140);
}

/* The skid a counter reports is that of the guest's runs: an overflow
 * among Vertigo's own ticks was sampled at its step or counted late, so
 * those ticks add none. */
TEST(soft_skid_is_the_guest_runs)
{
    struct soft_rig r;
    const uint64_t periods[] = { 1000 };
    if (!soft_setup(&r, true, 100000, "instructions:ukh", periods))
        return;
    pmu_soft_hypervisor_ticks(&r.ctx, 1005);            /* 5 past, in Vertigo's time */
    CHECK_EQ(pmu_ctx_take_overflows(&r.ctx), 1u);
    CHECK_EQ(r.ctx.counters[0].skid_max, 0);
    CHECK_EQ(run(&r, 3, 997), 1u);                      /* 2 past, in the guest's run */
    CHECK_EQ(r.ctx.counters[0].skid_max, 2);
    CHECK_EQ(rd(&r, 0), 2002);
}

/* A counter that counts Vertigo too reaches its overflow `lead` ticks
 * earlier in the guest's run when that much of Vertigo's entry path comes
 * first: the run stops exactly at the overflow point, never past it. */
TEST(soft_deadline_after_hypervisor_lead)
{
    struct soft_rig r;
    const uint64_t periods[] = { 1000, 700, 5000 };
    if (!soft_setup(&r, true, 100000, "instructions:ukh,cycles:ukh,instructions:u", periods))
        return;
    CHECK_EQ(pmu_soft_deadline_after(&r.soft, &r.ctx, 3, 0), 700);
    CHECK_EQ(pmu_soft_deadline_after(&r.soft, &r.ctx, 3, 40), 660);
    CHECK_EQ(pmu_soft_deadline_after(&r.soft, &r.ctx, 0, 40), 660);    /* :u is not :h */
    pmu_soft_hypervisor_ticks(&r.ctx, 40);              /* the lead, then the run */
    CHECK_EQ(run(&r, 3, 660), 1u << 1);                 /* overflow at the run's end */
    CHECK_EQ(r.ctx.counters[1].skid_max, 0);
    CHECK_EQ(pmu_soft_deadline_after(&r.soft, &r.ctx, 3, 300), 1);     /* 300 left: inside */
    CHECK_EQ(pmu_soft_deadline_after(&r.soft, &r.ctx, 3, UINT64_MAX), 1);  /* no lead learnt */
    struct soft_rig plain;
    if (!soft_setup(&plain, true, 100000, "instructions:uk", periods))
        return;
    CHECK_EQ(pmu_soft_deadline_after(&plain.soft, &plain.ctx, 3, 40), PMU_NO_DEADLINE);
}

/* The distance to the nearest overflow inside Vertigo, which decides
 * whether a stretch is single-stepped: only counters that count Vertigo's
 * time with a period take part, and it is what the stepper's next is. */
TEST(soft_hypervisor_headroom)
{
    const uint64_t periods[] = { 7, 5, 3, 0 };
    struct soft_rig r;
    if (!soft_setup(&r, true, 1000, "instructions:ukh,cycles:h,instructions:u,instructions:h",
                    periods))
        return;
    CHECK_EQ(r.ctx.hypervisor_mask, 0xbu);
    CHECK_EQ(pmu_soft_hypervisor_headroom(&r.ctx), 5);
    pmu_soft_hypervisor_ticks(&r.ctx, 3);
    CHECK_EQ(pmu_soft_hypervisor_headroom(&r.ctx), 2);      /* 7 - 3 = 4, 5 - 3 = 2 */
    pmu_soft_hypervisor_ticks(&r.ctx, 2);                    /* cycles:h overflows */
    CHECK_EQ(pmu_soft_hypervisor_headroom(&r.ctx), 2);      /* 7 - 5 = 2, 5 again */
    struct pmu_soft_stepper s;
    pmu_soft_stepper_sync(&s, &r.ctx);
    CHECK_EQ(s.next, pmu_soft_hypervisor_headroom(&r.ctx));
    struct soft_rig none;
    const uint64_t user_only[] = { 0, 3 };
    if (!soft_setup(&none, true, 1000, "instructions:ukh,instructions:u", user_only))
        return;
    CHECK_EQ(pmu_soft_hypervisor_headroom(&none.ctx), UINT64_MAX);   /* :h counts only */
}

/* The stepper finds every overflow that falls in Vertigo's time at the
 * exact tick, and the context, given the same ticks, agrees. */
TEST(soft_hypervisor_overflows_at_exact_steps)
{
    static const struct hv_script script[] = {
        { SEG_USER, 23 }, { SEG_HV, 9 }, { SEG_KERNEL, 4 }, { SEG_HV, 30 },
        { SEG_USER, 1 }, { SEG_HV, 2 }, { SEG_USER, 50 }, { SEG_HV, 17 },
    };
    const uint64_t periods[] = { 7, 5 };
    struct soft_rig r;
    if (!soft_setup(&r, true, 1000, "instructions:ukh,cycles:h", periods))
        return;
    CHECK(pmu_soft_samples_hypervisor(&r.ctx));
    uint64_t pos[32];
    unsigned int n = run_hv_script(&r, script, ARRAY_LEN(script), 0, pos, ARRAY_LEN(pos));
    /* reference: counter 0 counts every tick, so it overflows at ticks
     * 7, 14, ...; those inside a hypervisor stretch are the stepper's */
    uint64_t start = 0;
    unsigned int want = 0;
    for (unsigned int s = 0; s < ARRAY_LEN(script); s++) {
        for (uint64_t t = start + 1; t <= start + script[s].ticks; t++) {
            if (t % periods[0] || script[s].mode != SEG_HV)
                continue;
            if (CHECK(want < n))
                CHECK_EQ(pos[want], t);
            want++;
        }
        start += script[s].ticks;
    }
    CHECK_EQ(n, want);
    CHECK_EQ(rd(&r, 0), start);
    CHECK_EQ(r.ctx.counters[0].overflows, start / periods[0]);
    CHECK_EQ(rd(&r, 1), 9 + 30 + 2 + 17);
    CHECK_EQ(r.ctx.counters[1].overflows, (9 + 30 + 2 + 17) / periods[1]);
}
