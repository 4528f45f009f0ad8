/* vertigo export --format csv: one row per (event, domain, VCPU, mode,
 * process, image, symbol) with its self samples (the sampled RIP's
 * function), their period, the events they stand for and their share of
 * the event's samples:
 *   event,domain,domain_name,vcpu,mode,pid,comm,image,symbol,source_file,
 *   source_line,samples,period_events,events,percent
 * (domain_name: dom.N.name= of Vertigo's command line, else domN).
 * The header names the units where a name alone would not (period_events:
 * events per sample). A numeric column is never empty, so that a typed
 * import (sqlite3, docs/user-guide.md) reads it as a number: an unknown
 * source line is 0, a period 0 says the row's samples had several.
 * RFC 4180 quoting; rows sorted by event, then descending samples. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "host-tools/profile.h"
#include "host-tools/out_of_memory.h"
#include "host-tools/text_quote.h"
#include "host-tools/vertigo.h"

#define PERCENT_SCALE 100.0

struct csv_row {
    uint32_t event, domain, vcpu, function, pid;
    const char *comm;            /* interned: compared as a pointer */
    uint8_t mode;
    uint64_t count, period, events;
};

static int key_cmp(const struct csv_row *x, const struct csv_row *y)
{
    if (x->event != y->event)
        return x->event < y->event ? -1 : 1;
    if (x->function != y->function)
        return x->function < y->function ? -1 : 1;
    if (x->domain != y->domain)
        return x->domain < y->domain ? -1 : 1;
    if (x->vcpu != y->vcpu)
        return x->vcpu < y->vcpu ? -1 : 1;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->comm != y->comm)
        return strcmp(x->comm, y->comm);
    return (int)x->mode - (int)y->mode;
}

static int row_key_cmp(const void *a, const void *b) { return key_cmp(a, b); }

static int row_count_cmp(const void *a, const void *b)
{
    const struct csv_row *x = a, *y = b;
    if (x->event != y->event)
        return x->event < y->event ? -1 : 1;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return key_cmp(x, y);
}

static void put_row(FILE *out, const struct profile *p, const struct csv_row *r)
{
    const struct sym_function *fn = sym_function(p->sym, r->function);
    char name[DOMAIN_NAME_MAX];
    csv_put_field(out, p->events[r->event].name, ',');
    fprintf(out, ",%u,", r->domain);
    csv_put_field(out, profile_domain_name(p, r->domain, name), ',');
    fprintf(out, ",%u,%s,%u,", r->vcpu, profile_mode_name(r->mode), r->pid);
    csv_put_field(out, r->comm, ',');
    fputc(',', out);
    csv_put_field(out, sym_image(p->sym, fn->image)->name, ',');
    fputc(',', out);
    csv_put_field(out, fn->name, ',');
    fputc(',', out);
    csv_put_field(out, fn->file ? fn->file : "", ',');
    uint64_t total = p->events[r->event].total;
    fprintf(out, ",%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.2f\n", fn->line, r->count, r->period,
            r->events, total ? PERCENT_SCALE * (double)r->count / (double)total : 0.0);
}

bool export_csv(FILE *out, const struct profile *p)
{
    struct csv_row *rows = calloc(p->sample_count + 1, sizeof(*rows));
    if (!rows)
        vertigo_out_of_memory();
    for (uint64_t i = 0; i < p->sample_count; i++) {
        const struct profile_sample *s = &p->samples[i];
        rows[i] = (struct csv_row){ s->event, s->domain, s->vcpu,
                                    sym_frame(p->sym, s->frames[0])->function, s->process.pid,
                                    s->process.comm, s->mode, s->count, s->period,
                                    s->count * s->period };
    }
    qsort(rows, p->sample_count, sizeof(*rows), row_key_cmp);
    uint64_t n = 0;
    for (uint64_t i = 0; i < p->sample_count; i++) {
        if (n && !key_cmp(&rows[n - 1], &rows[i])) {
            struct csv_row *r = &rows[n - 1];
            r->period = r->period == rows[i].period ? r->period : 0;    /* several */
            r->count += rows[i].count;
            r->events += rows[i].events;
        } else
            rows[n++] = rows[i];
    }
    qsort(rows, n, sizeof(*rows), row_count_cmp);
    fprintf(out, "event,domain,domain_name,vcpu,mode,pid,comm,image,symbol,source_file,"
                 "source_line,samples,period_events,events,percent\n");
    for (uint64_t i = 0; i < n; i++)
        put_row(out, p, &rows[i]);
    free(rows);
    return !ferror(out);
}
