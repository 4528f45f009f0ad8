/* Sample occurrences and counter values in time order (see
 * profile_timeline.h). */
#include "host-tools/profile_timeline.h"

#include <stdio.h>
#include <stdlib.h>

#include "host-tools/vertigo.h"
#include "pmu/mux/mux.h"

#define GROW_MIN 1024u
#define NS_PER_SECOND 1000000000u

static void *grow(void *p, uint64_t *cap, uint64_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    uint64_t n = *cap ? *cap * 2 : GROW_MIN;
    while (n < need)
        n *= 2;
    p = realloc(p, n * elem);
    if (!p) {
        fprintf(stderr, "vertigo: out of memory\n");
        exit(VERTIGO_EXIT_USAGE);
    }
    *cap = n;
    return p;
}

void timeline_add_sample(struct profile_timeline *t, uint64_t tsc, uint64_t entry)
{
    t->occ = grow(t->occ, &t->occ_cap, t->occ_count + 1, sizeof(*t->occ));
    t->occ[t->occ_count] = (struct profile_occurrence){ tsc, entry, t->occ_count };
    t->occ_count++;
}

static void add_point(struct profile_timeline *t, const struct profile_counter_point *pt)
{
    t->points = grow(t->points, &t->point_cap, t->point_count + 1, sizeof(*t->points));
    t->points[t->point_count++] = *pt;
}

void timeline_add_counters(struct profile_timeline *t, const struct logdec_record *r)
{
    if (r->type == LOG_REC_SWCOUNTERS) {
        const struct log_swcounters *sw = &r->u.swcounters;
        for (uint32_t i = 0; i < sw->count; i++)     /* the decoder checked count */
            add_point(t, &(struct profile_counter_point){
                r->tsc, sw->counters[i].value, sw->domain, sw->vcpu, sw->counters[i].id, false, false });
    } else if (r->type == LOG_REC_INTERVAL) {
        const struct log_interval *iv = &r->u.interval;
        /* at the interval's start, where `vertigo timeline` puts it: a
         * counter holds its value from its time on (a row whose span
         * passes its TSC, which only a damaged log holds, starts at 0) */
        uint64_t start = r->tsc >= iv->tsc_span ? r->tsc - iv->tsc_span : 0;
        uint32_t list = interval_ids_current(&t->lists, iv->domain, iv->vcpu);
        for (uint32_t i = 0; i < iv->count; i++) {
            /* the event's extrapolated value; none if it never ran */
            uint64_t value;
            enum mux_estimate how = mux_extrapolate(iv->events[i].raw, iv->instructions,
                                                    iv->events[i].running, &value);
            if (how != MUX_UNMEASURED)
                add_point(t, &(struct profile_counter_point){
                    start, value, iv->domain, iv->vcpu, interval_ids_of(&t->lists, list, i),
                    true, how == MUX_SCALED });
        }
    } else if (r->type == LOG_REC_INTERVAL_EVENTS) {
        interval_ids_note(&t->lists, &r->u.interval_events);
    }
}

static int occ_cmp(const void *a, const void *b)
{
    const struct profile_occurrence *x = a, *y = b;
    if (x->tsc != y->tsc)
        return x->tsc < y->tsc ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int point_cmp(const void *a, const void *b)
{
    const struct profile_counter_point *x = a, *y = b;
    return x->tsc < y->tsc ? -1 : x->tsc > y->tsc;
}

void timeline_finish(struct profile_timeline *t, const uint64_t *to_sample)
{
    uint64_t kept = 0;
    for (uint64_t i = 0; i < t->occ_count; i++) {
        uint64_t s = to_sample[t->occ[i].sample];
        if (s == TIMELINE_DROPPED)
            continue;
        t->occ[kept] = t->occ[i];
        t->occ[kept++].sample = s;
    }
    t->occ_count = kept;
    if (kept)
        qsort(t->occ, kept, sizeof(*t->occ), occ_cmp);
    if (t->point_count)
        qsort(t->points, t->point_count, sizeof(*t->points), point_cmp);
}

void timeline_free(struct profile_timeline *t)
{
    free(t->occ);
    free(t->points);
    interval_ids_free(&t->lists);
    *t = (struct profile_timeline){ 0 };
}

uint64_t timeline_ns(uint64_t tsc, uint64_t tsc_hz)
{
    if (!tsc_hz)
        return tsc;
    unsigned __int128 ns = (unsigned __int128)tsc * NS_PER_SECOND / tsc_hz;
    return ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}
