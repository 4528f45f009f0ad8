/* vertigo diff [OPTIONS] BASELINE NEW: two profiles side by side, as perf
 * diff shows two perf.data files. Per event, one row per key (by default
 * perf diff's dso,sym): Baseline, the row's share of the event's count
 * (samples times period) in BASELINE, and Delta, its share in NEW less
 * that; rows are ordered by the absolute delta (perf's delta-abs; -c
 * delta orders them by baseline). A row NEW lacks keeps an empty delta
 * and one BASELINE lacks an empty baseline, as perf has them. With
 * --format folded, the differential folded stacks FlameGraph's
 * difffolded.pl writes: each stack of either export (`vertigo export
 * --format folded`) with its count in BASELINE and in NEW, which
 * flamegraph.pl draws as a differential flame graph. */
#define _GNU_SOURCE   /* open_memstream */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host-tools/out_of_memory.h"
#include "host-tools/perf_names.h"
#include "host-tools/profile_cli.h"
#include "host-tools/report_rows.h"
#include "host-tools/text_quote.h"
#include "host-tools/vertigo.h"

#define PERCENT_SCALE 100.0
#define KEY_SEP '\x1f'                   /* between the key's parts */
#define KEY_MAX 2048u

enum diff_format { DIFF_TEXT, DIFF_FOLDED };
enum diff_compute { DIFF_DELTA_ABS, DIFF_DELTA };

struct diff_args {
    struct report_options keys;          /* -s: only the keys are used */
    enum diff_format format;
    enum diff_compute compute;
};

/* One row of one profile: an event, a key, its event count. */
struct diff_entry {
    char *event;
    char *key;                           /* the parts, KEY_SEP between */
    uint64_t value;
    int side;                            /* 0: baseline, 1: new */
};

struct diff_entries {
    struct diff_entry *e;
    size_t count, cap;
};

static void add_entry(struct diff_entries *d, const char *event, const char *key, uint64_t value,
                      int side)
{
    if (d->count == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 256;
        d->e = realloc(d->e, d->cap * sizeof(*d->e));
        if (!d->e)
            vertigo_out_of_memory();
    }
    d->e[d->count] = (struct diff_entry){ strdup(event), strdup(key), value, side };
    if (!d->e[d->count].event || !d->e[d->count].key)
        vertigo_out_of_memory();
    d->count++;
}

static const char *mode_tag(uint8_t mode)
{
    static const char *const tags[LOG_MODE_COUNT] = { "[h]", "[k]", "[.]" };
    return mode < LOG_MODE_COUNT ? tags[mode] : "[?]";
}

/* The key of sample s: its parts for the keys k[0..n-1]. */
static void sample_key(const struct profile *p, const struct profile_sample *s,
                       const enum report_key *k, unsigned int n, char *out, size_t len)
{
    const struct sym_frame *leaf = sym_frame(p->sym, s->frames[0]);
    char name[DOMAIN_NAME_MAX];
    size_t at = 0;
    for (unsigned int i = 0; i < n && at < len; i++) {
        int w = 0;
        if (i)
            out[at++] = KEY_SEP;
        switch (k[i]) {
        case REPORT_KEY_COMM: w = snprintf(out + at, len - at, "%s", s->process.comm); break;
        case REPORT_KEY_PID:
            w = snprintf(out + at, len - at, "%u:%s", s->process.pid, s->process.comm);
            break;
        case REPORT_KEY_DSO:
            w = snprintf(out + at, len - at, "%s", sym_image(p->sym, leaf->image)->name);
            break;
        case REPORT_KEY_DOMAIN:
            w = snprintf(out + at, len - at, "%s", profile_domain_name(p, s->domain, name));
            break;
        case REPORT_KEY_VCPU: w = snprintf(out + at, len - at, "%u", s->vcpu); break;
        case REPORT_KEY_SYM:
        case REPORT_KEY_COUNT:
            w = snprintf(out + at, len - at, "%s %s", mode_tag(leaf->mode),
                         sym_function(p->sym, leaf->function)->name);
            break;
        }
        at += w > 0 ? (size_t)w : 0;
    }
    out[at < len ? at : len - 1] = '\0';
}

