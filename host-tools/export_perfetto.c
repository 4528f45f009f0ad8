/* vertigo export --format perfetto: Chrome's Trace Event format (the JSON
 * object form), which Perfetto's UI (ui.perfetto.dev) and chrome://tracing
 * open. Tracks: one process per domain ("NAME (domain D)"), one thread per
 * VCPU ("VCPU V") named by metadata events ("ph":"M"), numbered as every
 * time-ordered export numbers them (host-tools/trace_ids.h). Each sample is an
 * instant event ("ph":"i", thread scope) at its time on its VCPU's track,
 * named after its leaf function, with its event, period, mode and guest
 * process in args and its call chain as a stack frame ("sf") of the
 * "stackFrames" table (root first through "parent" links; functions
 * inlined at an address are frames of their own). Software counters and
 * interval counts in the log become counter events ("ph":"C"), one track
 * per counter and VCPU. Times ("ts") are microseconds, from the TSC at the
 * log's TSC frequency (a tick counted as a nanosecond when it gives none).
 * Strings go through json_put_string (text_quote.h), so that the file is
 * valid JSON whatever bytes the guest's names hold: valid UTF-8 as it is,
 * control characters escaped, invalid bytes as \ufffd. */
#include <inttypes.h>
#include <stdlib.h>

#include "host-tools/profile.h"
#include "host-tools/out_of_memory.h"
#include "host-tools/text_quote.h"
#include "host-tools/trace_ids.h"
#include "host-tools/vertigo.h"

#define NS_PER_MICRO 1000u

static void put_ts(FILE *out, uint64_t tsc, uint64_t tsc_hz)
{
    uint64_t ns = timeline_ns(tsc, tsc_hz);
    fprintf(out, "%" PRIu64 ".%03" PRIu64, ns / NS_PER_MICRO, ns % NS_PER_MICRO);
}

/* Separates the members of a JSON array or object. */
static void next_event(FILE *out, bool *first)
{
    fputs(*first ? "\n" : ",\n", out);
    *first = false;
}

/* ---- Tracks ------------------------------------------------------------ */

struct track {
    uint32_t domain, vcpu;
};

static int track_cmp(const void *a, const void *b)
{
    const struct track *x = a, *y = b;
    if (x->domain != y->domain)
        return x->domain < y->domain ? -1 : 1;
    return x->vcpu < y->vcpu ? -1 : x->vcpu > y->vcpu;
}

/* The distinct (domain, VCPU) of the samples and counters, sorted. */
static struct track *collect_tracks(const struct profile *p, uint64_t *count)
{
    const struct profile_timeline *t = &p->timeline;
    struct track *tr = malloc((p->sample_count + t->point_count + 1) * sizeof(*tr));
    if (!tr)
        vertigo_out_of_memory();
    uint64_t n = 0;
    for (uint64_t i = 0; i < p->sample_count; i++)
        tr[n++] = (struct track){ p->samples[i].domain, p->samples[i].vcpu };
    for (uint64_t i = 0; i < t->point_count; i++)
        tr[n++] = (struct track){ t->points[i].domain, t->points[i].vcpu };
    qsort(tr, n, sizeof(*tr), track_cmp);
    uint64_t kept = 0;
    for (uint64_t i = 0; i < n; i++)
        if (!kept || track_cmp(&tr[kept - 1], &tr[i]))
            tr[kept++] = tr[i];
    *count = kept;
    return tr;
}

/* A process per domain, a thread per VCPU: the names and numbers of
 * every time-ordered export (host-tools/trace_ids.h). */
static void put_track_names(FILE *out, const struct profile *p, const struct track *tr,
                            uint64_t n, bool *first)
{
    char name[TRACE_NAME_MAX];
    for (uint64_t i = 0; i < n; i++) {
        if (!i || tr[i].domain != tr[i - 1].domain) {
            next_event(out, first);
            trace_process_name(p->domains, tr[i].domain, name);
            fprintf(out, "{\"name\":\"process_name\",\"ph\":\"M\",\"ts\":0,\"pid\":%u,\"tid\":%u,"
                         "\"args\":{\"name\":", trace_pid(tr[i].domain), trace_tid(tr[i].domain, 0));
            json_put_string(out, name);
            fputs("}}", out);
        }
        next_event(out, first);
        trace_thread_name(tr[i].vcpu, name);
        fprintf(out, "{\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":0,\"pid\":%u,\"tid\":%u,"
                     "\"args\":{\"name\":\"%s\"}}", trace_pid(tr[i].domain),
                trace_tid(tr[i].domain, tr[i].vcpu), name);
    }
}

/* ---- Stack frames -------------------------------------------------------- */

/* The frames of sample s from the root: each address's function, then
 * the functions inlined there from the outermost in. */
static uint32_t frame_parts(const struct profile *p, const struct profile_sample *s)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->depth; i++)
        n += 1 + sym_frame(p->sym, s->frames[i])->inline_count;
    return n;
}

