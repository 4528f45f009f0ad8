/* Interval multiplexing on the hardware backend (pmu/hw/mux_hw.h), run on
 * the register-level model (tests/unit/pmu_model.c): a guest retires
 * instructions one at a time in user and kernel stretches, each with its
 * cycles, reference cycles, branches and misses; it exits every few
 * hundred instructions and at each PMI (after a skid of a few more
 * instructions); Vertigo does some work of its own at each exit (counted
 * by instructions:h) and emulates a guest instruction now and then. The
 * test knows which set the session had on the counters at every moment,
 * so it knows what each event must have counted: every row must hold
 * exactly that, with N instructions, numbered in order, the sets in the
 * schedule's round-robin order (mux_set_at), and a set change must write
 * only the MSRs that change, never one of a counter someone else holds. */
#include "pmu/mux/mux_events.h"
#include "pmu/hw/mux_hw.h"
#include "tests/unit/mux_guest_model.h"
#include "tests/unit/pmu_model.h"
#include "tests/unit/unit.h"
#include "lib/msr.h"

#define EVENTS 11
#define SW_EXITS 10             /* exits:all, the software event */
#define N 3500u                 /* interval: 7 turns of 500 over 3 sets */
#define S 500u
#define EXIT_EVERY 333u         /* guest instructions between two exits */
#define HV_WORK 40u             /* Vertigo's instructions at each exit */
#define EMULATE_EVERY 5u        /* every 5th exit emulates one instruction */
#define INTERVALS 6u
#define HELD_GP (1u << 3)       /* a sampling session holds GP counter 3 */

/* CPUID.0AH: version 4, 4 GP counters of 48 bits, every architectural
 * event, 3 fixed counters of 48 bits. */
#define CPUID_EAX (4u | 4u << 8 | 48u << 16 | 7u << 24)
#define CPUID_EDX (3u | 48u << 5)

static const char *const names[EVENTS] = {
    "instructions:u", "instructions:k", "cycles:u", "cycles:k", "branches:u",
    "branch-misses:u", "instructions:h", "ref-cycles:u", "r00c0:uk", "cycles:uk", "exits:all",
};

struct run {
    struct pmu_desc desc;
    struct pmu_event_list list;
    struct mux_row_config cfg;
    struct mux_hw_layout layout;
    struct pmu_model model;
    struct pmu_hw hw;
    struct pmu_backend be;
    struct pmu_lvtpc_ops lvt;
    struct mux_hw mux;
    struct pmu_entry_plan plan;
    bool freeze;                /* the guest runs with Freeze_PerfMon_On_PMI */
    unsigned int skid;          /* instructions the guest runs past a PMI */
    uint64_t unit;              /* guest instructions so far */
    uint64_t exits;
    uint64_t truth[EVENTS];     /* what each event counted in this interval */
    uint64_t rows;
    uint64_t row_failures;
    uint64_t skid_units;        /* instructions run frozen (no interval's) */
};

static bool plan_run(struct run *r)
{
    struct pmu_event_caps caps;
    bool on_counter[EVENTS];
    struct mux_event_need needs[EVENTS];
    struct mux_hw_held held = { HELD_GP, 0 };
    unsigned int bad = 0;
    pmu_cpuid_decode(CPUID_EAX, 0, 0, CPUID_EDX, &r->desc);
    pmu_event_caps_hw(&caps, &r->desc);
    r->list.count = EVENTS;
    for (unsigned int e = 0; e < EVENTS; e++)
        if (!CHECK_EQ(pmu_event_parse(names[e], (unsigned int)strlen(names[e]), &caps,
                                      &r->list.events[e]), PMU_EVERR_NONE))
            return false;
    mux_needs_of(&r->list, on_counter, needs);
    if (!CHECK_EQ(mux_hw_layout(&r->desc, &held, &r->layout), MUX_HW_OK))
        return false;
    return CHECK_EQ(mux_row_configure(&r->cfg, on_counter, needs, EVENTS, &r->layout.for_sets,
                                      N, S, &bad), MUX_OK);
}

