/* An interval multiplexing session's rows (see pmu/mux_row.h). */
#include "pmu/mux_row.h"

enum mux_err mux_row_configure(struct mux_row_config *cfg, const bool *on_counter,
                               const struct mux_event_need *needs, unsigned int n,
                               const struct mux_counters *counters, uint64_t interval,
                               uint64_t sub, unsigned int *bad)
{
    struct mux_event_need counted[MUX_ROW_EVENTS_MAX];
    unsigned int index[MUX_ROW_EVENTS_MAX], k = 0;
    *cfg = (struct mux_row_config){ .count = n, .interval = interval, .sub = sub };
    if (n == 0)
        return MUX_ERR_NO_EVENTS;
    if (n > MUX_ROW_EVENTS_MAX)
        return MUX_ERR_TOO_MANY_EVENTS;
    for (unsigned int e = 0; e < n; e++) {
        cfg->set_of[e] = MUX_ROW_ALWAYS;
        if (on_counter[e]) {
            index[k] = e;
            counted[k++] = needs[e];
        }
    }
    enum mux_err err = MUX_OK;
    if (k > 0) {
        unsigned int bad_k = 0;
        err = mux_plan_sets(counted, k, counters, &cfg->plan, &bad_k);
        if (err == MUX_ERR_NO_COUNTER)
            *bad = index[bad_k];
    }
    if (err != MUX_OK)
        return err;
    for (unsigned int j = 0; j < k; j++)
        cfg->set_of[index[j]] = cfg->plan.set_of[j];
    return mux_check_lengths(interval, sub, cfg->plan.set_count ? cfg->plan.set_count : 1);
}

static uint64_t subs_of(const struct mux_row_config *cfg)
{
    return cfg->interval / cfg->sub;
}

/* The turn sub_index of the current interval starts now, at `done`. */
static void start_turn(struct mux_row_state *st, const uint64_t *counts)
{
    const struct mux_row_config *cfg = st->cfg;
    uint64_t subs = subs_of(cfg);
    st->active = mux_set_at(&cfg->plan, st->number, st->sub_index, subs);
    st->turn_start = st->done;
    st->turn_end = st->sub_index + 1 == subs ? cfg->interval : (st->sub_index + 1) * cfg->sub;
    for (unsigned int e = 0; e < cfg->count; e++)
        if (cfg->set_of[e] == st->active)
            st->mark[e] = counts[e];
}

static void start_interval(struct mux_row_state *st, const uint64_t *counts, uint64_t tsc)
{
    const struct mux_row_config *cfg = st->cfg;
    st->sub_index = 0;
    st->done = 0;
    st->tsc_start = tsc;
    for (unsigned int e = 0; e < cfg->count; e++) {
        st->raw[e] = st->running[e] = 0;
        if (cfg->set_of[e] == MUX_ROW_ALWAYS)
            st->mark[e] = counts[e];
    }
    start_turn(st, counts);
}

void mux_row_begin(struct mux_row_state *st, const struct mux_row_config *cfg,
                   const uint64_t *counts, uint64_t tsc)
{
    *st = (struct mux_row_state){ .cfg = cfg };
    start_interval(st, counts, tsc);
}

static void fill_row(struct mux_row_state *st, const uint64_t *counts, uint64_t tsc,
                     struct log_interval *row)
{
    const struct mux_row_config *cfg = st->cfg;
    row->number = st->number;
    row->instructions = st->done;
    row->tsc_span = tsc - st->tsc_start;
    row->count = cfg->count;
    for (unsigned int e = 0; e < cfg->count; e++) {
        bool always = cfg->set_of[e] == MUX_ROW_ALWAYS;
        row->events[e].raw = always ? counts[e] - st->mark[e] : st->raw[e];
        row->events[e].running = always ? st->done : st->running[e];
    }
}

/* The active set's events take the turn's counts and instructions. */
static void close_turn(struct mux_row_state *st, const uint64_t *counts)
{
    const struct mux_row_config *cfg = st->cfg;
    for (unsigned int e = 0; e < cfg->count; e++) {
        if (cfg->set_of[e] != st->active)
            continue;
        st->raw[e] += counts[e] - st->mark[e];
        st->running[e] += st->done - st->turn_start;
    }
}

bool mux_row_turn(struct mux_row_state *st, const uint64_t *counts, uint64_t tsc,
                  struct log_interval *row)
{
    const struct mux_row_config *cfg = st->cfg;
    if (st->done > st->turn_end && st->done - st->turn_end > st->skid_max)
        st->skid_max = st->done - st->turn_end;
    close_turn(st, counts);
    if (++st->sub_index < subs_of(cfg)) {
        start_turn(st, counts);
        return false;
    }
    fill_row(st, counts, tsc, row);
    st->number++;
    start_interval(st, counts, tsc);
    return true;
}

bool mux_row_finish(struct mux_row_state *st, const uint64_t *counts, uint64_t tsc,
                    struct log_interval *row)
{
    if (st->done == 0)
        return false;
    close_turn(st, counts);
    fill_row(st, counts, tsc, row);
    st->done = 0;
    return true;
}

bool mux_row_needs(const struct mux_row_state *st, unsigned int e)
{
    const struct mux_row_config *cfg = st->cfg;
    uint64_t subs = subs_of(cfg);
    unsigned int set = cfg->set_of[e];
    if (set == MUX_ROW_ALWAYS)
        return st->sub_index + 1 >= subs;       /* its interval ends with this turn */
    if (set == st->active)
        return true;
    bool last = st->sub_index + 1 >= subs;
    return set == mux_set_at(&cfg->plan, last ? st->number + 1 : st->number,
                             last ? 0 : st->sub_index + 1, subs);
}
