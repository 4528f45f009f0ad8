/* An interval multiplexing session's rows (see pmu/mux/mux_row.h). */
#include "pmu/mux/mux_row.h"

/* The lists of a checked configuration: each set's events in id order
 * (grouped by a counting sort), and the events counted all along. */
static void list_members(struct mux_row_config *cfg)
{
    unsigned int size[MUX_ROW_EVENTS_MAX] = { 0 }, at[MUX_ROW_EVENTS_MAX];
    cfg->sets = cfg->plan.set_count ? cfg->plan.set_count : 1;
    cfg->subs = cfg->interval / cfg->sub;
    for (unsigned int e = 0; e < cfg->count; e++) {
        if (cfg->set_of[e] == MUX_ROW_ALWAYS)
            cfg->always[cfg->always_count++] = (uint8_t)e;
        else
            size[cfg->set_of[e]]++;
    }
    cfg->first[0] = 0;
    for (unsigned int s = 0; s < cfg->sets; s++) {
        at[s] = cfg->first[s];
        cfg->first[s + 1] = (uint8_t)(cfg->first[s] + size[s]);
    }
    for (unsigned int e = 0; e < cfg->count; e++)
        if (cfg->set_of[e] != MUX_ROW_ALWAYS)
            cfg->members[at[cfg->set_of[e]]++] = (uint8_t)e;
}

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
    err = mux_check_lengths(interval, sub, cfg->plan.set_count ? cfg->plan.set_count : 1);
    if (err == MUX_OK)
        list_members(cfg);
    return err;
}

/* The turn sub_index of the current interval starts now, at `done`, with
 * set st->next: the turns go round the sets across intervals, as
 * mux_set_at numbers them, one step per turn. */
static void start_turn(struct mux_row_state *st, const uint64_t *counts)
{
    const struct mux_row_config *cfg = st->cfg;
    st->active = st->next;
    st->next = st->active + 1 == cfg->sets ? 0 : st->active + 1;
    st->turn_start = st->done;
    st->turn_end = st->sub_index + 1 == cfg->subs ? cfg->interval
                                                  : (st->sub_index + 1) * cfg->sub;
    for (unsigned int i = cfg->first[st->active]; i < cfg->first[st->active + 1]; i++)
        st->mark[cfg->members[i]] = counts[cfg->members[i]];
}

static void start_interval(struct mux_row_state *st, const uint64_t *counts, uint64_t tsc)
{
    const struct mux_row_config *cfg = st->cfg;
    st->sub_index = 0;
    st->done = 0;
    st->tsc_start = tsc;
    for (unsigned int e = 0; e < cfg->count; e++)
        st->raw[e] = st->running[e] = 0;
    for (unsigned int i = 0; i < cfg->always_count; i++)
        st->mark[cfg->always[i]] = counts[cfg->always[i]];
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
    uint64_t ran = st->done - st->turn_start;
    for (unsigned int i = cfg->first[st->active]; i < cfg->first[st->active + 1]; i++) {
        unsigned int e = cfg->members[i];
        st->raw[e] += counts[e] - st->mark[e];
        st->running[e] += ran;
    }
}

bool mux_row_turn(struct mux_row_state *st, const uint64_t *counts, uint64_t tsc,
                  struct log_interval *row)
{
    const struct mux_row_config *cfg = st->cfg;
    if (st->done > st->turn_end && st->done - st->turn_end > st->skid_max)
        st->skid_max = st->done - st->turn_end;
    close_turn(st, counts);
    if (++st->sub_index < cfg->subs) {
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
    unsigned int set = cfg->set_of[e];
    if (set == MUX_ROW_ALWAYS)
        return st->sub_index + 1 >= cfg->subs;  /* its interval ends with this turn */
    return set == st->active || set == st->next;
}

unsigned int mux_row_reads(const struct mux_row_state *st, uint8_t *ids)
{
    const struct mux_row_config *cfg = st->cfg;
    unsigned int n = 0;
    for (unsigned int i = cfg->first[st->active]; i < cfg->first[st->active + 1]; i++)
        ids[n++] = cfg->members[i];
    if (st->next != st->active)
        for (unsigned int i = cfg->first[st->next]; i < cfg->first[st->next + 1]; i++)
            ids[n++] = cfg->members[i];
    if (st->sub_index + 1 >= cfg->subs)
        for (unsigned int i = 0; i < cfg->always_count; i++)
            ids[n++] = cfg->always[i];
    return n;
}
