/* An interval multiplexing session's rows (pmu/mux/mux_row.c): a simulated
 * VCPU retires instructions, each event counting at its own rate; the
 * rows must hold every interval in order, each event's raw count over
 * exactly its turns, the instructions of those turns, and software events
 * over the whole interval; turns continue across intervals; a late stop
 * (skid) is charged to the row that ran it. */
#include "tests/unit/unit.h"
#include "pmu/mux/mux_row.h"

#define EVENTS 6

/* Events 0-3 need a counter (two soft counters: sets {0,1} and {2,3}),
 * 4-5 are software events; event e counts rate[e] per instruction. */
static const uint64_t rate[EVENTS] = { 1, 2, 3, 5, 7, 11 };
static const bool on_counter[EVENTS] = { true, true, true, true, false, false };

struct sim {
    struct mux_row_config cfg;
    struct mux_row_state st;
    uint64_t retired;               /* instructions so far, all intervals */
    uint64_t counts[EVENTS];
    struct log_interval rows[8];
    unsigned int row_count;
};

static void sim_start(struct sim *s, uint64_t n, uint64_t sub)
{
    struct mux_event_need needs[EVENTS];
    struct mux_counters soft = { 2, 0 };
    unsigned int bad;
    memset(s, 0, sizeof(*s));
    for (unsigned int e = 0; e < EVENTS; e++)
        needs[e] = (struct mux_event_need){ -1, true };
    CHECK_EQ(mux_row_configure(&s->cfg, on_counter, needs, EVENTS, &soft, n, sub, &bad), MUX_OK);
    mux_row_begin(&s->st, &s->cfg, s->counts, 0);
}

/* The guest runs n instructions (the caller's stop point), then the
 * boundaries that fell due are taken. */
static void sim_run(struct sim *s, uint64_t n)
{
    s->retired += n;
    for (unsigned int e = 0; e < EVENTS; e++)
        s->counts[e] += rate[e] * n;
    mux_row_retire(&s->st, n);
    while (mux_row_due(&s->st)) {
        /* the turn may read only what mux_row_reads lists (as
         * mux_row_needs names them): the others are poisoned, so a read
         * of one would spoil the rows */
        uint64_t seen[EVENTS];
        uint8_t ids[MUX_ROW_EVENTS_MAX];
        unsigned int reads = mux_row_reads(&s->st, ids), listed = 0;
        for (unsigned int e = 0; e < EVENTS; e++)
            seen[e] = UINT64_MAX / 3;
        for (unsigned int i = 0; i < reads; i++) {
            CHECK(ids[i] < EVENTS && seen[ids[i]] == UINT64_MAX / 3);   /* each once */
            seen[ids[i]] = s->counts[ids[i]];
        }
        for (unsigned int e = 0; e < EVENTS; e++)
            listed += mux_row_needs(&s->st, e);
        CHECK_EQ(listed, reads);            /* the list is what mux_row_needs names */
        if (mux_row_turn(&s->st, seen, s->retired * 3, &s->rows[s->row_count]))
            s->row_count++;
        /* the set on the counters steps round as mux_set_at numbers turns */
        CHECK_EQ(s->st.active, mux_set_at(&s->cfg.plan, s->st.number, s->st.sub_index,
                                          s->cfg.subs));
    }
}

/* Runs exactly to each boundary, as the preemption-timer deadline does. */
static void sim_exact(struct sim *s, unsigned int rows)
{
    while (s->row_count < rows)
        sim_run(s, mux_row_left(&s->st));
}

TEST(each_row_holds_every_event_over_its_turns)
{
    static struct sim s;
    sim_start(&s, 1000, 100);       /* ten turns: five per set */
    sim_exact(&s, 3);
    for (unsigned int r = 0; r < 3; r++) {
        const struct log_interval *row = &s.rows[r];
        CHECK_EQ(row->number, r);
        CHECK_EQ(row->instructions, 1000);
        CHECK_EQ(row->tsc_span, 3000);
        CHECK_EQ(row->count, EVENTS);
        for (unsigned int e = 0; e < 4; e++) {
            CHECK_EQ(row->events[e].running, 500);
            CHECK_EQ(row->events[e].raw, rate[e] * 500);
            uint64_t value;
            CHECK_EQ(mux_extrapolate(row->events[e].raw, row->instructions,
                                     row->events[e].running, &value), MUX_SCALED);
            CHECK_EQ(value, rate[e] * 1000);
        }
        for (unsigned int e = 4; e < EVENTS; e++) {
            CHECK_EQ(row->events[e].running, 1000);
            CHECK_EQ(row->events[e].raw, rate[e] * 1000);
        }
    }
    CHECK_EQ(s.st.skid_max, 0);
}

/* N/S = 3 turns for 2 sets: interval 0 runs sets 0,1,0 (the last turn
 * takes the remainder: 300, 300, 400 instructions), interval 1 goes on
 * with 1,0,1. */
TEST(turns_continue_across_intervals_with_the_remainder_last)
{
    static struct sim s;
    sim_start(&s, 1000, 300);
    sim_exact(&s, 2);
    CHECK_EQ(s.rows[0].events[0].running, 700);
    CHECK_EQ(s.rows[0].events[2].running, 300);
    CHECK_EQ(s.rows[1].events[0].running, 300);
    CHECK_EQ(s.rows[1].events[3].running, 700);
    CHECK_EQ(s.rows[1].events[3].raw, 5 * 700);
}

/* A run stopped 7 instructions past a turn's end: that turn ran 107, the
 * next one 93 (its end stays where the schedule puts it); a run past the
 * interval's end makes that row 7 longer and the next starts at zero. */