static void collect(struct diff_entries *d, const struct profile *p, const struct diff_args *a,
                    int side)
{
    enum report_key k[REPORT_KEY_COUNT];
    unsigned int n = report_keys(&a->keys, k);
    char key[KEY_MAX];
    for (uint64_t i = 0; i < p->sample_count; i++) {
        const struct profile_sample *s = &p->samples[i];
        if (!s->depth)
            continue;
        sample_key(p, s, k, n, key, sizeof(key));
        add_entry(d, p->events[s->event].name, key, s->count * s->period, side);
    }
}

static int entry_cmp(const void *x, const void *y)
{
    const struct diff_entry *a = x, *b = y;
    int c = strcmp(a->event, b->event);
    return c ? c : strcmp(a->key, b->key);
}

/* One merged row: a key and its count on each side. */
struct diff_row {
    const char *event, *key;
    uint64_t value[2];
    bool present[2];
    double base, delta;                  /* percent */
};

/* The rows of one event: entries [from, to) merged by key. */
static size_t merge(const struct diff_entries *d, size_t from, size_t to, struct diff_row *rows,
                    uint64_t total[2])
{
    size_t n = 0;
    total[0] = total[1] = 0;
    for (size_t i = from; i < to; i++) {
        struct diff_entry *e = &d->e[i];
        if (!n || strcmp(rows[n - 1].key, e->key))
            rows[n++] = (struct diff_row){ .event = e->event, .key = e->key };
        rows[n - 1].value[e->side] += e->value;
        rows[n - 1].present[e->side] = true;
        total[e->side] += e->value;
    }
    return n;
}

static double share(uint64_t part, uint64_t whole)
{
    return whole ? PERCENT_SCALE * (double)part / (double)whole : 0.0;
}

static enum diff_compute sort_compute;

static int row_cmp(const void *x, const void *y)
{
    const struct diff_row *a = x, *b = y;
    if (sort_compute == DIFF_DELTA_ABS) {
        double da = a->present[0] && a->present[1] ? fabs(a->delta) : -1;
        double db = b->present[0] && b->present[1] ? fabs(b->delta) : -1;
        if (da != db)
            return da > db ? -1 : 1;
    }
    if (a->base != b->base)
        return a->base > b->base ? -1 : 1;
    if (a->value[1] != b->value[1])
        return a->value[1] > b->value[1] ? -1 : 1;
    return strcmp(a->key, b->key);
}

static const char *const key_headings[REPORT_KEY_COUNT] = {
    "Command", "Pid:Command", "Shared Object", "Symbol", "Domain", "VCPU",
};

/* The widths of the key's parts over the rows (at least the headings'). */
static void part_widths(const struct diff_row *rows, size_t n, const enum report_key *k,
                        unsigned int nk, size_t *width)
{
    for (unsigned int i = 0; i < nk; i++)
        width[i] = strlen(key_headings[k[i]]);
    for (size_t r = 0; r < n; r++) {
        const char *part = rows[r].key;
        for (unsigned int i = 0; i < nk; i++) {
            size_t len = strcspn(part, "\x1f");
            width[i] = len > width[i] ? len : width[i];
            part += len + (part[len] != '\0');
        }
    }
}

static void print_key(FILE *out, const char *key, const size_t *width, unsigned int nk)
{
    for (unsigned int i = 0; i < nk; i++) {
        size_t len = strcspn(key, "\x1f");
        fprintf(out, "%s%.*s", i ? "  " : "", (int)len, key);
        for (size_t pad = len; i + 1 < nk && pad < width[i]; pad++)
            fputc(' ', out);
        key += len + (key[len] != '\0');
    }
}

