/* vertigo report: the flat profile of a log, in perf report's layout
 * (header comment lines starting with '#', percentages with two
 * decimals): samples and event counts per event, then rows of overhead,
 * samples, one column per event and the row's keys: by default image and
 * symbol with its source line, with --sort perf's keys (comm, pid, dso,
 * sym) under perf's headings (report_rows.c groups them); --children
 * adds inclusive call-stack shares, --percent-limit hides small rows,
 * --by-mode adds a table by domain, VCPU and mode. A "# Lost:" header
 * line says what the log and its symbol records lost. */
#define _GNU_SOURCE   /* qsort_r */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "host-tools/profile_cli.h"
#include "host-tools/log_input.h"
#include "host-tools/out_of_memory.h"
#include "host-tools/report_json.h"
#include "host-tools/report_rows.h"
#include "host-tools/vertigo.h"

#define PERCENT_SCALE 100.0
#define PERCENT_COLUMN 8   /* "100.00%" and a space */
#define DEFAULT_IMAGE_WIDTH 24
#define KEY_TEXT_MAX 600u

static double percent(uint64_t part, uint64_t whole)
{
    return whole ? PERCENT_SCALE * (double)part / (double)whole : 0.0;
}

/* Width of an event's column: its name, at least a percentage's. */
static int event_width(const struct profile_event *e)
{
    int n = (int)strlen(e->name);
    return n > PERCENT_COLUMN ? n : PERCENT_COLUMN;
}

static const char *mode_tag(uint8_t mode)
{
    static const char *const tags[LOG_MODE_COUNT] = { "[h]", "[k]", "[.]" };
    return mode < LOG_MODE_COUNT ? tags[mode] : "[?]";
}

/* "# Lost: ..." when the log or its symbol records lost anything: a
 * profile of what survived must say so where it is read. */
static void print_loss(FILE *out, const struct profile_loss *l)
{
    const struct sym_problems *sp = &l->symbols;
    uint64_t sets = sp->broken_sets + sp->restarted_sets + sp->abandoned_sets +
                    sp->unfinished_sets;
    if (!l->ring_dropped && !l->records_lost && !l->blocks_lost && !sets && !sp->bad_lines)
        return;
    char dropped[LOGDEC_COUNT_TEXT], records[LOGDEC_COUNT_TEXT], blocks[LOGDEC_COUNT_TEXT];
    fprintf(out, "# Lost: %s records dropped by Vertigo's rings, %s records (%s blocks) to "
            "corruption or gaps, %" PRIu64 " symbol sets (%" PRIu64 " broken, %" PRIu64
            " restarted, %" PRIu64 " abandoned, %" PRIu64 " unfinished), %" PRIu64
            " malformed symbol lines\n",
            logdec_count_text(l->ring_dropped, dropped), logdec_count_text(l->records_lost, records),
            logdec_count_text(l->blocks_lost, blocks), sets, sp->broken_sets, sp->restarted_sets,
            sp->abandoned_sets, sp->unfinished_sets, sp->bad_lines);
}

/* The --sort line: the keys, or "samples". */
static void print_sort(FILE *out, const struct report_options *o)
{
    static const char *const names[REPORT_KEY_COUNT] = { "comm", "pid", "dso", "sym", "domain",
                                                                  "vcpu" };
    enum report_key keys[REPORT_KEY_COUNT];
    unsigned int n = report_keys(o, keys);
    fprintf(out, "# Sort: ");
    if (o->sort == REPORT_SORT_SAMPLES)
        fprintf(out, "samples");
    for (unsigned int i = 0; o->sort != REPORT_SORT_SAMPLES && i < n; i++)
        fprintf(out, "%s%s", i ? "," : "", names[keys[i]]);
    fprintf(out, "%s\n#\n", o->children ? ", children" : "");
}

