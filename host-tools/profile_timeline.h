/* The samples of a profile in time order, for the writers that show when
 * things happened (`vertigo script`, `vertigo export --format perfetto`).
 *
 * The profile aggregates samples by their contents; with
 * profile_options.timeline it also keeps, for every sample occurrence, its
 * TSC and which aggregated sample it is, and the values of the software
 * counters and interval records the log carries. profile_finish then drops
 * the occurrences the filters removed and sorts the rest by TSC (records
 * of several CPUs arrive block by block, not in time order; equal TSCs
 * keep their arrival order). */
#ifndef HOST_TOOLS_PROFILE_TIMELINE_H
#define HOST_TOOLS_PROFILE_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "host-tools/interval_ids.h"
#include "host-tools/logdec.h"

/* One sample as it occurred. */
struct profile_occurrence {
    uint64_t tsc;
    uint64_t sample;             /* while decoding: the raw entry; after
                                    profile_finish: index into profile.samples */
    uint64_t order;              /* arrival, to keep equal TSCs stable */
};

/* A counter's value at a time: a software counter of a swcounters record
 * (at the record's TSC) or an event's extrapolated value in an interval
 * record (raw x enabled / running, pmu/mux/mux.h; an event that never ran
 * in the interval has none), at the interval's start as `vertigo timeline`
 * gives it. */
struct profile_counter_point {
    uint64_t tsc;
    uint64_t value;
    uint32_t domain, vcpu;
    uint32_t id;                 /* software counter id, or event id */
    bool interval;               /* an interval record's event */
    bool extrapolated;           /* ... not measured all along */
};

struct profile_timeline {
    struct profile_occurrence *occ;
    uint64_t occ_count, occ_cap;
    struct profile_counter_point *points;    /* in arrival order */
    uint64_t point_count, point_cap;
    struct interval_ids lists;  /* the event ids of each VCPU's interval rows */
};

/* A decoded sample at tsc that the profile keeps as raw entry `entry`. */
void timeline_add_sample(struct profile_timeline *t, uint64_t tsc, uint64_t entry);

/* The counter values of a swcounters or interval record (an interval
 * row's by the run-wide ids of its VCPU's last interval-events record,
 * which it notes; others are ignored). */
void timeline_add_counters(struct profile_timeline *t, const struct logdec_record *r);

/* Maps each occurrence's raw entry to its sample (to_sample[entry];
 * TIMELINE_DROPPED: filtered out, the occurrence goes) and sorts them by
 * TSC, then arrival. */
#define TIMELINE_DROPPED UINT64_MAX
void timeline_finish(struct profile_timeline *t, const uint64_t *to_sample);

void timeline_free(struct profile_timeline *t);

/* Nanoseconds since TSC 0 at tsc_hz ticks per second (0: unknown, then
 * one tick counts as a nanosecond). */
uint64_t timeline_ns(uint64_t tsc, uint64_t tsc_hz);

#endif