static void print_event(FILE *out, const struct diff_args *a, struct diff_row *rows, size_t n,
                        const uint64_t total[2], bool quiet)
{
    for (size_t i = 0; i < n; i++) {
        rows[i].base = share(rows[i].value[0], total[0]);
        rows[i].delta = share(rows[i].value[1], total[1]) - rows[i].base;
    }
    sort_compute = a->compute;
    qsort(rows, n, sizeof(*rows), row_cmp);
    enum report_key k[REPORT_KEY_COUNT];
    unsigned int nk = report_keys(&a->keys, k);
    size_t width[REPORT_KEY_COUNT];
    part_widths(rows, n, k, nk, width);
    if (!quiet) {
        fprintf(out, "# Event '%s'\n#\n# Baseline  %s", rows[0].event,
                a->compute == DIFF_DELTA_ABS ? "Delta Abs" : "    Delta");
        for (unsigned int i = 0; i < nk; i++)
            fprintf(out, "  %-*s", i + 1 < nk ? (int)width[i] : 0, key_headings[k[i]]);
        fputs("\n#\n", out);
    }
    for (size_t i = 0; i < n; i++) {
        const struct diff_row *r = &rows[i];
        if (r->present[0])
            fprintf(out, "  %7.2f%%", r->base);
        else
            fprintf(out, "  %8s", "");
        if (r->present[0] && r->present[1])    /* a delta below 0.005 shows as +0.00% */
            fprintf(out, "  %+8.2f%%  ", fabs(r->delta) < 0.005 ? 0.0 : r->delta);
        else
            fprintf(out, "  %9s  ", "");
        print_key(out, r->key, width, nk);
        fputc('\n', out);
    }
    if (!quiet)
        fputc('\n', out);
}

/* The entries sorted by event and key, and room for their rows. */
static struct diff_row *sort_entries(struct diff_entries *d)
{
    if (d->count)
        qsort(d->e, d->count, sizeof(*d->e), entry_cmp);
    struct diff_row *rows = malloc((d->count + 1) * sizeof(*rows));
    if (!rows)
        vertigo_out_of_memory();
    return rows;
}

static void free_entries(struct diff_entries *d, struct diff_row *rows)
{
    free(rows);
    for (size_t i = 0; i < d->count; i++) {
        free(d->e[i].event);
        free(d->e[i].key);
    }
    free(d->e);
}

static bool write_text(FILE *out, const struct profile *base, const struct profile *now,
                       const struct diff_args *a)
{
    struct diff_entries d = { 0 };
    collect(&d, base, a, 0);
    collect(&d, now, a, 1);
    struct diff_row *rows = sort_entries(&d);
    for (size_t i = 0, j; i < d.count; i = j) {
        for (j = i; j < d.count && !strcmp(d.e[j].event, d.e[i].event); j++)
            ;
        uint64_t total[2];
        size_t n = merge(&d, i, j, rows, total);
        print_event(out, a, rows, n, total, base->quiet);
    }
    free_entries(&d, rows);
    return !ferror(out);
}

/* ---- Differential folded stacks ------------------------------------------------ */

/* The lines of p's folded export, as "stack count" entries of side. */
static void collect_folded(struct diff_entries *d, const struct profile *p, int side)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem || !export_folded(mem, p) || fclose(mem))
        vertigo_out_of_memory();
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *space = strrchr(line, ' ');
        if (!space)
            continue;
        *space = '\0';
        add_entry(d, "", line, strtoull(space + 1, NULL, 10), side);
    }
    free(text);
}

static bool write_folded(FILE *out, const struct profile *base, const struct profile *now)
{
    struct diff_entries d = { 0 };
    collect_folded(&d, base, 0);
    collect_folded(&d, now, 1);
    struct diff_row *rows = sort_entries(&d);
    uint64_t total[2];
    size_t n = merge(&d, 0, d.count, rows, total);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s %" PRIu64 " %" PRIu64 "\n", rows[i].key, rows[i].value[0], rows[i].value[1]);
    free_entries(&d, rows);
    return !ferror(out);
}

/* ---- Command line -------------------------------------------------------------- */

