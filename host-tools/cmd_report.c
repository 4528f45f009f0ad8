/* vertigo report: the flat profile of a log, in perf report's layout
 * (header comment lines starting with '#', percentages with two
 * decimals): samples, overhead, one column per event, image and symbol
 * with its source line; --children adds inclusive call-stack shares,
 * --by-mode a table by domain, VCPU and mode. A "# Lost:" header line
 * says what the log and its symbol records lost. */
#define _GNU_SOURCE   /* qsort_r */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "host-tools/profile_cli.h"
#include "host-tools/vertigo.h"

#define MAX_CHAIN (LOG_STACK_MAX + 1u)
#define PERCENT_SCALE 100.0
#define PERCENT_COLUMN 8   /* "100.00%" and a space */

struct report_row {
    uint32_t function;
    uint64_t self, children;     /* all events */
    uint64_t *self_ev, *children_ev;
};

struct report_table {
    const struct profile *p;
    struct report_row *rows;     /* one per function */
    uint32_t row_count;
    uint64_t *counts;            /* 2 * events per row */
    enum report_sort sort;
    bool children;
};

static double percent(uint64_t part, uint64_t whole)
{
    return whole ? PERCENT_SCALE * (double)part / (double)whole : 0.0;
}

/* Adds s to its leaf function's self counts and, once per distinct
 * function of its chain, to the children counts. */
static void add_sample(struct report_table *t, const struct profile_sample *s)
{
    const struct symbolizer *sym = t->p->sym;
    uint32_t seen[MAX_CHAIN], seen_count = 0;
    for (uint32_t i = 0; i < s->depth && i < MAX_CHAIN; i++) {
        uint32_t fn = sym_frame(sym, s->frames[i])->function;
        bool dup = false;
        for (uint32_t k = 0; k < seen_count; k++)
            dup |= seen[k] == fn;
        if (dup)
            continue;
        seen[seen_count++] = fn;
        struct report_row *row = &t->rows[fn];
        row->children += s->count;
        row->children_ev[s->event] += s->count;
        if (i == 0) {
            row->self += s->count;
            row->self_ev[s->event] += s->count;
        }
    }
}

static void table_build(struct report_table *t, const struct profile *p, const struct report_options *o)
{
    uint32_t n = sym_function_count(p->sym), ev = p->event_count;
    t->p = p;
    t->sort = o->sort;
    t->children = o->children;
    t->rows = calloc(n ? n : 1, sizeof(*t->rows));
    t->counts = calloc((size_t)n * ev * 2 + 1, sizeof(*t->counts));
    if (!t->rows || !t->counts) {
        fprintf(stderr, "vertigo report: out of memory\n");
        exit(VERTIGO_EXIT_USAGE);
    }
    for (uint32_t i = 0; i < n; i++) {
        t->rows[i].function = i;
        t->rows[i].self_ev = &t->counts[(size_t)i * ev * 2];
        t->rows[i].children_ev = &t->counts[(size_t)i * ev * 2 + ev];
    }
    for (uint64_t i = 0; i < p->sample_count; i++)
        add_sample(t, &p->samples[i]);
    t->row_count = n;
}

static const struct report_table *sort_table;

static int cmp_names(const struct report_row *x, const struct report_row *y, bool image_first)
{
    const struct symbolizer *sym = sort_table->p->sym;
    const struct sym_function *fx = sym_function(sym, x->function), *fy = sym_function(sym, y->function);
    const char *ix = sym_image(sym, fx->image)->name, *iy = sym_image(sym, fy->image)->name;
    int c = image_first ? strcmp(ix, iy) : strcmp(fx->name, fy->name);
    return c ? c : image_first ? strcmp(fx->name, fy->name) : strcmp(ix, iy);
}

