/* Interval multiplexing on the hardware backend through the VM-exit loop
 * (pmu/hw/pmu_mux_hw.c): the command line's session (pmu=hw pmu.interval=)
 * and the guest's (VERTIGO_HC_MUX_START), driven by the same calls the
 * VT-x run loop makes (pmu_vcpu_start, sample_nmi_before_entry and
 * pmu_before_entry, pmu_after_exit, pmu_nmi_exit for the clock's PMI,
 * pmu_exit_handled, pmu_emulated_instruction, the VCPU switch hooks,
 * pmu_domain_stopping), on the fake arch hooks over the register-level
 * PMU model. The guest retires instructions one at a time in user and
 * kernel stretches with their cycles, reference cycles, branches and
 * misses; it exits every few hundred instructions and at the clock's PMI
 * (after a skid the freeze keeps out of every counter); Vertigo does work
 * of its own at every exit and emulates a guest instruction now and then.
 * The test knows which set is on the counters at every moment, so it
 * knows what every row must hold. */
#include <stdio.h>
#include <string.h>

#include "pmu/run/pmu_config.h"
#include "pmu/run/pmu_cpu.h"
#include "pmu/pmu_loop.h"
#include "pmu/run/pmu_pmi.h"
#include "pmu/run/pmu_switch.h"
#include "pmu/sample/sample_nmi.h"
#include "tests/unit/fake_pmu_arch.h"
#include "tests/unit/mux_guest_model.h"
#include "tests/unit/mux_hypercalls.h"
#include "pmu/mux/pmu_mux_guest.h"
#include "tests/unit/pmu_model.h"
#include "tests/unit/test_log_util.h"
#include "tests/unit/unit.h"
#include "pmu/hw/hw_vcpu.h"
#include "pmu/sample/sample_guest.h"
#include "pmu/run/pmu_run.h"
#include "vertigo/hypercall.h"
#include "vmm/hv_cmdline.h"
#include "lib/msr.h"
#include "vmm/pmu_hooks.h"
#include "vmm/vcpu.h"

#define EVENTS 11u
#define SW_EXITS 10u            /* exits:all, a software event */
#define HV_EVENT 6u             /* instructions:h */
#define N 3500u                 /* interval: 7 turns of 500 */
#define S 500u
#define EXIT_EVERY 333u         /* guest instructions between two exits */
#define HV_WORK 40u             /* Vertigo's instructions at each exit */
#define EMULATE_EVERY 5u        /* every 5th exit emulates one instruction */
#define SKID 3u                 /* instructions the guest runs past a PMI */
#define ROWS_MAX 16u
#define EXIT_REASON_CPUID 10u

#define SESSION "pmu.interval=3500 pmu.subinterval=500 pmu.events=instructions:u," \
                "instructions:k,cycles:u,cycles:k,branches:u,branch-misses:u,instructions:h," \
                "ref-cycles:u,r00c0:uk,cycles:uk,exits:all"

/* One guest: its VCPU and what its events counted. */
struct guest {
    struct vcpu *v;
    uint64_t unit;              /* guest instructions so far */
    uint64_t exits;
    uint64_t truth[EVENTS];     /* counted in the current interval */
    uint64_t expected[ROWS_MAX][EVENTS];
    uint64_t rows_seen;         /* rows the VCPU had written when last looked */
    uint64_t branches_u;        /* all its user branches (a sampling counter's) */
    uint64_t instructions_kh;   /* its kernel instructions and Vertigo's for it */
};

static struct domain doms[2];
static struct pmu_model model;
static struct guest guests[2];

static void hardware(void)
{
    struct pmu_model_config cfg = { 4, 4, 48, 0x7, 48, true, false };
    pmu_model_init(&model, &cfg);
    fake.model = &model;
    fake.global_ctrl_switch = true;
    fake.guest_timer = true;
    fake.perf_capabilities = 1u << 13;          /* full-width writes */
    fake.verdict = PMU_HARDWARE;
    fake.tsc_hz = 1000000;
    fake.desc = (struct pmu_desc){ .version = 4, .gp_counters = 4, .gp_width = 48,
                                   .fixed_counters = 3, .fixed_width = 48,
                                   .fixed_mask = 0x7, .events_available = 0x7f };
}