/* perf's "Event count": each event's samples times their period. */
static void print_events(FILE *out, const struct profile_event *e)
{
    fprintf(out, "# Samples: %" PRIu64 " of event '%s'\n", e->total, e->name);
    if (!e->period_known)
        fprintf(out, "# Event count (approx.): %" PRIu64 " (no period in the log: one per "
                "sample)\n", e->events);
    else if (e->period)
        fprintf(out, "# Event count (approx.): %" PRIu64 " (period %" PRIu64 ")\n", e->events,
                e->period);
    else
        fprintf(out, "# Event count (approx.): %" PRIu64 " (several periods)\n", e->events);
}

/* "# Domains: NAME P% (S samples[, passive]), ..." when the samples come
 * from several domains or from a passive one other than domain 0 (it
 * shipped no symbols: its kernel and user addresses stay raw unless its
 * files were given). */
static void print_domains(FILE *out, const struct profile *p)
{
    uint64_t *per = calloc(DOMAIN_IDS_MAX + 1u, sizeof(*per));
    if (!per)
        vertigo_out_of_memory();
    bool passive = false;
    for (uint64_t i = 0; i < p->sample_count; i++) {
        uint32_t d = p->samples[i].domain;
        per[d < DOMAIN_IDS_MAX ? d : DOMAIN_IDS_MAX] += p->samples[i].count;
        passive |= d && domain_passive(p->domains, d);
    }
    if (profile_several_domains(p) || passive) {
        char name[DOMAIN_NAME_MAX];
        bool first = true;
        for (uint32_t d = 0; d <= DOMAIN_IDS_MAX; d++) {
            if (!per[d])
                continue;
            fprintf(out, "%s %s %.2f%% (%" PRIu64 " samples%s)", first ? "# Domains:" : ",",
                    d < DOMAIN_IDS_MAX ? profile_domain_name(p, d, name) : "others",
                    percent(per[d], p->total), per[d],
                    d < DOMAIN_IDS_MAX && domain_passive(p->domains, d) ? ", passive" : "");
            first = false;
        }
        fputc('\n', out);
    }
    free(per);
}

static void print_header(FILE *out, const struct profile *p, const struct report_options *o)
{
    fprintf(out, "# Vertigo report of %s\n#\n", o->source ? o->source : "(log)");
    for (uint32_t e = 0; e < p->event_count; e++)
        print_events(out, &p->events[e]);
    fprintf(out, "# Total samples: %" PRIu64 "\n", p->total);
    uint64_t modes[LOG_MODE_COUNT] = { 0 };
    for (uint64_t i = 0; i < p->sample_count; i++)
        modes[p->samples[i].mode] += p->samples[i].count;
    fprintf(out, "# Modes:");
    for (uint8_t m = 0; m < LOG_MODE_COUNT; m++)
        fprintf(out, " %s %.2f%%%s", profile_mode_name(m), percent(modes[m], p->total),
                m + 1 < LOG_MODE_COUNT ? "," : "\n");
    print_domains(out, p);
    print_loss(out, &p->loss);
    print_sort(out, o);
}

/* A row's text for key k (the symbol without its tag and source). */
static const char *key_text(const struct report_table *t, const struct report_row *r,
                            enum report_key k, char *buf, size_t len)
{
    const struct symbolizer *sym = t->p->sym;
    switch (k) {
    case REPORT_KEY_COMM: return r->comm;
    case REPORT_KEY_PID:  snprintf(buf, len, "%u:%s", r->pid, r->comm); return buf;
    case REPORT_KEY_DSO:  return sym_image(sym, r->image)->name;
    case REPORT_KEY_DOMAIN: return profile_domain_name(t->p, r->domain, buf);
    case REPORT_KEY_VCPU: snprintf(buf, len, "%u", r->vcpu); return buf;
    case REPORT_KEY_SYM:
    case REPORT_KEY_COUNT: break;
    }
    return sym_function(sym, r->function)->name;
}

/* The columns of the keys: perf's headings and widths fitting every row
 * shown (the default report: "Image", at least 24 wide). */
struct key_columns {
    enum report_key keys[REPORT_KEY_COUNT];
    unsigned int count;
    int width[REPORT_KEY_COUNT];
};