TEST(skid_is_charged_to_the_turn_and_row_that_ran_it)
{
    static struct sim s;
    sim_start(&s, 1000, 100);
    sim_run(&s, 107);
    CHECK_EQ(s.st.skid_max, 7);
    sim_exact(&s, 0);
    while (s.st.sub_index < 9)
        sim_run(&s, mux_row_left(&s.st));
    sim_run(&s, mux_row_left(&s.st) + 7);
    CHECK_EQ(s.row_count, 1);
    CHECK_EQ(s.rows[0].instructions, 1007);
    CHECK_EQ(s.rows[0].events[0].running, 507);     /* turns 0 (107), 2, 4, 6, 8 */
    CHECK_EQ(s.rows[0].events[2].running, 500);     /* 1 (93), 3, 5, 7, 9 (107) */
    CHECK_EQ(s.rows[0].events[4].running, 1007);
    CHECK_EQ(s.rows[0].events[4].raw, 7 * 1007);
    sim_exact(&s, 2);
    CHECK_EQ(s.rows[1].instructions, 1000);
    CHECK_EQ(s.rows[1].number, 1);
}

/* One run over several boundaries: every turn it passed is ended (the
 * ones after the first with no instructions of their own). */
TEST(a_run_over_several_boundaries_ends_each_turn)
{
    static struct sim s;
    sim_start(&s, 1000, 100);
    sim_run(&s, 350);
    CHECK_EQ(s.st.sub_index, 3);
    CHECK_EQ(s.st.done, 350);
    sim_exact(&s, 1);
    CHECK_EQ(s.rows[0].instructions, 1000);
    CHECK_EQ(s.rows[0].events[0].running + s.rows[0].events[2].running, 1000);
}

TEST(configuration_errors_are_specific)
{
    struct mux_row_config cfg;
    struct mux_event_need needs[3] = { { -1, true }, { -1, false }, { -1, true } };
    const bool all[3] = { true, true, true }, sw[3] = { true, false, true };
    struct mux_counters soft = { 1, 0 };
    unsigned int bad = 99;
    CHECK_EQ(mux_row_configure(&cfg, all, needs, 3, &soft, 100, 10, &bad), MUX_ERR_NO_COUNTER);
    CHECK_EQ(bad, 1);
    /* event 1 is a software event here: two sets, 100 / 60 = 1 turn */
    CHECK_EQ(mux_row_configure(&cfg, sw, needs, 3, &soft, 100, 60, &bad), MUX_ERR_TOO_FEW_TURNS);
    CHECK_EQ(mux_row_configure(&cfg, sw, needs, 3, &soft, 100, 50, &bad), MUX_OK);
    CHECK_EQ(cfg.set_of[1], MUX_ROW_ALWAYS);
    CHECK_EQ(cfg.set_of[2], 1);
    CHECK_EQ(mux_row_configure(&cfg, sw, needs, 0, &soft, 100, 50, &bad), MUX_ERR_NO_EVENTS);
    CHECK_EQ(mux_row_configure(&cfg, sw, needs, 3, &soft, 0, 50, &bad), MUX_ERR_INTERVAL_ZERO);
}

/* N = 1000, S = 100: one whole row, then runs of runs[0..n-1]
 * instructions, and the run ends: *last gets the unfinished row. */
static bool sim_short_last_row(struct sim *s, const uint64_t *runs, unsigned int n,
                               struct log_interval *last)
{
    sim_start(s, 1000, 100);
    sim_exact(s, 1);
    for (unsigned int i = 0; i < n; i++)
        sim_run(s, runs[i]);
    return mux_row_finish(&s->st, s->counts, 99, last);
}

/* The run ends 250 instructions into interval 1: its row has those, the
 * turns so far (100 + 100 + 50) and the software events' whole share. */
TEST(the_unfinished_interval_makes_a_short_last_row)
{
    static struct sim s;
    struct log_interval last;
    const uint64_t runs[] = { 100, 100, 50 };
    CHECK(sim_short_last_row(&s, runs, 3, &last));
    CHECK_EQ(last.number, 1);
    CHECK_EQ(last.instructions, 250);
    CHECK_EQ(last.events[0].running + last.events[2].running, 250);
    CHECK_EQ(last.events[2].raw, 3 * last.events[2].running);
    CHECK_EQ(last.events[5].raw, 11 * 250);
    CHECK(!mux_row_finish(&s.st, s.counts, 99, &last));     /* nothing left */
}

/* The run ends 50 instructions into interval 1, within one set's turn:
 * that set ran all of the short row (measured, exact), the other set never
 * (its events unmeasured: no value, not zero counts taken as measured);
 * the software events are measured. */
TEST(a_set_with_no_turn_in_the_row_is_unmeasured)
{
    static struct sim s;
    struct log_interval last;
    const uint64_t runs[] = { 50 };
    CHECK(sim_short_last_row(&s, runs, 1, &last));
    CHECK_EQ(last.instructions, 50);
    unsigned int measured = 0, unmeasured = 0;
    for (unsigned int e = 0; e < EVENTS; e++) {
        uint64_t value = 1;
        enum mux_estimate how = mux_extrapolate(last.events[e].raw, last.instructions,
                                                last.events[e].running, &value);
        if (how == MUX_UNMEASURED) {
            CHECK(on_counter[e]);
            CHECK_EQ(last.events[e].raw, 0);
            CHECK_EQ(value, 0);
            unmeasured++;
        } else {
            CHECK_EQ(how, MUX_MEASURED);
            CHECK_EQ(value, rate[e] * 50);
            measured++;
        }
    }
    CHECK_EQ(unmeasured, 2);
    CHECK_EQ(measured, 4);
}