/* `domains` domains of one VCPU each on CPU 0 with this command line;
 * domain 0's VCPU is the one on the CPU. */
static struct vcpu *start(const char *cmdline, unsigned int domains)
{
    fake_arch_reset();
    hv_cmdline_set(cmdline);
    hardware();
    memset(guests, 0, sizeof(guests));
    for (unsigned int d = 0; d < domains; d++) {
        memset(&doms[d], 0, sizeof(doms[d]));
        doms[d].id = d;
        doms[d].vcpu_count = 1;
        doms[d].vcpus[0].domain = &doms[d];
        guests[d].v = &doms[d].vcpus[0];
        pmu_vcpu_start(guests[d].v);
    }
    if (domains > 1) {
        pmu_vcpu_switch_out(guests[domains - 1].v);
        pmu_vcpu_switch_in(guests[0].v);
    }
    return guests[0].v;
}

/* ---- The guest's work -------------------------------------------------------- */

/* The schedule g's VCPU runs (the command line's or its guest's; kept
 * after the session stops). */
static const struct mux_row_config *cfg_of(const struct guest *g)
{
    return g->v->pmu.mux.rows.cfg;
}

/* The live set's events of g take u at mode cpl (Vertigo's when hv). */
static void to_truth(struct guest *g, const struct mux_unit *u, unsigned int cpl, bool hv)
{
    const struct mux_row_config *cfg = cfg_of(g);
    const struct pmu_event_list *list = pmu_counting_of(g->v).list;
    for (unsigned int e = 0; e < EVENTS; e++) {
        const struct pmu_event *ev = &list->events[e];
        if (cfg->set_of[e] != hw_vcpu_of(&g->v->pmu)->mux.live)
            continue;
        if (hv ? ev->hypervisor : pmu_event_counts_at(ev, cpl))
            g->truth[e] += mux_unit_amount(ev, u);
    }
}

/* One guest instruction; frozen counters count it for no event. */
static void guest_unit(struct guest *g)
{
    unsigned int cpl = mux_unit_cpl(g->unit);
    struct mux_unit u = mux_unit_of(g->unit);
    bool frozen = pmu_model_frozen(&model);
    mux_unit_count(&model, &u, cpl);
    if (!frozen) {
        to_truth(g, &u, cpl, false);
        g->branches_u += cpl ? u.branches : 0;
        g->instructions_kh += cpl ? 0 : u.instructions;
    }
    g->unit++;
}

/* A row was written since the last look: what it must hold. */
static void note_rows(struct guest *g)
{
    for (; g->rows_seen < g->v->pmu.mux.written; g->rows_seen++) {
        if (g->rows_seen < ROWS_MAX)
            memcpy(g->expected[g->rows_seen], g->truth, sizeof(g->truth));
        memset(g->truth, 0, sizeof(g->truth));
    }
}

/* One entry and exit of g's VCPU: the guest runs `units` instructions or
 * up to the clock's PMI (and SKID more, frozen); at the exit the turns
 * end, the NMI is taken, the exit counted, an instruction emulated now and
 * then; then Vertigo works. */
/* The clock's PMI, Vertigo's: as the NMI exit it caused, or (every other
 * one) delivered while Vertigo runs, noted there and taken before the
 * next entry. Either way the turn already ended at the exit. */
static void take_pmi(struct guest *g)
{
    struct trap_frame f = { .rip = 0xffffffff80001234ull };
    CHECK_EQ(hw_vcpu_of(&g->v->pmu)->mux.ctx.overflow_pending, 0);
    if (model.pmi_nmis % 2) {
        CHECK(pmu_nmi_exit(g->v));
        CHECK_EQ(model.lvtpc & PMU_MODEL_LVT_MASKED, 0);    /* unmasked */
    } else {
        CHECK(pmu_nmi_root(&f));
        CHECK(model.lvtpc & PMU_MODEL_LVT_MASKED);         /* until the entry */
    }
}