static bool row_shown(const struct report_table *t, const struct report_row *r)
{
    uint64_t n = t->o->children ? r->children : r->self;
    return n && percent(n, t->p->total) >= t->o->percent_limit;
}

static const char *key_heading(const struct report_options *o, enum report_key k)
{
    static const char *const perf[REPORT_KEY_COUNT] = { "Command", "Pid:Command", "Shared Object",
                                                        "Symbol", "Domain", "VCPU" };
    if (o->sort == REPORT_SORT_SAMPLES)
        return k == REPORT_KEY_DSO ? "Image" : "Symbol  [Source]";
    return perf[k];
}

static void key_columns(struct key_columns *c, const struct report_table *t)
{
    c->count = report_keys(t->o, c->keys);
    char buf[KEY_TEXT_MAX];
    for (unsigned int i = 0; i < c->count; i++) {
        int w = (int)strlen(key_heading(t->o, c->keys[i]));
        if (t->o->sort == REPORT_SORT_SAMPLES && w < DEFAULT_IMAGE_WIDTH)
            w = DEFAULT_IMAGE_WIDTH;
        for (uint32_t r = 0; r < t->row_count; r++) {
            if (!row_shown(t, &t->rows[r]))
                continue;
            int n = (int)strlen(key_text(t, &t->rows[r], c->keys[i], buf, sizeof(buf)));
            n += c->keys[i] == REPORT_KEY_SYM ? 4 : 0;   /* "[.] " */
            w = n > w ? n : w;
        }
        c->width[i] = w;
    }
}

static void print_columns(FILE *out, const struct report_table *t, const struct key_columns *c)
{
    const struct profile *p = t->p;
    fprintf(out, t->o->children ? "# Children      Self   Samples" : "# Overhead   Samples");
    for (uint32_t e = 0; p->event_count > 1 && e < p->event_count; e++)
        fprintf(out, "  %*s", event_width(&p->events[e]), p->events[e].name);
    for (unsigned int i = 0; i < c->count; i++) {
        bool last = i + 1 == c->count;
        fprintf(out, "  %-*s", last ? 0 : c->width[i], key_heading(t->o, c->keys[i]));
    }
    fputc('\n', out);
}

static void print_key(FILE *out, const struct report_table *t, const struct report_row *r,
                      enum report_key k, int width, const uint8_t *modes)
{
    char buf[KEY_TEXT_MAX];
    const char *text = key_text(t, r, k, buf, sizeof(buf));
    if (k != REPORT_KEY_SYM) {
        fprintf(out, "  %-*s", width, text);
        return;
    }
    const struct sym_function *fn = sym_function(t->p->sym, r->function);
    fprintf(out, "  %s %-*s", mode_tag(modes[r->function]), width ? width - 4 : 0, text);
    if (fn->file)
        fprintf(out, "  %s:%u", fn->file, fn->line);
}

static void print_row(FILE *out, const struct report_table *t, const struct report_row *r,
                      const struct key_columns *c, const uint8_t *modes)
{
    const struct profile *p = t->p;
    if (t->o->children)
        fprintf(out, "  %7.2f%%  %7.2f%%  %8" PRIu64, percent(r->children, p->total),
                percent(r->self, p->total), r->self);
    else
        fprintf(out, "  %7.2f%%  %8" PRIu64, percent(r->self, p->total), r->self);
    for (uint32_t e = 0; p->event_count > 1 && e < p->event_count; e++)
        fprintf(out, "  %*.2f%%", event_width(&p->events[e]) - 1,
                percent(t->o->children ? r->children_ev[e] : r->self_ev[e], p->events[e].total));
    for (unsigned int i = 0; i < c->count; i++)
        print_key(out, t, r, c->keys[i], i + 1 == c->count ? 0 : c->width[i], modes);
    fputc('\n', out);
}

/* Samples by (domain, VCPU, mode). */
static int by_mode_cmp(const void *a, const void *b, void *profile)
{
    const struct profile_sample *samples = ((const struct profile *)profile)->samples;
    const struct profile_sample *x = &samples[*(const uint64_t *)a], *y = &samples[*(const uint64_t *)b];
    if (x->domain != y->domain)
        return x->domain < y->domain ? -1 : 1;
    if (x->vcpu != y->vcpu)
        return x->vcpu < y->vcpu ? -1 : 1;
    return (int)x->mode - (int)y->mode;
}