static bool start_run(struct run *r, bool freeze, unsigned int skid)
{
    memset(r, 0, sizeof(*r));
    if (!plan_run(r))
        return false;
    struct pmu_model_config mc = { r->desc.version, r->desc.gp_counters, r->desc.gp_width,
                                   r->desc.fixed_mask, r->desc.fixed_width, true, false };
    struct pmu_msr_ops ops = { pmu_model_rdmsr, pmu_model_wrmsr, &r->model };
    pmu_model_init(&r->model, &mc);
    r->lvt = (struct pmu_lvtpc_ops){ pmu_model_lvtpc_read, pmu_model_lvtpc_write, &r->model };
    r->freeze = freeze;
    r->skid = skid;
    if (!CHECK_EQ(pmu_hw_init(&r->hw, &r->desc, PMU_PERF_CAP_FW_WRITE, &ops), PMU_OK))
        return false;
    r->be = pmu_hw_backend(&r->hw);
    uint64_t counts[EVENTS] = { 0 };
    if (!CHECK_EQ(mux_hw_begin(&r->mux, &r->cfg, &r->list, &r->layout, &r->be, counts, 0),
                  PMU_OK))
        return false;
    pmu_hw_pmi_arm(&r->lvt);
    return true;
}

/* ---- what happened, per event ---- */

/* The live set's events take u, at guest mode cpl. */
static void to_truth(struct run *r, const struct mux_unit *u, unsigned int cpl)
{
    for (unsigned int e = 0; e < EVENTS; e++) {
        const struct pmu_event *ev = &r->list.events[e];
        if (r->cfg.set_of[e] == r->mux.live && pmu_event_counts_at(ev, cpl))
            r->truth[e] += mux_unit_amount(ev, u);
    }
}

/* One guest instruction; frozen counters count it for no event. */
static void guest_unit(struct run *r)
{
    unsigned int cpl = mux_unit_cpl(r->unit);
    struct mux_unit u = mux_unit_of(r->unit);
    bool frozen = pmu_model_frozen(&r->model);
    mux_unit_count(&r->model, &u, cpl);
    if (frozen)
        r->skid_units++;
    else
        to_truth(r, &u, cpl);
    r->unit++;
}

/* ---- the rows ---- */

/* Instructions set s ran in interval i (the schedule's turns). */
static uint64_t set_running(const struct run *r, uint64_t i, unsigned int s)
{
    uint64_t ran = 0, subs = r->cfg.subs;
    for (uint64_t t = 0; t < subs; t++)
        if (mux_set_at(&r->cfg.plan, i, t, subs) == s)
            ran += t + 1 == subs ? N - t * S : S;
    return ran;
}

static void check_row(struct run *r, const struct log_interval *row)
{
    bool ok = CHECK_EQ(row->number, r->rows) && CHECK_EQ(row->count, EVENTS) &&
              CHECK_EQ(row->instructions, N + (r->freeze ? 0 : r->skid));
    for (unsigned int e = 0; e < EVENTS; e++) {
        ok &= CHECK_EQ(row->events[e].raw, r->truth[e]);
        unsigned int s = r->cfg.set_of[e];
        if (s == MUX_ROW_ALWAYS)
            ok &= CHECK_EQ(row->events[e].running, row->instructions);
        else if (r->freeze)
            ok &= CHECK_EQ(row->events[e].running, set_running(r, r->rows, s));
        r->truth[e] = 0;
    }
    r->row_failures += !ok;
    r->rows++;
}

/* ---- exits ---- */

static void enter(struct run *r)
{
    r->be.ops->enter(r->be.self, &r->mux.ctx, mux_unit_cpl(r->unit), &r->plan);
    r->model.global_ctrl = r->plan.guest_global_ctrl;
    r->model.debugctl = r->freeze ? r->plan.guest_debugctl_set : 0;
}

/* Vertigo emulates a guest instruction: it retires in the interval. */
static void emulate(struct run *r)
{
    unsigned int cpl = mux_unit_cpl(r->unit);
    struct mux_unit u = { 1, 0, 0, 0, 0 };
    r->be.ops->emulated_instruction(r->be.self, &r->mux.ctx, cpl);
    to_truth(r, &u, cpl);
}

/* The turns that ended, each interval's row checked. */
static void end_turns(struct run *r)
{
    uint64_t counts[EVENTS] = { 0 };
    struct log_interval row;
    while (mux_hw_due(&r->mux, &r->be)) {
        counts[SW_EXITS] = r->exits;
        if (mux_hw_turn(&r->mux, &r->be, counts, r->unit, &row))
            check_row(r, &row);
    }
}

