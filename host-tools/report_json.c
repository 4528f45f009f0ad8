/* `vertigo report --json` (see report_json.h). */
#include "host-tools/report_json.h"

#include <inttypes.h>
#include <stdlib.h>

#include "host-tools/text_quote.h"
#include "host-tools/vertigo.h"

#define PERCENT_SCALE 100.0

static double percent(uint64_t part, uint64_t whole)
{
    return whole ? PERCENT_SCALE * (double)part / (double)whole : 0.0;
}

static void put_events(FILE *out, const struct profile *p)
{
    fputs("\"events\":[", out);
    for (uint32_t e = 0; e < p->event_count; e++) {
        const struct profile_event *ev = &p->events[e];
        fprintf(out, "%s{\"id\":%u,\"name\":", e ? "," : "", ev->id);
        json_put_string(out, ev->name);
        fprintf(out, ",\"samples\":%" PRIu64 ",\"event_count\":%" PRIu64 ",\"period\":", ev->total,
                ev->events);
        if (ev->period_known && ev->period)
            fprintf(out, "%" PRIu64 "}", ev->period);
        else
            fputs("null}", out);
    }
    fputs("],", out);
}

static void put_modes(FILE *out, const struct profile *p)
{
    uint64_t modes[LOG_MODE_COUNT] = { 0 };
    for (uint64_t i = 0; i < p->sample_count; i++)
        modes[p->samples[i].mode] += p->samples[i].count;
    fputs("\"modes\":{", out);
    for (uint8_t m = 0; m < LOG_MODE_COUNT; m++)
        fprintf(out, "%s\"%s\":%" PRIu64, m ? "," : "", profile_mode_name(m), modes[m]);
    fputs("},", out);
}

static void put_domains(FILE *out, const struct profile *p)
{
    uint64_t *per = calloc(DOMAIN_IDS_MAX, sizeof(*per));
    if (!per) {
        fprintf(stderr, "vertigo: out of memory\n");
        exit(VERTIGO_EXIT_USAGE);
    }
    for (uint64_t i = 0; i < p->sample_count; i++)
        if (p->samples[i].domain < DOMAIN_IDS_MAX)
            per[p->samples[i].domain] += p->samples[i].count;
    fputs("\"domains\":[", out);
    bool first = true;
    char name[DOMAIN_NAME_MAX];
    for (uint32_t d = 0; d < DOMAIN_IDS_MAX; d++) {
        if (!per[d])
            continue;
        fprintf(out, "%s{\"id\":%u,\"name\":", first ? "" : ",", d);
        json_put_string(out, profile_domain_name(p, d, name));
        fprintf(out, ",\"samples\":%" PRIu64 ",\"passive\":%s}", per[d],
                domain_passive(p->domains, d) ? "true" : "false");
        first = false;
    }
    fputs("],", out);
    free(per);
}

static void put_loss(FILE *out, const struct profile_loss *l)
{
    char dropped[LOGDEC_COUNT_TEXT], records[LOGDEC_COUNT_TEXT], blocks[LOGDEC_COUNT_TEXT];
    const struct sym_problems *sp = &l->symbols;
    fprintf(out, "\"lost\":{\"ring_dropped\":%s,\"records\":%s,\"blocks\":%s,"
            "\"symbol_sets\":%" PRIu64 ",\"symbol_lines\":%" PRIu64 "},",
            logdec_count_text(l->ring_dropped, dropped), logdec_count_text(l->records_lost, records),
            logdec_count_text(l->blocks_lost, blocks),
            sp->broken_sets + sp->restarted_sets + sp->abandoned_sets + sp->unfinished_sets,
            sp->bad_lines);
}

static const char *const key_names[REPORT_KEY_COUNT] = { "comm", "pid", "dso", "sym", "domain",
                                                             "vcpu" };