/* The VM entry: the plan's GLOBAL_CTRL and DEBUGCTL in the model. */
static void enter(struct guest *g)
{
    fake.cpl = mux_unit_cpl(g->unit);
    sample_nmi_before_entry(g->v);
    pmu_before_entry(g->v);
    model.global_ctrl = fake.plan.guest_global_ctrl;
    model.debugctl = fake.plan.guest_debugctl_set;
}

static void run_once(struct guest *g, unsigned int units)
{
    struct vcpu *v = g->v;
    unsigned int pmis = model.pmis;
    enter(g);
    while (units-- > 0 && model.pmis == pmis)
        guest_unit(g);
    for (unsigned int k = 0; model.pmis != pmis && k < SKID; k++)
        guest_unit(g);
    model.global_ctrl = fake.plan.host_global_ctrl;
    model.debugctl = 0;
    fake.cpl = mux_unit_cpl(g->unit);
    pmu_after_exit(v, 0);
    note_rows(g);
    if (model.pmis != pmis)
        take_pmi(g);
    pmu_exit_handled(v, EXIT_REASON_CPUID);
    g->truth[SW_EXITS]++;
    if (++g->exits % EMULATE_EVERY == 0) {
        struct mux_unit one = { 1, 0, 0, 0, 0 };
        to_truth(g, &one, fake.cpl, false);
        g->instructions_kh += fake.cpl ? 0 : 1;
        pmu_emulated_instruction(v);
        note_rows(g);
    }
    struct mux_unit hv = { HV_WORK, 0, 0, 0, 0 };       /* Vertigo's work */
    to_truth(g, &hv, 0, true);
    g->instructions_kh += HV_WORK;
    pmu_model_count(&model, &pmu_model_instructions, PMU_MODEL_KERNEL, HV_WORK);
}

static void run_rows(struct guest *g, uint64_t rows)
{
    while (g->v->pmu.mux.written < rows && g->unit < 100u * N * rows)
        run_once(g, EXIT_EVERY);
}

/* ---- The rows in the log ------------------------------------------------------ */

/* Every domain's rows, drained from the log (rows[d][]: at most
 * ROWS_MAX); the number of domain 0's. */
static unsigned int logged_rows(struct log_interval rows[2][ROWS_MAX], unsigned int n[2])
{
    struct log_test_decoded dec;
    n[0] = n[1] = 0;
    log_test_decode_ring(&fake.ring, &dec);
    for (size_t i = 0; i < dec.count; i++) {
        if (dec.values[i].type != LOG_REC_INTERVAL)
            continue;
        uint32_t d = dec.values[i].u.interval.domain;
        if (d < 2 && n[d] < ROWS_MAX)
            rows[d][n[d]++] = dec.values[i].u.interval;
    }
    log_test_decoded_free(&dec);
    return n[0];
}

/* Instructions set s ran in interval i (the schedule cfg's turns). */
static uint64_t set_running(const struct mux_row_config *cfg, uint64_t i, unsigned int s)
{
    uint64_t ran = 0, subs = cfg->subs;
    for (uint64_t t = 0; t < subs; t++)
        if (mux_set_at(&cfg->plan, i, t, subs) == s)
            ran += t + 1 == subs ? N - t * S : S;
    return ran;
}

/* Row r of g: number r, N instructions, each event's raw count what the
 * model counted during its set's turns, its running its set's turns. */
static unsigned int row_failures(const struct guest *g, const struct log_interval *rows,
                                 unsigned int n)
{
    unsigned int failures = 0;
    for (unsigned int r = 0; r < n; r++) {
        const struct log_interval *row = &rows[r];
        bool ok = CHECK_EQ(row->number, r) && CHECK_EQ(row->count, EVENTS) &&
                  CHECK_EQ(row->instructions, N);
        for (unsigned int e = 0; e < EVENTS; e++) {
            unsigned int s = cfg_of(g)->set_of[e];
            ok &= CHECK_EQ(row->events[e].raw, g->expected[r][e]);
            ok &= CHECK_EQ(row->events[e].running,
                           s == MUX_ROW_ALWAYS ? N : set_running(cfg_of(g), r, s));
        }
        failures += !ok;
    }
    return failures;
}