static void put_frame_node(FILE *out, const struct profile *p, uint32_t function, uint32_t image,
                           uint64_t id, uint64_t parent, bool *first)
{
    next_event(out, first);
    fprintf(out, "\"%" PRIu64 "\":{\"name\":", id);
    json_put_string(out, sym_function(p->sym, function)->name);
    fputs(",\"category\":", out);
    json_put_string(out, sym_image(p->sym, image)->name);
    if (parent)
        fprintf(out, ",\"parent\":\"%" PRIu64 "\"", parent);
    fputc('}', out);
}

/* Writes sample s's chain as nodes next_id, next_id + 1, ... (ids from
 * 1); returns the leaf's id, 0 when s has no frame. */
static uint64_t put_sample_frames(FILE *out, const struct profile *p, const struct profile_sample *s,
                                  uint64_t next_id, bool *first)
{
    uint64_t parent = 0;
    for (uint32_t i = s->depth; i-- > 0;) {
        const struct sym_frame *f = sym_frame(p->sym, s->frames[i]);
        put_frame_node(out, p, f->function, f->image, next_id, parent, first);
        parent = next_id++;
        const struct sym_inline *in = sym_frame_inlines(p->sym, f);
        for (uint32_t k = f->inline_count; k-- > 0;) {
            put_frame_node(out, p, in[k].function, f->image, next_id, parent, first);
            parent = next_id++;
        }
    }
    return parent;
}

/* ---- Events -------------------------------------------------------------- */

static void put_sample(FILE *out, const struct profile *p, const struct profile_occurrence *o,
                       uint64_t leaf_id)
{
    const struct profile_sample *s = &p->samples[o->sample];
    const struct sym_frame *leaf = sym_frame(p->sym, s->frames[0]);
    fputs("{\"name\":", out);
    json_put_string(out, sym_function(p->sym, leaf->function)->name);
    fputs(",\"cat\":", out);
    json_put_string(out, p->events[s->event].name);
    fputs(",\"ph\":\"i\",\"s\":\"t\",\"ts\":", out);
    put_ts(out, o->tsc, p->tsc_hz);
    fprintf(out, ",\"pid\":%u,\"tid\":%u", trace_pid(s->domain), trace_tid(s->domain, s->vcpu));
    if (leaf_id)
        fprintf(out, ",\"sf\":\"%" PRIu64 "\"", leaf_id);
    fprintf(out, ",\"args\":{\"period\":%" PRIu64 ",\"mode\":\"%s\",\"pid\":%u,\"comm\":",
            s->period, profile_mode_name(s->mode), s->process.pid);
    json_put_string(out, s->process.comm);
    fputs("}}", out);
}

/* A counter's name: an interval's event by the name the log described it
 * with (a counting session's events have no samples, so the profile's
 * events need not hold it), else its id. */
static void put_counter_name(FILE *out, const struct profile *p, const struct profile_counter_point *c)
{
    char name[PROFILE_EVENT_NAME_MAX + 32];
    const char *event = c->interval ? profile_event_name(p, c->id) : NULL;
    if (event)
        snprintf(name, sizeof(name), "VCPU %u %s", c->vcpu, event);
    else
        snprintf(name, sizeof(name), "VCPU %u %s%u", c->vcpu, c->interval ? "event" : "swcounter", c->id);
    json_put_string(out, name);
}

static void put_counter(FILE *out, const struct profile *p, const struct profile_counter_point *c)
{
    fputs("{\"name\":", out);
    put_counter_name(out, p, c);
    /* an interval's value says in its category how it was obtained */
    if (c->interval)
        fprintf(out, ",\"cat\":\"%s\"", c->extrapolated ? "extrapolated" : "measured");
    fputs(",\"ph\":\"C\",\"ts\":", out);
    put_ts(out, c->tsc, p->tsc_hz);
    fprintf(out, ",\"pid\":%u,\"tid\":%u,\"args\":{\"value\":%" PRIu64 "}}", trace_pid(c->domain),
            trace_tid(c->domain, c->vcpu),
            c->value);
}

bool export_perfetto(FILE *out, const struct profile *p)
{
    const struct profile_timeline *t = &p->timeline;
    uint64_t tracks, *leaf = malloc((p->sample_count + 1) * sizeof(*leaf));
    struct track *tr = collect_tracks(p, &tracks);
    if (!leaf)
        vertigo_out_of_memory();
    bool first = true;
    fputs("{\"displayTimeUnit\":\"ns\",\"stackFrames\":{", out);
    for (uint64_t i = 0, next = 1; i < p->sample_count; i++) {
        leaf[i] = put_sample_frames(out, p, &p->samples[i], next, &first);
        next += frame_parts(p, &p->samples[i]);
    }
    fputs("},\"traceEvents\":[", out);
    first = true;
    put_track_names(out, p, tr, tracks, &first);
    for (uint64_t i = 0; i < t->occ_count; i++) {
        next_event(out, &first);
        put_sample(out, p, &t->occ[i], leaf[t->occ[i].sample]);
    }
    for (uint64_t i = 0; i < t->point_count; i++) {
        next_event(out, &first);
        put_counter(out, p, &t->points[i]);
    }
    fputs("\n]}\n", out);
    free(leaf);
    free(tr);
    return !ferror(out);
}
