/* One VCPU's interval multiplexing session: the rows it owes the log.
 *
 * The session counts retired instructions. Every interval of N of them is
 * cut into sub-intervals of S (the last one takes the remainder, N mod S),
 * and in each sub-interval one event set of the schedule (pmu/mux/mux.h) is
 * "on the counters": only its events accumulate a raw count and running
 * instructions during that turn. Software events (exits, interrupts...)
 * need no counter and count the whole interval. At the end of an interval
 * the row holds, per event, the raw count and the instructions it ran;
 * the interval's instructions are every event's "enabled".
 *
 * The caller owns the counts: at every turn boundary it passes the current
 * count of each event (its exact, never-rotated value; a turn's raw count
 * is the difference across the turn). It must make the guest stop exactly
 * at a boundary (mux_row_left says how far it is); a run that passes one
 * (skid) ends the turn late, and the interval's instructions say so.
 * Portable. */
#ifndef PMU_MUX_ROW_H
#define PMU_MUX_ROW_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/mux/mux.h"
#include "vertigo/log_format.h"

#define MUX_ROW_EVENTS_MAX LOG_INTERVAL_EVENTS_MAX
#define MUX_ROW_ALWAYS 0xffu        /* set_of[] of an event with no counter */

/* What every VCPU's session runs with (the run's configuration). A turn's
 * end touches only the events it concerns, through the lists below, so
 * its cost does not grow with the session's other events. */
struct mux_row_config {
    unsigned int count;             /* events, ids 0..count-1 */
    uint8_t set_of[MUX_ROW_EVENTS_MAX]; /* each event's set, or MUX_ROW_ALWAYS */
    struct mux_plan plan;           /* the counter events' sets */
    uint64_t interval;              /* N: retired instructions per interval */
    uint64_t sub;                   /* S: retired instructions per turn */
    uint64_t subs;                  /* turns per interval: N / S */
    unsigned int sets;              /* plan.set_count, at least 1 */
    /* the events of set s: members[first[s] .. first[s + 1] - 1] */
    uint8_t first[MUX_ROW_EVENTS_MAX + 1];
    uint8_t members[MUX_ROW_EVENTS_MAX];
    unsigned int always_count;      /* events counted all along ... */
    uint8_t always[MUX_ROW_EVENTS_MAX]; /* ... these */
};

struct mux_row_state {
    const struct mux_row_config *cfg;
    uint64_t number;                /* the interval being counted */
    uint64_t sub_index;             /* its turn, 0 .. N/S - 1 */
    uint64_t done;                  /* instructions retired in the interval */
    uint64_t turn_start;            /* `done` when the turn began */
    uint64_t turn_end;              /* `done` at which the turn ends */
    unsigned int active;            /* the set on the counters */
    unsigned int next;              /* the set of the following turn */
    uint64_t tsc_start;             /* TSC at the interval's start */
    uint64_t mark[MUX_ROW_EVENTS_MAX];  /* count when the event's turn (or,
                                         * always counted, the interval) began */
    uint64_t raw[MUX_ROW_EVENTS_MAX];
    uint64_t running[MUX_ROW_EVENTS_MAX];
    uint64_t skid_max;              /* most instructions a turn ran late */
};

/* Builds cfg for n events (on_counter[e]: event e needs a counter; the
 * others are always counted) over counters, with lengths N and S. Returns
 * MUX_OK or the first error (*bad: the event without a counter). */
enum mux_err mux_row_configure(struct mux_row_config *cfg, const bool *on_counter,
                               const struct mux_event_need *needs, unsigned int n,
                               const struct mux_counters *counters, uint64_t interval,
                               uint64_t sub, unsigned int *bad);

/* Starts interval 0 at tsc with the events' current counts. */
void mux_row_begin(struct mux_row_state *st, const struct mux_row_config *cfg,
                   const uint64_t *counts, uint64_t tsc);

/* Instructions left before the current turn ends (>= 1). */
static inline uint64_t mux_row_left(const struct mux_row_state *st)
{
    return st->done < st->turn_end ? st->turn_end - st->done : 1;
}

/* True if the current turn has ended: call mux_row_turn (again, after a
 * run that passed several boundaries) before the guest runs on. */
static inline bool mux_row_due(const struct mux_row_state *st)
{
    return st->done >= st->turn_end;
}

/* n more instructions retired; mux_row_due after it. */
static inline bool mux_row_retire(struct mux_row_state *st, uint64_t n)
{
    st->done += n;
    return mux_row_due(st);
}

/* Ends the turn with the events' current counts at tsc: the active set's
 * events take their share, the next set goes on. At the end of an
 * interval, fills *row (domain and VCPU left to the caller), starts the
 * next interval and returns true. */
bool mux_row_turn(struct mux_row_state *st, const uint64_t *counts, uint64_t tsc,
                  struct log_interval *row);

/* True if the next mux_row_turn reads counts[e]: the events of the set
 * that leaves the counters and of the one that takes them, and, when the
 * interval ends, the software events. The others' counts may be left
 * unread (each read costs the exit path). */
bool mux_row_needs(const struct mux_row_state *st, unsigned int e);

/* The same events as a list: fills ids (room for MUX_ROW_EVENTS_MAX) and
 * returns how many, each once. */
unsigned int mux_row_reads(const struct mux_row_state *st, uint8_t *ids);

/* The run ends: fills *row with the unfinished interval (fewer than N
 * instructions) and returns true, unless it has none. */
bool mux_row_finish(struct mux_row_state *st, const uint64_t *counts, uint64_t tsc,
                    struct log_interval *row);

#endif