/* Domain 0's log holds exactly `count` rows, each as g's run says. */
static void rows_exact(const struct guest *g, unsigned int count)
{
    static struct log_interval rows[2][ROWS_MAX];
    unsigned int n[2];
    CHECK_EQ(logged_rows(rows, n), count);
    CHECK_EQ(row_failures(g, rows[0], count), 0);
}

/* ---- The command line's session ------------------------------------------------ */

/* Every row of N instructions with what the model counted, numbered
 * without gaps, the sets in mux_set_at order, the clock's PMIs taken as
 * Vertigo's and none lost; the unfinished interval at the domain's end. */
TEST(rows_every_n_through_the_exit_loop)
{
    static struct log_interval rows[2][ROWS_MAX];
    unsigned int n[2];
    struct vcpu *v = start("pmu=hw " SESSION, 1);
    struct guest *g = &guests[0];
    CHECK(fake_console_has("(11 events, 2 sets over 6 counters (turns counted on fixed "
                           "counter 0), interval 3500, turn 500 instructions)"));
    if (!CHECK(v->pmu.mux.on))
        return;
    run_rows(g, 6);
    enter(g);
    for (unsigned int k = 0; k < 100; k++)
        guest_unit(g);                          /* the last interval's start ... */
    model.global_ctrl = fake.plan.host_global_ctrl;
    pmu_after_exit(v, 0);                       /* ... and its exit */
    pmu_domain_stopping(&doms[0]);
    if (!CHECK_EQ(logged_rows(rows, n), 7))
        return;
    CHECK_EQ(row_failures(g, rows[0], 6), 0);
    const struct log_interval *last = &rows[0][6];
    CHECK_EQ(last->number, 6);
    CHECK(last->instructions > 0 && last->instructions < N);
    for (unsigned int e = 0; e < EVENTS; e++)
        if (e != SW_EXITS)
            CHECK_EQ(last->events[e].raw, g->truth[e]);
    char line[160];
    snprintf(line, sizeof(line), "pmu: vcpu 0: 6 interval rows of 3500 instructions (turns of "
             "500) and a last one of %lu; skid at most 0 instructions",
             (unsigned long)last->instructions);
    CHECK(fake_console_has(line));
    CHECK_EQ(hw_vcpu_of(&v->pmu)->mux.rotations, 6u * 7u);     /* 2 sets, 7 turns: every turn changes */
    CHECK_EQ(hw_vcpu_of(&v->pmu)->mux.load_failures, 0);
    CHECK_EQ(model.faults, 0);
    CHECK(model.pmi_nmis >= 6u * 7u);
    CHECK_EQ(model.pmis_lost, 0);
    CHECK(pmu_cpus[0].stats.pmis == 0);             /* no sample written */
    CHECK(pmu_pmi_stats(0)->hw_deferred >= 6u * 7u / 2u);   /* half came in root */
}

/* VERTIGO_HC_PMU_READ of a session event: what it counted on the
 * counters, up to the last turn's end. */
TEST(a_session_events_count_is_its_raw_count_so_far)
{
    struct vcpu *v = start("pmu=hw " SESSION, 1);
    struct guest *g = &guests[0];
    uint64_t raw = 0;
    run_rows(g, 2);
    for (unsigned int r = 0; r < 2; r++)
        raw += g->expected[r][0];
    /* the turns since the last row ended add their share */
    CHECK((uint64_t)pmu_run_guest_read(v, 0) >= raw);
    CHECK((uint64_t)pmu_run_guest_read(v, 0) <= raw + g->truth[0]);
    CHECK_EQ((uint64_t)pmu_run_guest_read(v, SW_EXITS), g->exits);
}