static void print_mode_row(FILE *out, const struct profile *p, const struct profile_sample *s,
                           uint64_t all, const uint64_t *per_event)
{
    char name[DOMAIN_NAME_MAX];
    fprintf(out, "  %-10s  %4u  %-10s %8" PRIu64 "  %7.2f%%",
            profile_domain_name(p, s->domain, name), s->vcpu, profile_mode_name(s->mode), all,
            percent(all, p->total));
    for (uint32_t e = 0; p->event_count > 1 && e < p->event_count; e++)
        fprintf(out, "  %*.2f%%", event_width(&p->events[e]) - 1,
                percent(per_event[e], p->events[e].total));
    fputc('\n', out);
}

/* One row per (domain, VCPU, mode), in that order: the samples sorted
 * once and summed group by group. */
static void print_by_mode(FILE *out, const struct profile *p)
{
    fprintf(out, "#\n# By domain, VCPU and mode:\n# Domain      VCPU  Mode        Samples  Overhead");
    for (uint32_t e = 0; p->event_count > 1 && e < p->event_count; e++)
        fprintf(out, "  %*s", event_width(&p->events[e]), p->events[e].name);
    fputc('\n', out);
    uint64_t *order = malloc((p->sample_count + 1) * sizeof(*order));
    uint64_t *per_event = calloc(p->event_count + 1u, sizeof(*per_event));
    if (!order || !per_event)
        vertigo_out_of_memory();
    for (uint64_t i = 0; i < p->sample_count; i++)
        order[i] = i;
    qsort_r(order, p->sample_count, sizeof(*order), by_mode_cmp, (void *)p);
    for (uint64_t i = 0, j; i < p->sample_count; i = j) {
        uint64_t all = 0;
        memset(per_event, 0, p->event_count * sizeof(*per_event));
        for (j = i; j < p->sample_count && !by_mode_cmp(&order[i], &order[j], (void *)p); j++) {
            all += p->samples[order[j]].count;
            per_event[p->samples[order[j]].event] += p->samples[order[j]].count;
        }
        print_mode_row(out, p, &p->samples[order[i]], all, per_event);
    }
    free(order);
    free(per_event);
}

/* Whether a sample belongs to a process the log names (an identity the
 * guest agent shipped): not "[unknown]", not Vertigo's own. */
static bool names_processes(const struct profile *p)
{
    for (uint64_t i = 0; i < p->sample_count; i++) {
        const char *comm = p->samples[i].process.comm;
        if (*comm && strcmp(comm, SYM_COMM_UNKNOWN) && strcmp(comm, SYM_COMM_VERTIGO))
            return true;
    }
    return false;
}

/* REPORT_SORT_DEFAULT made concrete: perf report's default keys
 * comm,dso,sym when there is a process name to show, else samples. */
static struct report_options resolve_sort(const struct profile *p, const struct report_options *o)
{
    struct report_options r = *o;
    if (r.sort != REPORT_SORT_DEFAULT)
        return r;
    r.sort = REPORT_SORT_SAMPLES;
    if (names_processes(p)) {
        static const enum report_key perf_default[] = { REPORT_KEY_COMM, REPORT_KEY_DSO,
                                                        REPORT_KEY_SYM };
        r.sort = REPORT_SORT_KEYS;
        r.key_count = sizeof(perf_default) / sizeof(perf_default[0]);
        memcpy(r.keys, perf_default, sizeof(perf_default));
    }
    return r;
}