/* The guest instruction of this exit, emulated by Vertigo, retires after
 * the turns the guest's run ended (as in the exit path). The VM exit: the host's GLOBAL_CTRL and DEBUGCTL, the turns that ended,
 * LVTPC unmasked last, then Vertigo's own work (instructions:h). */
static void vm_exit(struct run *r)
{
    r->model.global_ctrl = r->plan.host_global_ctrl;
    r->model.debugctl = 0;
    r->be.ops->exit(r->be.self, &r->mux.ctx, 0);
    r->truth[SW_EXITS]++;
    r->exits++;
    end_turns(r);
    if (r->exits % EMULATE_EVERY == 0) {
        emulate(r);
        end_turns(r);
    }
    pmu_hw_pmi_rearm(&r->hw, &r->mux.ctx, &r->lvt);
    pmu_model_count(&r->model, &pmu_model_instructions, PMU_MODEL_KERNEL, HV_WORK);
    if (r->cfg.set_of[6] == r->mux.live)
        r->truth[6] += HV_WORK;
}

/* Runs the guest until `rows` rows were written. */
static void run_rows(struct run *r, uint64_t rows)
{
    while (r->rows < rows && r->unit < 100u * N * rows) {
        unsigned int pmis = r->model.pmis, left = EXIT_EVERY;
        enter(r);
        while (left-- > 0 && r->model.pmis == pmis)
            guest_unit(r);
        for (unsigned int k = 0; r->model.pmis != pmis && k < r->skid; k++)
            guest_unit(r);
        vm_exit(r);
    }
}

TEST(layout_clock_on_fixed_0_sets_without_it_or_the_held_counter)
{
    static struct run r;
    if (!plan_run(&r))
        return;
    CHECK_EQ(r.layout.clock.slot, PMU_SLOT_FIXED);
    CHECK_EQ(r.layout.clock.slot_index, 0);
    CHECK_EQ(r.layout.for_sets.gp, 3);          /* GP 3 is held */
    CHECK_EQ(r.layout.for_sets.fixed_mask, 0x6);
    /* first fit: {0 gp0, 1 gp1, 2 f1, 3 gp2, 7 f2} {4 gp0, 5 gp1, 6 gp2, 9 f1} {8 gp0} */
    static const uint8_t set[EVENTS] = { 0, 0, 0, 0, 1, 1, 1, 0, 2, 1, MUX_ROW_ALWAYS };
    CHECK_EQ(r.cfg.sets, 3);
    for (unsigned int e = 0; e < EVENTS; e++)
        CHECK_EQ(r.cfg.set_of[e], set[e]);
}

TEST(layout_clock_falls_back_to_the_top_free_gp_counter)
{
    struct pmu_desc d;
    struct mux_hw_layout l;
    struct mux_hw_held fixed0_held = { 1u << 3, 1u };
    pmu_cpuid_decode(CPUID_EAX, 0, 0, CPUID_EDX, &d);
    CHECK_EQ(mux_hw_layout(&d, &fixed0_held, &l), MUX_HW_OK);
    CHECK_EQ(l.clock.slot, PMU_SLOT_GP);
    CHECK_EQ(l.clock.slot_index, 2);            /* 3 is held */
    CHECK_EQ(l.for_sets.gp, 2);
    CHECK_EQ(l.gp_map[0], 0);
    CHECK_EQ(l.gp_map[1], 1);
    CHECK_EQ(l.for_sets.fixed_mask, 0x6);
    struct mux_hw_held all = { 0xf, 1u };
    CHECK_EQ(mux_hw_layout(&d, &all, &l), MUX_HW_NO_CLOCK);
    /* no fixed counter 0 and no architectural instructions event */
    pmu_cpuid_decode(CPUID_EAX, 1u << PMU_ARCH_INSTRUCTIONS, 0, 0, &d);
    struct mux_hw_held none = { 0, 0 };
    CHECK_EQ(mux_hw_layout(&d, &none, &l), MUX_HW_NO_CLOCK);
}

TEST(turn_longer_than_a_legacy_write_can_preload_is_refused)
{
    static struct run r;
    if (!start_run(&r, true, 0))
        return;
    CHECK_EQ(mux_hw_check_turns(&r.hw, &r.layout, &r.cfg), MUX_HW_OK);
    struct mux_hw_layout gp = r.layout;
    struct mux_row_config long_turns = r.cfg;
    gp.clock.slot = PMU_SLOT_GP;
    r.hw.full_width = false;
    long_turns.interval = 3ull << 31;
    long_turns.sub = 1ull << 31;
    long_turns.subs = 3;
    CHECK_EQ(mux_hw_check_turns(&r.hw, &gp, &long_turns), MUX_HW_OK);
    long_turns.interval++;                      /* the last turn: 2^31 + 1 */
    CHECK_EQ(mux_hw_check_turns(&r.hw, &gp, &long_turns), MUX_HW_TURN_TOO_LONG);
    CHECK(strstr(mux_hw_err_text(MUX_HW_TURN_TOO_LONG), "longer") != NULL);
}