/* Counter writes to GP counter 0 (the sampling session's). */
static void note_gp0(struct pmu_model *m, uint32_t msr, void *arg)
{
    unsigned int *writes = arg;
    (void)m;
    if (msr == MSR_IA32_PERFEVTSEL0 || msr == MSR_IA32_A_PMC0 || msr == MSR_IA32_PMC0)
        (*writes)++;
}

/* A run whose command line reserves events' counters (sample.events=)
 * beside the session, whose console line then says `layout`, and a
 * sampling session of those events (its period far beyond the run: no
 * sample) started as the guest's VERTIGO_HC_SESSION_START starts one and
 * applied at the first entry: its counter, of kind `slot`, is event id
 * EVENTS. NULL if any of that failed. */
static struct vcpu *start_sampling_beside(const char *events, const char *layout,
                                          enum pmu_slot_kind slot)
{
    char cmdline[512];
    struct vertigo_session s = { .abi_version = VERTIGO_SESSION_ABI, .period = 100000000 };
    snprintf(cmdline, sizeof(cmdline), "pmu=hw sample.events=%s sample.period=%lu " SESSION,
             events, (unsigned long)s.period);
    struct vcpu *v = start(cmdline, 1);
    snprintf(s.events, sizeof(s.events), "%s", events);
    if (!CHECK(fake_console_has(layout)) || !CHECK_EQ(sample_guest_start(v, &s), 0))
        return NULL;
    sample_nmi_before_entry(v);
    pmu_before_entry(v);
    if (!CHECK_EQ(v->pmu.ctx.count, EVENTS + 1))
        return NULL;
    return CHECK_EQ(v->pmu.ctx.counters[EVENTS].event.slot, slot) ? v : NULL;
}

/* sample.events= reserves GP counter 0: the interval session's sets and
 * clock never write it, the sampling counter counts every user branch of
 * the run, its event id follows the session's events, and the rows stay
 * exact. */
TEST(a_sampling_sessions_counter_is_never_written)
{
    unsigned int gp0_writes = 0;
    struct vcpu *v = start_sampling_beside("branches:u", "3 sets over 5 counters (turns "
                                           "counted on fixed counter 0)", PMU_SLOT_GP);
    struct guest *g = &guests[0];
    if (!v)
        return;
    CHECK_EQ(v->pmu.ctx.counters[EVENTS].event.slot_index, 0);
    uint64_t select = model.evtsel[0];
    model.after_wrmsr = note_gp0;
    model.after_wrmsr_arg = &gp0_writes;
    run_rows(g, 4);
    model.after_wrmsr = NULL;
    CHECK_EQ(gp0_writes, 0);
    CHECK_EQ(model.evtsel[0], select);
    CHECK_EQ((uint64_t)pmu_run_guest_read(v, EVENTS), g->branches_u);
    rows_exact(g, 4);
    CHECK(sample_guest_stop(v) >= 0);          /* the next test's session may start */
}

/* sample.events=instructions:kh reserves fixed counter 0: the clock goes
 * to the highest general-purpose counter, and the sampling counter, which
 * also counts Vertigo, keeps counting after every set change (both
 * contexts' fields in FIXED_CTR_CTRL, both one's :h counters in the
 * host's GLOBAL_CTRL: pmu_hw_share). */
TEST(a_sampling_counter_of_vertigo_keeps_counting_beside_a_gp_clock)
{
    struct guest *g = &guests[0];
    struct vcpu *v = start_sampling_beside("instructions:kh", "3 sets over 5 counters (turns "
                                           "counted on general-purpose counter 3)", PMU_SLOT_FIXED);
    if (!v)
        return;
    g->instructions_kh = 0;                     /* counted from here */
    uint64_t before = (uint64_t)pmu_run_guest_read(v, EVENTS);
    run_rows(g, 4);
    rows_exact(g, 4);
    CHECK_EQ((uint64_t)pmu_run_guest_read(v, EVENTS) - before, g->instructions_kh);
    CHECK_EQ(model.pmis_lost, 0);
    CHECK(sample_guest_stop(v) >= 0);
}