static void put_sort(FILE *out, const struct report_options *o)
{
    enum report_key keys[REPORT_KEY_COUNT];
    unsigned int n = report_keys(o, keys);
    fputs("\"sort\":[", out);
    for (unsigned int i = 0; i < n; i++)
        fprintf(out, "%s\"%s\"", i ? "," : "", key_names[keys[i]]);
    fprintf(out, "],\"children\":%s,", o->children ? "true" : "false");
}

/* A row's keys: those of the sort, the symbol with its mode and source. */
static void put_keys(FILE *out, const struct report_table *t, const struct report_row *r,
                     const uint8_t *modes)
{
    const struct symbolizer *sym = t->p->sym;
    char name[DOMAIN_NAME_MAX];
    if (t->has[REPORT_KEY_COMM] || t->has[REPORT_KEY_PID]) {
        fputs(",\"comm\":", out);
        json_put_string(out, r->comm);
    }
    if (t->has[REPORT_KEY_PID])
        fprintf(out, ",\"pid\":%u", r->pid);
    if (t->has[REPORT_KEY_DOMAIN]) {
        fputs(",\"domain\":", out);
        json_put_string(out, profile_domain_name(t->p, r->domain, name));
    }
    if (t->has[REPORT_KEY_VCPU])
        fprintf(out, ",\"vcpu\":%u", r->vcpu);
    if (t->has[REPORT_KEY_DSO]) {
        fputs(",\"dso\":", out);
        json_put_string(out, sym_image(sym, r->image)->name);
    }
    if (!t->has[REPORT_KEY_SYM])
        return;
    const struct sym_function *fn = sym_function(sym, r->function);
    uint8_t mode = modes[r->function];
    fputs(",\"symbol\":", out);
    json_put_string(out, fn->name);
    fprintf(out, ",\"mode\":\"%s\",\"known\":%s,\"source_file\":",
            mode < LOG_MODE_COUNT ? profile_mode_name(mode) : "unknown", fn->known ? "true" : "false");
    if (fn->file)
        json_put_string(out, fn->file);
    else
        fputs("null", out);
    fprintf(out, ",\"source_line\":%u", fn->line);
}

static void put_row(FILE *out, const struct report_table *t, const struct report_row *r,
                    const uint8_t *modes, bool first)
{
    const struct profile *p = t->p;
    fprintf(out, "%s\n{\"overhead\":%.4f,\"samples\":%" PRIu64 ",\"children\":%.4f,"
            "\"children_samples\":%" PRIu64 ",\"events\":{", first ? "" : ",",
            percent(r->self, p->total), r->self, percent(r->children, p->total), r->children);
    for (uint32_t e = 0; e < p->event_count; e++) {
        fprintf(out, "%s", e ? "," : "");
        json_put_string(out, p->events[e].name);
        fprintf(out, ":{\"self\":%.4f,\"children\":%.4f}",
                percent(r->self_ev[e], p->events[e].total),
                percent(r->children_ev[e], p->events[e].total));
    }
    fputc('}', out);
    put_keys(out, t, r, modes);
    fputc('}', out);
}

void report_json(FILE *out, const struct profile *p, const struct report_options *o,
                 const struct report_table *t, const uint8_t *modes)
{
    fputs("{\"schema\":\"vertigo-report/1\",\"source\":", out);
    json_put_string(out, o->source ? o->source : "-");
    fputc(',', out);
    put_events(out, p);
    fprintf(out, "\"total_samples\":%" PRIu64 ",", p->total);
    put_modes(out, p);
    put_domains(out, p);
    put_loss(out, &p->loss);
    put_sort(out, o);
    fprintf(out, "\"percent_limit\":%g,\"rows\":[", o->percent_limit);
    bool first = true;
    for (uint32_t i = 0; i < t->row_count; i++) {
        const struct report_row *r = &t->rows[i];
        uint64_t n = o->children ? r->children : r->self;
        if (!n || percent(n, p->total) < o->percent_limit)
            continue;
        put_row(out, t, r, modes, first);
        first = false;
    }
    fputs("\n]}\n", out);
}