/* Freeze_PerfMon_On_PMI: every counter stops at the clock's wrap, so each
 * row has exactly N instructions and each event what it counted in its
 * set's turns; the skid's instructions are in no interval. */
TEST(rows_every_n_with_each_sets_counts_under_freeze)
{
    static struct run r;
    if (!start_run(&r, true, 3))
        return;
    run_rows(&r, INTERVALS);
    CHECK_EQ(r.rows, INTERVALS);
    CHECK_EQ(r.row_failures, 0);
    CHECK_EQ(r.mux.load_failures, 0);
    CHECK_EQ(r.mux.rotations, INTERVALS * 7);  /* 3 sets: every turn changes set */
    CHECK_EQ(r.mux.row.skid_max, 0);
    CHECK(r.skid_units >= 3 * INTERVALS * 7);   /* each turn's PMI left 3 behind */
    CHECK_EQ(r.hw.msr_faults, 0);
    CHECK_EQ(r.model.faults, 0);
    CHECK(r.model.pmi_nmis >= INTERVALS * 7);   /* one PMI per turn at least */
    CHECK_EQ(r.model.pmis_lost, 0);
}

/* Without the freeze the skid's instructions are counted, by the clock and
 * by the set that ran them: the turn ends late (the schedule's skid), the
 * next one is shorter, the interval's last turn makes the row N + skid. */
TEST(without_freeze_the_skid_is_counted_in_the_turn_that_ran_it)
{
    static struct run r;
    if (!start_run(&r, false, 3))
        return;
    run_rows(&r, INTERVALS);
    CHECK_EQ(r.rows, INTERVALS);
    CHECK_EQ(r.row_failures, 0);
    CHECK_EQ(r.mux.row.skid_max, 3);
    CHECK_EQ(r.skid_units, 0);
}

/* A final, short interval: what the live set counted so far. */
TEST(finish_writes_the_unfinished_interval)
{
    static struct run r;
    uint64_t counts[EVENTS] = { 0 };
    struct log_interval row;
    if (!start_run(&r, true, 0))
        return;
    run_rows(&r, 2);
    enter(&r);
    for (unsigned int k = 0; k < 100; k++)
        guest_unit(&r);
    r.model.global_ctrl = r.plan.host_global_ctrl;
    counts[SW_EXITS] = r.exits;
    CHECK(mux_hw_finish(&r.mux, &r.be, counts, r.unit, &row));
    CHECK_EQ(row.number, 2);
    CHECK(row.instructions > 0 && row.instructions < N);
    for (unsigned int e = 0; e < SW_EXITS; e++)
        CHECK_EQ(row.events[e].raw, r.truth[e]);
}

/* ---- the MSRs a set change writes ---- */

#define LOGGED_MAX 64

struct msr_log {
    unsigned int n;
    uint32_t msr[LOGGED_MAX];
};

static void log_write(struct pmu_model *m, uint32_t msr, void *arg)
{
    struct msr_log *log = arg;
    (void)m;
    if (log->n < LOGGED_MAX)
        log->msr[log->n++] = msr;
}

static bool logged(const struct msr_log *log, uint32_t msr)
{
    for (unsigned int i = 0; i < log->n; i++)
        if (log->msr[i] == msr)
            return true;
    return false;
}

/* Two sets: {branches:u gp0, cycles:u fixed 1, branch-misses:u gp1} and
 * {cycles:k fixed 1}. Going to set 1 leaves the GP counters alone; going
 * back finds their selects in place. Either way the change writes the
 * status clear, FIXED_CTR_CTRL (fixed 1 changes mode) and the clock. */