/* The two domains' VCPUs share CPU 0 (guests[on]'s on it), each running
 * its session, switched every third exit, in the middle of turns, until
 * each wrote 4 rows; then each one's rows must be exact. The one on the
 * CPU at the end. */
static unsigned int run_switched(unsigned int on)
{
    static struct log_interval rows[2][ROWS_MAX];
    unsigned int n[2];
    while (guests[0].v->pmu.mux.written < 4 || guests[1].v->pmu.mux.written < 4) {
        run_once(&guests[on], 211);             /* never a turn's length */
        if (guests[on].exits % 3 == 0) {
            pmu_vcpu_switch_out(guests[on].v);
            on ^= 1;
            pmu_vcpu_switch_in(guests[on].v);
        }
        if (guests[on].unit > 100u * N)
            break;
    }
    logged_rows(rows, n);
    CHECK(guests[0].exits > 20 && guests[1].exits > 20);     /* many switches */
    for (unsigned int d = 0; d < 2; d++) {
        CHECK(n[d] >= 4);
        CHECK_EQ(row_failures(&guests[d], rows[d], 4), 0);
        CHECK_EQ(hw_vcpu_of(&guests[d].v->pmu)->mux.load_failures, 0);
    }
    CHECK_EQ(model.pmis_lost, 0);
    return on;
}

/* Two domains share CPU 0, each with its own session: switches in the
 * middle of turns keep each one's live set, clock and rows. */
TEST(vcpu_switches_mid_turn_keep_each_sessions_state)
{
    start("pmu=hw " SESSION, 2);
    run_switched(0);
}

/* The guest's virtual PMU counts user branches on its GP counter 0: it
 * runs on a counter the live set and the clock leave free (none in the
 * turns of the set that takes all four), never on theirs, and the rows
 * stay exact. */
TEST(the_guests_virtual_pmu_runs_beside_the_session)
{
    uint64_t value = 0;
    struct vcpu *v = start("pmu=hw " SESSION, 1);
    struct guest *g = &guests[0];
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERFEVTSEL0, 0xc4 | 1ull << 16 | 1ull << 22));
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERF_GLOBAL_CTRL, 1));
    run_rows(g, 4);
    rows_exact(g, 4);
    CHECK(pmu_exit_rdmsr(v, MSR_IA32_PMC0, &value));
    CHECK(value > 0 && value < g->branches_u);  /* time-shared with the session */
    CHECK(hw_vcpu_of(&v->pmu)->vpmu.counters_unplaced > 0);
    CHECK(hw_vcpu_of(&v->pmu)->vpmu.runs > 0);
}

/* ---- Refusals ---------------------------------------------------------------- */

TEST(sessions_the_hardware_cannot_run_are_refused_by_reason)
{
    struct vcpu *v;
    /* fixed counter 0 and every GP counter reserved for sampling */
    v = start("pmu=hw sample.events=instructions,branches,branch-misses,r01c2,r02c2 "
              "pmu.interval=1000 pmu.events=cycles,cycles:u", 1);
    CHECK(!v->pmu.mux.on);
    CHECK(fake_console_has("pmu: no counting session: no counter is free to count the "
                           "turns' instructions"));
    /* one set, one turn of 2^49 instructions: more than 48 bits count */
    v = start("pmu=hw pmu.interval=562949953421312 pmu.events=cycles", 1);
    CHECK(!v->pmu.mux.on);
    CHECK(fake_console_has("a turn is longer than the clock counter can count to its PMI "
                           "(fixed counter 0, 562949953421312 instructions)"));
    v = start("pmu=hw pmu.interval=1000 pmu.interval.exact=on pmu.events=cycles", 1);
    CHECK(!v->pmu.mux.on);
    CHECK(fake_console_has("pmu.interval.exact=on needs the software backend"));
    /* more sets than turns: the schedule's own error, over the hardware's counters */
    v = start("pmu=hw pmu.interval=1000 pmu.subinterval=600 pmu.events=cycles:u,cycles:k,"
              "cycles,branches,branches:u,branches:k,branch-misses", 1);
    CHECK(!v->pmu.mux.on);
    CHECK(fake_console_has("pmu.interval=1000 pmu.subinterval=600 over 6 counters: the "
                           "interval holds fewer sub-intervals than there are event sets"));
}