void report_write(FILE *out, const struct profile *p, const struct report_options *options)
{
    struct report_options sorted = resolve_sort(p, options);
    const struct report_options *o = &sorted;
    struct report_table t;
    report_table_build(&t, p, o);
    uint8_t *modes = report_function_modes(p);
    struct key_columns c;
    key_columns(&c, &t);
    if (o->json) {
        report_json(out, p, o, &t, modes);
        free(modes);
        report_table_free(&t);
        return;
    }
    if (!p->quiet) {
        print_header(out, p, o);
        print_columns(out, &t, &c);
    }
    for (uint32_t i = 0; i < t.row_count; i++) {
        const struct report_row *r = &t.rows[i];
        if (!row_shown(&t, r))
            continue;
        print_row(out, &t, r, &c, modes);
        if (r->graph != UINT32_MAX)
            callgraph_print(out, &t.graph, r->graph, p->sym, p->total, &o->call_graph);
    }
    if (o->by_mode)
        print_by_mode(out, p);
    free(modes);
    report_table_free(&t);
}

/* ---- Command line ----------------------------------------------------- */

static void usage(FILE *out)
{
    fprintf(out, "usage: vertigo report [-s samples|KEY[,KEY...]] [--children|--no-children]\n"
                 "                      [-g TYPE[,THRESHOLD][,ORDER]] [-G] [--by-mode] [-n] [--json]\n"
                 "                      [--percent-limit P] [-q] [--time RANGES] [-e E] [-c C]\n"
                 "                      [--pids P] [-d D] [-S S] [--guest-root [DOM=]DIR]\n"
                 "                      [--kallsyms [DOM=]FILE] [--vertigo-elf FILE] [-i] FILE|-\n"
                 "The symbolized flat profile of a log, as perf report --stdio prints it.\n%s"
                 "  -s, --sort KEYS     rows by perf's keys: comm, pid, dso, sym (also command,\n"
                 "                      shared_object, image, symbol), domain (by name) and\n"
                 "                      vcpu (its number in its domain), comma-combined, or\n"
                 "                      samples: one row per image and function; default\n"
                 "                      comm,dso,sym when the log names processes, else samples\n"
                 "  --children          inclusive shares from call stacks (perf --children)\n"
                 "  --no-children       self shares only (the default)\n"
                 "  -g, --call-graph T  call chains under each row: TYPE graph (a tree, shares\n"
                 "                      of all samples), fractal (shares of the parent), flat,\n"
                 "                      folded or none; THRESHOLD in percent (default 0.5);\n"
                 "                      ORDER callee (from the row's function to its callers)\n"
                 "                      or caller (the reverse; the default with --children)\n"
                 "  -G, --inverted      caller order (perf's -G)\n"
                 "  -n, --show-nr-samples  the Samples column (always shown)\n"
                 "  --by-mode           add a table by domain, VCPU and mode\n"
                 "  --json              the report as one JSON object (schema vertigo-report/1)\n"
                 "  --percent-limit P   hide rows below P percent\n",
            profile_options_help);
}

/* A perf sort key or one of its aliases; REPORT_KEY_COUNT if none. */
static enum report_key key_named(const char *name, size_t len)
{
    static const struct { const char *name; enum report_key key; } names[] = {
        { "comm", REPORT_KEY_COMM }, { "command", REPORT_KEY_COMM }, { "pid", REPORT_KEY_PID },
        { "dso", REPORT_KEY_DSO }, { "shared_object", REPORT_KEY_DSO }, { "image", REPORT_KEY_DSO },
        { "sym", REPORT_KEY_SYM }, { "symbol", REPORT_KEY_SYM }, { "domain", REPORT_KEY_DOMAIN },
        { "vcpu", REPORT_KEY_VCPU },
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strlen(names[i].name) == len && !strncmp(names[i].name, name, len))
            return names[i].key;
    return REPORT_KEY_COUNT;
}

bool report_parse_sort(struct report_options *o, const char *value, char *err, size_t err_len)
{
    if (!strcmp(value, "samples")) {
        o->sort = REPORT_SORT_SAMPLES;
        return true;
    }
    o->sort = REPORT_SORT_KEYS;
    o->key_count = 0;
    for (const char *w = value; w; w = strchr(w, ',') ? strchr(w, ',') + 1 : NULL) {
        size_t len = strcspn(w, ",");
        enum report_key k = key_named(w, len);
        bool repeated = false;
        for (unsigned int i = 0; i < o->key_count; i++)
            repeated |= o->keys[i] == k;
        if (k == REPORT_KEY_COUNT || repeated) {
            snprintf(err, err_len, "%s sort key '%.*s' (samples, or comm, pid, dso, sym, "
                     "domain, vcpu combined with commas)", repeated ? "repeated" : "unknown", (int)len, w);
            return false;
        }
        o->keys[o->key_count++] = k;
    }
    return true;
}