TEST(a_set_change_writes_only_the_msrs_that_change)
{
    static struct run r;
    static const char *const two[] = { "branches:u", "cycles:u", "branch-misses:u", "cycles:k" };
    struct pmu_event_caps caps;
    bool on_counter[4];
    struct mux_event_need needs[4];
    struct mux_hw_held held = { 0, 0 };
    unsigned int bad = 0;
    struct msr_log log = { 0 };
    uint64_t counts[4] = { 0 };
    struct log_interval row;
    memset(&r, 0, sizeof(r));
    pmu_cpuid_decode(4u | 2u << 8 | 48u << 16 | 7u << 24, 0, 0, CPUID_EDX, &r.desc);
    pmu_event_caps_hw(&caps, &r.desc);
    r.list.count = 4;
    for (unsigned int e = 0; e < 4; e++)
        CHECK_EQ(pmu_event_parse(two[e], (unsigned int)strlen(two[e]), &caps, &r.list.events[e]),
                 PMU_EVERR_NONE);
    mux_needs_of(&r.list, on_counter, needs);
    CHECK_EQ(mux_hw_layout(&r.desc, &held, &r.layout), MUX_HW_OK);
    CHECK_EQ(mux_row_configure(&r.cfg, on_counter, needs, 4, &r.layout.for_sets, 1000, 100, &bad),
             MUX_OK);
    CHECK_EQ(r.cfg.sets, 2);
    struct pmu_model_config mc = { 4, 2, 48, 0x7, 48, true, false };
    struct pmu_msr_ops ops = { pmu_model_rdmsr, pmu_model_wrmsr, &r.model };
    pmu_model_init(&r.model, &mc);
    CHECK_EQ(pmu_hw_init(&r.hw, &r.desc, PMU_PERF_CAP_FW_WRITE, &ops), PMU_OK);
    r.be = pmu_hw_backend(&r.hw);
    CHECK_EQ(mux_hw_begin(&r.mux, &r.cfg, &r.list, &r.layout, &r.be, counts, 0), PMU_OK);
    r.model.after_wrmsr = log_write;
    r.model.after_wrmsr_arg = &log;
    for (unsigned int turn = 0; turn < 4; turn++) {
        enter(&r);
        pmu_model_count(&r.model, &pmu_model_cycles, PMU_MODEL_USER, 200);
        pmu_model_count(&r.model, &pmu_model_cycles, PMU_MODEL_KERNEL, 50);
        pmu_model_count(&r.model, &pmu_model_branches, PMU_MODEL_USER, 30);
        pmu_model_count(&r.model, &pmu_model_branch_misses, PMU_MODEL_USER, 10);
        pmu_model_count(&r.model, &pmu_model_instructions, PMU_MODEL_USER, 100);
        r.model.global_ctrl = r.plan.host_global_ctrl;
        log.n = 0;
        CHECK(mux_hw_due(&r.mux, &r.be));
        mux_hw_turn(&r.mux, &r.be, counts, 0, &row);
        CHECK_EQ(r.mux.live, (turn + 1) % 2);
        CHECK_EQ(log.n, 3);
        CHECK(logged(&log, MSR_IA32_PERF_GLOBAL_OVF_CTRL));
        CHECK(logged(&log, MSR_IA32_FIXED_CTR_CTRL));
        CHECK(logged(&log, MSR_IA32_FIXED_CTR0));
    }
    CHECK_EQ(r.mux.rotations, 4);
}

/* Writes to the held counter's MSRs (GP 3), whoever issues them. */
static void note_held(struct pmu_model *m, uint32_t msr, void *arg)
{
    unsigned int *held_writes = arg;
    (void)m;
    if (msr == MSR_IA32_PERFEVTSEL0 + 3 || msr == MSR_IA32_A_PMC0 + 3 || msr == MSR_IA32_PMC0 + 3)
        (*held_writes)++;
}

/* The held counter (GP 3) is never written by the session. */
TEST(the_held_counter_is_never_written)
{
    static struct run r;
    unsigned int held_writes = 0;
    if (!start_run(&r, true, 2))
        return;
    r.model.after_wrmsr = note_held;
    r.model.after_wrmsr_arg = &held_writes;
    r.model.evtsel[3] = 0x4300c4;               /* its owner's select */
    r.model.pmc[3] = 12345;
    uint64_t writes = r.model.wrmsr_count;
    run_rows(&r, 3);
    CHECK_EQ(r.row_failures, 0);
    CHECK(r.model.wrmsr_count > writes);
    CHECK_EQ(held_writes, 0);
    CHECK_EQ(r.model.evtsel[3], 0x4300c4);
    CHECK_EQ(r.model.pmc[3], 12345);
}