/* A sampling session beside the interval session gets only the counters
 * sample.events= reserved: none here. */
TEST(a_sampling_session_without_reserved_counters_is_refused)
{
    struct vcpu *v = start("pmu=hw " SESSION, 1);
    struct vertigo_session s = { .abi_version = VERTIGO_SESSION_ABI, .period = 1000,
                                 .events = "branches:u" };
    CHECK(sample_guest_start(v, &s) < 0);
    CHECK(fake_console_has("the interval session holds every hardware counter (sample.events= "
                           "on the command line reserves some for sampling)"));
    CHECK(v->pmu.mux.on);
}

/* ---- The guest's session ------------------------------------------------------ */

/* VERTIGO_HC_MUX_START on the hardware backend: the same rows as the
 * command line's session; the stop writes the unfinished one and frees
 * the counters; a turn the clock cannot count is -VERTIGO_ERANGE. */
TEST(the_guests_session_runs_on_the_hardware_backend)
{
    static struct log_interval rows[2][ROWS_MAX];
    unsigned int n[2];
    struct vcpu *v = start("pmu=hw", 1);
    struct guest *g = &guests[0];
    const char *events = strstr(SESSION, "pmu.events=") + strlen("pmu.events=");
    CHECK_EQ(mux_start(v, "cycles", 562949953421312ull, 0), -VERTIGO_ERANGE);
    CHECK(fake_console_has("multiplexing session refused: a turn is longer"));
    if (!CHECK_EQ(mux_start(v, events, N, S), 2))
        return;
    CHECK(fake_console_has("2 sets over 6 counters (turns counted on fixed counter 0)"));
    run_rows(g, 3);
    enter(g);
    for (unsigned int k = 0; k < 50; k++)
        guest_unit(g);
    model.global_ctrl = fake.plan.host_global_ctrl;
    pmu_after_exit(v, 0);
    CHECK_EQ(mux_stop(v), 4);
    CHECK(!v->pmu.mux.on);
    CHECK_EQ(logged_rows(rows, n), 4);
    CHECK_EQ(row_failures(g, rows[0], 3), 0);
    CHECK_EQ(rows[0][3].number, 3);
    pmu_before_entry(v);
    CHECK_EQ(fake.plan.guest_global_ctrl, 0);       /* no counter of the session left on */
}

/* Two domains share CPU 0, each with the session its kernel started (one
 * per domain, side by side): switches in the middle of turns keep each
 * one's live set, clock and rows, as with the command line's. */
TEST(two_domains_guest_sessions_side_by_side)
{
    const char *events = strstr(SESSION, "pmu.events=") + strlen("pmu.events=");
    start("pmu=hw", 2);
    CHECK(!guests[1].v->pmu.mux.on);
    if (!CHECK_EQ(mux_start(guests[0].v, events, N, S), 2))
        return;
    pmu_vcpu_switch_out(guests[0].v);
    pmu_vcpu_switch_in(guests[1].v);
    CHECK(!guests[1].v->pmu.mux.on);            /* domain 0's session is not its */
    if (!CHECK_EQ(mux_start(guests[1].v, events, N, S), 2))
        return;
    CHECK(fake_console_has("pmu: domain 1 vcpu 0: multiplexing session of the guest"));
    unsigned int on = run_switched(1);
    for (unsigned int k = 0; k < 2; k++) {     /* each VCPU stops its own, on the CPU */
        CHECK(mux_stop(guests[on].v) >= 4);
        CHECK_EQ(mux_stop(guests[on].v), -VERTIGO_EINVAL);
        pmu_vcpu_switch_out(guests[on].v);
        on ^= 1;
        pmu_vcpu_switch_in(guests[on].v);
    }
}