static int row_cmp(const void *a, const void *b)
{
    const struct report_row *x = a, *y = b;
    uint64_t kx = sort_table->children ? x->children : x->self;
    uint64_t ky = sort_table->children ? y->children : y->self;
    switch (sort_table->sort) {
    case REPORT_SORT_SYMBOL:
        return cmp_names(x, y, false);
    case REPORT_SORT_IMAGE:
        if (strcmp(sym_image(sort_table->p->sym, sym_function(sort_table->p->sym, x->function)->image)->name,
                   sym_image(sort_table->p->sym, sym_function(sort_table->p->sym, y->function)->image)->name))
            return cmp_names(x, y, true);
        break;
    case REPORT_SORT_SAMPLES:
        break;
    }
    if (kx != ky)
        return kx > ky ? -1 : 1;
    return cmp_names(x, y, false);
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

/* The mode of a function: the mode of the first sample that names it. */
static uint8_t *function_modes(const struct profile *p)
{
    uint32_t n = sym_function_count(p->sym);
    uint8_t *modes = malloc(n ? n : 1);
    if (!modes)
        exit(VERTIGO_EXIT_USAGE);
    memset(modes, LOG_MODE_COUNT, n);
    for (uint64_t i = 0; i < p->sample_count; i++)
        for (uint32_t k = 0; k < p->samples[i].depth; k++) {
            uint32_t fn = sym_frame(p->sym, p->samples[i].frames[k])->function;
            if (modes[fn] == LOG_MODE_COUNT)
                modes[fn] = p->samples[i].mode;
        }
    return modes;
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

static void print_header(FILE *out, const struct profile *p, const struct report_options *o)
{
    static const char *const sorts[] = { "samples", "symbol", "image" };
    fprintf(out, "# Vertigo report of %s\n#\n", o->source ? o->source : "(log)");
    for (uint32_t e = 0; e < p->event_count; e++)
        fprintf(out, "# Samples: %" PRIu64 " of event '%s'\n", p->events[e].total, p->events[e].name);
    fprintf(out, "# Total samples: %" PRIu64 "\n", p->total);
    uint64_t modes[LOG_MODE_COUNT] = { 0 };
    for (uint64_t i = 0; i < p->sample_count; i++)
        modes[p->samples[i].mode] += p->samples[i].count;
    fprintf(out, "# Modes:");
    for (uint8_t m = 0; m < LOG_MODE_COUNT; m++)
        fprintf(out, " %s %.2f%%%s", profile_mode_name(m), percent(modes[m], p->total),
                m + 1 < LOG_MODE_COUNT ? "," : "\n");
    print_loss(out, &p->loss);
    fprintf(out, "# Sort: %s%s\n#\n", sorts[o->sort], o->children ? ", children" : "");
}

static void print_columns(FILE *out, const struct profile *p, bool children)
{
    fprintf(out, children ? "# Children      Self   Samples" : "# Overhead   Samples");
    for (uint32_t e = 0; p->event_count > 1 && e < p->event_count; e++)
        fprintf(out, "  %*s", event_width(&p->events[e]), p->events[e].name);
    fprintf(out, "  %-24s  %s\n", "Image", "Symbol  [Source]");
}

static void print_row(FILE *out, const struct report_table *t, const struct report_row *r,
                      const uint8_t *modes)
{
    const struct profile *p = t->p;
    const struct sym_function *fn = sym_function(p->sym, r->function);
    if (t->children)
        fprintf(out, "  %7.2f%%  %7.2f%%  %8" PRIu64, percent(r->children, p->total),
                percent(r->self, p->total), r->self);
    else
        fprintf(out, "  %7.2f%%  %8" PRIu64, percent(r->self, p->total), r->self);
    for (uint32_t e = 0; p->event_count > 1 && e < p->event_count; e++)
        fprintf(out, "  %*.2f%%", event_width(&p->events[e]) - 1,
                percent(t->children ? r->children_ev[e] : r->self_ev[e], p->events[e].total));
    fprintf(out, "  %-24s  %s %s", sym_image(p->sym, fn->image)->name, mode_tag(modes[r->function]),
            fn->name);
    if (fn->file)
        fprintf(out, "  %s:%u", fn->file, fn->line);
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
    fprintf(out, "  %6u  %4u  %-10s %8" PRIu64 "  %7.2f%%", s->domain, s->vcpu,
            profile_mode_name(s->mode), all, percent(all, p->total));
    for (uint32_t e = 0; p->event_count > 1 && e < p->event_count; e++)
        fprintf(out, "  %*.2f%%", event_width(&p->events[e]) - 1,
                percent(per_event[e], p->events[e].total));
    fputc('\n', out);
}

/* One row per (domain, VCPU, mode), in that order: the samples sorted
 * once and summed group by group. */
static void print_by_mode(FILE *out, const struct profile *p)
{
    fprintf(out, "#\n# By domain, VCPU and mode:\n# Domain  VCPU  Mode        Samples  Overhead");
    for (uint32_t e = 0; p->event_count > 1 && e < p->event_count; e++)
        fprintf(out, "  %*s", event_width(&p->events[e]), p->events[e].name);
    fputc('\n', out);
    uint64_t *order = malloc((p->sample_count + 1) * sizeof(*order));
    uint64_t *per_event = calloc(p->event_count + 1u, sizeof(*per_event));
    if (!order || !per_event)
        exit(VERTIGO_EXIT_USAGE);
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

void report_write(FILE *out, const struct profile *p, const struct report_options *o)
{
    struct report_table t;
    table_build(&t, p, o);
    uint8_t *modes = function_modes(p);
    sort_table = &t;
    qsort(t.rows, t.row_count, sizeof(*t.rows), row_cmp);
    print_header(out, p, o);
    print_columns(out, p, o->children);
    for (uint32_t i = 0; i < t.row_count; i++)
        if (o->children ? t.rows[i].children : t.rows[i].self)
            print_row(out, &t, &t.rows[i], modes);
    if (o->by_mode)
        print_by_mode(out, p);
    free(modes);
    free(t.rows);
    free(t.counts);
}

/* ---- Command line ----------------------------------------------------- */

static void usage(FILE *out)
{
    fprintf(out, "usage: vertigo report [--sort samples|symbol|image] [--children] [--by-mode]\n"
                 "                      [--guest-root DIR] [--kallsyms FILE] [--vertigo-elf FILE]\n"
                 "                      [--event E] FILE|-\n%s"
                 "  --sort KEY          order rows by samples (default), symbol or image\n"
                 "  --children          inclusive shares from call stacks (perf --children)\n"
                 "  --by-mode           add a table by domain, VCPU and mode\n",
            profile_options_help);
}

static bool set_sort(void *settings, const char *v)
{
    static const char *const keys[] = { "samples", "symbol", "image" };
    for (int k = 0; k < 3; k++)
        if (!strcmp(v, keys[k])) {
            ((struct report_options *)settings)->sort = (enum report_sort)k;
            return true;
        }
    fprintf(stderr, "vertigo report: unknown sort key '%s' (samples, symbol, image)\n", v);
    return false;
}

static bool set_children(void *settings, const char *unused)
{
    (void)unused;
    ((struct report_options *)settings)->children = true;
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
    return fflush(stdout) == 0 ? VERTIGO_EXIT_OK : VERTIGO_EXIT_USAGE;
}

static const struct profile_cli_option report_cli_options[] = {
    { "--children", false, set_children },
    { "--by-mode", false, set_by_mode },
    { "--sort", true, set_sort },
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
    struct report_options ro = { .sort = REPORT_SORT_SAMPLES };
    return profile_cli_run(&report_command, &ro, argc, argv);
}