static bool set_sort(void *settings, const char *v)
{
    char err[160];
    if (report_parse_sort(settings, v, err, sizeof(err)))
        return true;
    fprintf(stderr, "vertigo report: %s\n", err);
    return false;
}

static bool set_percent_limit(void *settings, const char *v)
{
    char *end;
    double limit = strtod(v, &end);
    if (end == v || *end || !(limit >= 0.0 && limit <= PERCENT_SCALE)) {
        fprintf(stderr, "vertigo report: --percent-limit %s: not a percentage (0 to 100)\n", v);
        return false;
    }
    ((struct report_options *)settings)->percent_limit = limit;
    return true;
}

static bool set_children(void *settings, const char *unused)
{
    (void)unused;
    ((struct report_options *)settings)->children = true;
    return true;
}

static bool set_no_children(void *settings, const char *unused)
{
    (void)unused;
    ((struct report_options *)settings)->children = false;
    return true;
}

static bool set_call_graph(void *settings, const char *v)
{
    struct report_options *o = settings;
    enum callgraph_order order = o->call_graph.order;
    char err[256];
    if (!callgraph_parse(&o->call_graph, v, err, sizeof(err))) {
        fprintf(stderr, "vertigo report: %s\n", err);
        return false;
    }
    if (o->call_graph.order == CALLGRAPH_ORDER_DEFAULT)   /* -G before -g stays */
        o->call_graph.order = order;
    return true;
}

static bool set_inverted(void *settings, const char *unused)
{
    struct report_options *o = settings;
    (void)unused;
    o->call_graph.order = CALLGRAPH_CALLER;
    if (o->call_graph.mode == CALLGRAPH_NONE)
        o->call_graph.mode = CALLGRAPH_GRAPH;
    return true;
}

static bool set_json(void *settings, const char *unused)
{
    (void)unused;
    ((struct report_options *)settings)->json = true;
    return true;
}

static bool set_show_samples(void *settings, const char *unused)
{
    (void)settings, (void)unused;
    return true;
}

static bool set_by_mode(void *settings, const char *unused)
{
    (void)unused;
    ((struct report_options *)settings)->by_mode = true;
    return true;
}

/* The report on standard output; a failed flush is an I/O error. */
static int write_report(const struct profile *p, const char *input, const void *settings)
{
    struct report_options o = *(const struct report_options *)settings;
    o.source = input;
    report_write(stdout, p, &o);
    return log_output_status("report", VERTIGO_EXIT_OK);
}

static const struct profile_cli_option report_cli_options[] = {
    { "--children", false, set_children },
    { "--no-children", false, set_no_children },
    { "--call-graph|-g", true, set_call_graph },
    { "--inverted|-G", false, set_inverted },
    { "--show-nr-samples|-n", false, set_show_samples },
    { "--by-mode", false, set_by_mode },
    { "--json", false, set_json },
    { "--sort|-s", true, set_sort },
    { "--percent-limit", true, set_percent_limit },
};

static const struct profile_cli_command report_command = {
    .name = "report",
    .options = report_cli_options,
    .option_count = sizeof(report_cli_options) / sizeof(report_cli_options[0]),
    .usage = usage,
    .write = write_report,
};

int cmd_report(int argc, char **argv)
{
    struct report_options ro = {
        .sort = REPORT_SORT_DEFAULT,
        .call_graph = { CALLGRAPH_NONE, CALLGRAPH_ORDER_DEFAULT, CALLGRAPH_THRESHOLD_DEFAULT },
    };
    return profile_cli_run(&report_command, &ro, argc, argv);
}
