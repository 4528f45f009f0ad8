/* Interval multiplexing: more events than counters, measured in turns.
 *
 * The events of a session are grouped into sets that fit the counters at
 * once (mux_plan_sets); within every interval of N retired instructions
 * the sets take turns round-robin, one sub-interval of S instructions each
 * (mux_set_at); for each interval an event has a raw count, the
 * instructions it was on a counter ("running") and the interval's
 * instructions ("enabled"), and its extrapolated value is raw x enabled /
 * running, as perf scales multiplexed counts (mux_extrapolate). Portable:
 * the VM-exit wiring feeds it counts and runs the rotation. */
#ifndef PMU_MUX_H
#define PMU_MUX_H

#include <stdbool.h>
#include <stdint.h>

#define MUX_EVENTS_MAX 64u

/* The counters a set may use at once. */
struct mux_counters {
    unsigned int gp;            /* general-purpose counters */
    uint32_t fixed_mask;        /* bit j: fixed counter j exists */
};

/* What an event needs: the fixed counter that counts it (-1: none), and
 * whether a general-purpose counter can. */
struct mux_event_need {
    int8_t fixed_index;
    bool gp_ok;
};

/* Where each event goes: its set and its counter in that set. */
struct mux_plan {
    unsigned int event_count;
    unsigned int set_count;
    uint8_t set_of[MUX_EVENTS_MAX];
    bool on_fixed[MUX_EVENTS_MAX];      /* fixed counter fixed_index, else ... */
    uint8_t gp_index[MUX_EVENTS_MAX];   /* ... this general-purpose counter */
};

enum mux_err {
    MUX_OK,
    MUX_ERR_NO_EVENTS,          /* an empty list */
    MUX_ERR_TOO_MANY_EVENTS,    /* more than MUX_EVENTS_MAX */
    MUX_ERR_NO_COUNTER,         /* an event no counter of this PMU can count */
    MUX_ERR_INTERVAL_ZERO,      /* N = 0 */
    MUX_ERR_SUB_ZERO,           /* S = 0 */
    MUX_ERR_SUB_LONGER,         /* S > N */
    MUX_ERR_TOO_FEW_TURNS,      /* N / S < sets: some set would miss an interval */
};

/* Groups the n events into sets, first fit in list order: an event takes
 * its fixed counter when the set has it free, else a free general-purpose
 * counter if one can count it. *bad: the event of MUX_ERR_NO_COUNTER. */
enum mux_err mux_plan_sets(const struct mux_event_need *events, unsigned int n,
                           const struct mux_counters *counters, struct mux_plan *out,
                           unsigned int *bad);

/* Checks interval length N and sub-interval length S for set_count sets. */
enum mux_err mux_check_lengths(uint64_t interval, uint64_t sub, unsigned int set_count);

/* The set on the counters during sub-interval sub of interval number
 * interval, with subs sub-intervals per interval: the turns continue from
 * one interval into the next, so every set gets the same share over time
 * even when subs is not a multiple of the number of sets. */
unsigned int mux_set_at(const struct mux_plan *plan, uint64_t interval, uint64_t sub,
                        uint64_t subs);

/* How an interval's value of an event was obtained. */
enum mux_estimate {
    MUX_MEASURED,               /* on a counter the whole interval: raw */
    MUX_SCALED,                 /* part of it: raw x enabled / running */
    MUX_UNMEASURED,             /* never on a counter: no value (0) */
};

/* The extrapolated value of raw events counted during running of enabled
 * instructions, rounded to nearest; exact for any 64-bit inputs (128-bit
 * arithmetic), saturating at UINT64_MAX. */
enum mux_estimate mux_extrapolate(uint64_t raw, uint64_t enabled, uint64_t running,
                                  uint64_t *value);

const char *mux_err_text(enum mux_err err);

#endif