static void usage(FILE *out)
{
    fprintf(out, "usage: vertigo diff [-s KEYS] [--compute delta|delta-abs] [--format text|folded] [-q]\n"
                 "                    [--time RANGES] [-e E] [-c C] [--pids P] [-d D] [-S S]\n"
                 "                    [--guest-root [DOM=]DIR] [--kallsyms [DOM=]FILE]\n"
                 "                    [--vertigo-elf FILE] BASELINE NEW\n"
                 "Two profiles side by side, as perf diff shows two perf.data files: per event\n"
                 "and key, Baseline (the share of the event's count in BASELINE) and Delta (its\n"
                 "share in NEW less that). Both logs are read with the same options.\n%s"
                 "  -s, --sort KEYS     the rows' keys: comm, pid, dso, sym, domain, vcpu (default\n"
                 "                      dso,sym)\n"
                 "  --compute M         delta-abs (rows by the absolute delta, the default) or\n"
                 "                      delta (rows by baseline)\n"
                 "  --format F          text (default) or folded: each folded stack of either\n"
                 "                      log with its count in BASELINE and in NEW (FlameGraph's\n"
                 "                      differential input: flamegraph.pl draws it)\n",
            profile_options_help);
}

static bool set_sort(void *settings, const char *v)
{
    char err[160];
    struct diff_args *a = settings;
    if (!strcmp(v, "samples")) {
        fprintf(stderr, "vertigo diff: sort key 'samples' is the report's own: give keys\n");
        return false;
    }
    if (report_parse_sort(&a->keys, v, err, sizeof(err)))
        return true;
    fprintf(stderr, "vertigo diff: %s\n", err);
    return false;
}

static bool set_compute(void *settings, const char *v)
{
    static const char *const names[] = { "delta-abs", "delta" };
    int i = profile_cli_choose("diff", "--compute method", v, names, 2);
    if (i >= 0)
        ((struct diff_args *)settings)->compute = (enum diff_compute)i;
    return i >= 0;
}

static bool set_format(void *settings, const char *v)
{
    static const char *const names[] = { "text", "folded" };
    int i = profile_cli_choose("diff", "format", v, names, 2);
    if (i >= 0)
        ((struct diff_args *)settings)->format = (enum diff_format)i;
    return i >= 0;
}

static const struct profile_cli_option diff_options[] = {
    { "--sort|-s", true, set_sort },
    { "--compute", true, set_compute },
    { "--format", true, set_format },
};

const char cmd_diff_help[] = "compare two profiles (perf diff), or write a differential flame graph";

int cmd_diff(int argc, char **argv)
{
    static const struct profile_cli_command command = {
        .name = "diff", .options = diff_options,
        .option_count = sizeof(diff_options) / sizeof(diff_options[0]), .usage = usage, .inputs = 2,
    };
    static const enum report_key dso_sym[] = { REPORT_KEY_DSO, REPORT_KEY_SYM };
    struct diff_args a = { .keys = { .sort = REPORT_SORT_KEYS, .key_count = 2 } };
    memcpy(a.keys.keys, dso_sym, sizeof(dso_sym));
    struct profile_options po = { 0 };
    const char *inputs[2];
    int parsed = profile_cli_parse(&command, &po, &a, argc, argv, inputs);
    if (parsed >= 0)
        return parsed;
    struct profile base, now;
    int status = profile_load(&base, "diff", inputs[0], &po);
    bool read = status == VERTIGO_EXIT_OK || status == VERTIGO_EXIT_DAMAGED;
    if (read) {
        int second = profile_load(&now, "diff", inputs[1], &po);
        read = second == VERTIGO_EXIT_OK || second == VERTIGO_EXIT_DAMAGED;
        status = second != VERTIGO_EXIT_OK ? second : status;
        bool ok = !read || (a.format == DIFF_FOLDED ? write_folded(stdout, &base, &now)
                                                    : write_text(stdout, &base, &now, &a));
        if (!ok || fflush(stdout)) {
            fprintf(stderr, "vertigo diff: stdout: write error\n");
            status = VERTIGO_EXIT_USAGE;
        }
        profile_free(&now);
    }
    profile_free(&base);
    return status;
}
