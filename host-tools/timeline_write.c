/* The writers of `vertigo timeline` (see timeline_write.h). */
#include "host-tools/timeline_write.h"
#include "host-tools/trace_ids.h"

#include <inttypes.h>
#include <string.h>

#include "host-tools/plot.h"
#include "host-tools/profile_timeline.h"
#include "host-tools/text_quote.h"
#include "host-tools/vertigo.h"

#define PANEL_HEIGHT 150u
#define TITLE_HEIGHT 60u
#define PLOT_WIDTH   1000u
#define NS_PER_MICRO 1000u

/* ---- Table ---------------------------------------------------------------- */

static void put_event_header(FILE *out, const struct iv_set *s, unsigned int e, char sep)
{
    static const char *const parts[] = { "", ":raw", ":running", ":how" };
    char name[IV_NAME_MAX], col[IV_NAME_MAX + 16];
    iv_event_name(s, e, name, sizeof(name));
    for (size_t k = 0; k < sizeof(parts) / sizeof(parts[0]); k++) {
        snprintf(col, sizeof(col), "%s%s", name, parts[k]);
        fputc(sep, out);
        if (sep == '\t')
            tsv_put_field(out, col);
        else
            csv_put_field(out, col, sep);
    }
}

static void put_row(FILE *out, const struct iv_set *s, const struct iv_row *r,
                    const unsigned int *ev, unsigned int n, char sep)
{
    struct iv_events v;
    iv_row_events(s, r, &v);
    fprintf(out, "%u%c%u%c%" PRIu64 "%c%" PRIu64 "%c%" PRIu64 "%c%" PRIu64, r->domain, sep,
            r->vcpu, sep, r->number, sep, r->instructions, sep, r->tsc_start, sep, r->tsc_span);
    for (unsigned int k = 0; k < n; k++) {
        unsigned int e = ev[k];
        if (!v.in_row[e]) {             /* another session's event, or a narrower row's */
            fprintf(out, "%c%c%c%cabsent", sep, sep, sep, sep);
            continue;
        }
        fprintf(out, "%c%" PRIu64 "%c%" PRIu64 "%c%" PRIu64 "%c%s", sep, v.value[e], sep,
                v.raw[e], sep, v.running[e], sep, iv_how_name(v.how[e]));
    }
    fputc('\n', out);
}

bool timeline_write_table(FILE *out, const struct iv_set *s, const unsigned int *ev,
                          unsigned int n, char sep)
{
    fprintf(out, "domain%cvcpu%cinterval%cinstructions%ctsc%ctsc_span", sep, sep, sep, sep, sep);
    for (unsigned int k = 0; k < n; k++)
        put_event_header(out, s, ev[k], sep);
    fputc('\n', out);
    for (size_t i = 0; i < s->count; i++)
        put_row(out, s, &s->rows[i], ev, n, sep);
    return !ferror(out);
}

/* ---- Chrome Trace Event JSON ----------------------------------------------- */

static bool several_vcpus(const struct iv_set *s)
{
    for (size_t i = 1; i < s->count; i++)
        if (s->rows[i].domain != s->rows[0].domain || s->rows[i].vcpu != s->rows[0].vcpu)
            return true;
    return false;
}

/* The row's x in microseconds of the trace: its time as the other
 * time-ordered exports give it (host-tools/trace_ids.h), or its VCPU's
 * retired instructions. */
static void put_ts(FILE *out, const struct iv_set *s, const struct iv_row *r, enum timeline_x x)
{
    if (x == TIMELINE_X_INSTRUCTIONS) {
        fprintf(out, "%" PRIu64, r->x_instructions);
        return;
    }
    uint64_t ns = timeline_ns(r->tsc_start, s->tsc_hz);
    fprintf(out, "%" PRIu64 ".%03" PRIu64, ns / NS_PER_MICRO, ns % NS_PER_MICRO);
}

/* A process per domain, a thread per VCPU: the names and numbers of the
 * other time-ordered exports (host-tools/trace_ids.h). */
static void put_names(FILE *out, const struct iv_set *s, bool *first)
{
    char name[TRACE_NAME_MAX];
    for (size_t i = 0; i < s->count; i++) {
        const struct iv_row *r = &s->rows[i];
        if (i && r->domain == r[-1].domain && r->vcpu == r[-1].vcpu)
            continue;
        trace_process_name(&s->domains, r->domain, name);
        fprintf(out, "%s{\"name\":\"process_name\",\"ph\":\"M\",\"ts\":0,\"pid\":%u,\"tid\":%u,"
                "\"args\":{\"name\":", *first ? "\n" : ",\n", trace_pid(r->domain),
                trace_tid(r->domain, r->vcpu));
        json_put_string(out, name);
        trace_thread_name(r->vcpu, name);
        fprintf(out, "}},\n{\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":0,\"pid\":%u,\"tid\":%u,"
                "\"args\":{\"name\":\"%s\"}}", trace_pid(r->domain), trace_tid(r->domain, r->vcpu),
                name);
        *first = false;
    }
}

static void put_counter(FILE *out, const struct iv_set *s, const struct iv_row *r,
                        const struct iv_events *v, unsigned int e, enum timeline_x x, bool prefix)
{
    char name[IV_NAME_MAX], track[IV_NAME_MAX + 16];
    iv_event_name(s, e, name, sizeof(name));
    if (prefix)
        snprintf(track, sizeof(track), "VCPU %u %s", r->vcpu, name);
    else
        snprintf(track, sizeof(track), "%s", name);
    fputs(",\n{\"name\":", out);
    json_put_string(out, track);
    /* the category says how the value was obtained (unmeasured: no event) */
    fprintf(out, ",\"cat\":\"%s\",\"ph\":\"C\",\"ts\":",
            v->how[e] == IV_SCALED ? "extrapolated" : "measured");
    put_ts(out, s, r, x);
    fprintf(out, ",\"pid\":%u,\"tid\":%u,\"args\":{\"value\":%" PRIu64 "}}", trace_pid(r->domain),
            trace_tid(r->domain, r->vcpu), v->value[e]);
}

bool timeline_write_trace(FILE *out, const struct iv_set *s, const unsigned int *ev,
                          unsigned int n, enum timeline_x x)
{
    bool first = true, prefix = several_vcpus(s);
    fprintf(out, "{\"traceEvents\":[");
    put_names(out, s, &first);
    for (size_t i = 0; i < s->count; i++) {
        struct iv_events v;
        iv_row_events(s, &s->rows[i], &v);
        for (unsigned int k = 0; k < n; k++)
            if (v.in_row[ev[k]] && v.how[ev[k]] != IV_UNMEASURED)
                put_counter(out, s, &s->rows[i], &v, ev[k], x, prefix);
    }
    fprintf(out, "\n],\"displayTimeUnit\":\"ms\",\"otherData\":{\"x\":\"%s\"}}\n",
            x == TIMELINE_X_TIME ? "time" : "instructions (1 us = 1 retired instruction)");
    return !ferror(out);
}

/* ---- PNG -------------------------------------------------------------------- */

/* The data: one block per VCPU (gnuplot's index), x then, per event, three
 * columns: its value (NaN when unmeasured), the value again where it was
 * extrapolated (else NaN: the points that mark it) and 0 where it was not
 * measured at all (else NaN). A row after a gap in the VCPU's numbering
 * starts after a blank line, which breaks the line there. */
static void write_plot_data(FILE *data, const struct iv_set *s, enum timeline_x x)
{
    double tsc0 = s->count ? (double)s->rows[0].tsc_start : 0;
    double hz = s->tsc_hz ? (double)s->tsc_hz : 1.0;
    for (size_t i = 0; i < s->count; i++) {
        const struct iv_row *r = &s->rows[i];
        struct iv_events v;
        iv_row_events(s, r, &v);
        bool same_vcpu = i && r->domain == r[-1].domain && r->vcpu == r[-1].vcpu;
        if (i && !same_vcpu)
            fputs("\n\n", data);
        else if (same_vcpu && r->number != r[-1].number + 1)
            fputc('\n', data);
        if (x == TIMELINE_X_TIME)
            fprintf(data, "%.9f", ((double)r->tsc_start - tsc0) / hz);
        else
            fprintf(data, "%.6f", (double)r->x_instructions / 1e6);
        for (unsigned int e = 0; e < s->event_count; e++) {
            enum iv_how how = v.in_row[e] ? (enum iv_how)v.how[e] : IV_UNMEASURED;
            if (how == IV_UNMEASURED)
                fputs(" NaN NaN 0", data);
            else if (how == IV_SCALED)
                fprintf(data, " %" PRIu64 " %" PRIu64 " NaN", v.value[e], v.value[e]);
            else
                fprintf(data, " %" PRIu64 " NaN NaN", v.value[e]);
        }
        fputc('\n', data);
    }
}

static unsigned int vcpu_blocks(const struct iv_set *s)
{
    unsigned int n = s->count ? 1 : 0;
    for (size_t i = 1; i < s->count; i++)
        n += s->rows[i].domain != s->rows[i - 1].domain || s->rows[i].vcpu != s->rows[i - 1].vcpu;
    return n;
}

/* What one event's panel shows: its largest value, whether any row has it
 * extrapolated or unmeasured. */
struct panel {
    uint64_t max;
    bool extrapolated, unmeasured;
};

static struct panel panel_of(const struct iv_set *s, unsigned int e)
{
    struct panel pn = { 0, false, false };
    for (size_t i = 0; i < s->count; i++) {
        struct iv_events v;
        iv_row_events(s, &s->rows[i], &v);
        enum iv_how how = v.in_row[e] ? (enum iv_how)v.how[e] : IV_UNMEASURED;
        pn.extrapolated |= how == IV_SCALED;
        pn.unmeasured |= how == IV_UNMEASURED;
        if (how != IV_UNMEASURED && v.value[e] > pn.max)
            pn.max = v.value[e];
    }
    return pn;
}

/* Counts are never negative: the y axis starts at 0 and ends a little
 * above the largest value; below 10, whole-number ticks. */
static void put_y_axis(FILE *gp, const struct iv_set *s, unsigned int e, const struct panel *pn,
                       const char *per)
{
    char name[IV_NAME_MAX];
    uint64_t top = pn->max ? pn->max + pn->max / 12 + 1 : 1;
    fprintf(gp, "set yrange [0:%" PRIu64 "]\n", top);
    if (pn->max < 10)
        fputs("set ytics 1\nset format y '%.0f'\n", gp);
    else if (pn->max < 1000)
        fputs("set ytics autofreq\nset format y '%.0f'\n", gp);
    else
        fputs("set ytics autofreq\nset format y '%.1s%c'\n", gp);
    char label[IV_NAME_MAX + 80];
    snprintf(label, sizeof(label), "%s\n%s", iv_event_name(s, e, name, sizeof(name)), per);
    fputs("set ylabel ", gp);
    plot_quote_lines(gp, label);
    fputc('\n', gp);
}

/* VCPUs a panel shows one by one, each with its own colour and key
 * entry. gnuplot reads the data file again for every curve, so more VCPUs
 * are drawn as one curve (one colour, one key entry): the plot then takes
 * time linear in the rows, where a curve per VCPU took time growing with
 * the square of the VCPUs (20,000 VCPUs: minutes). */
#define PLOT_VCPUS_ONE_BY_ONE 16u

/* A curve of a panel: a data column (1-based), its style and its key
 * entry (NULL: each VCPU's name; else that title, on the first VCPU's
 * curve only). */
struct curve {
    unsigned int col;
    const char *style, *title;
};

/* Curve c for each VCPU, or one for them all; `first`: the plot's first
 * (it names the data file, the others reuse it as ''). */
static void put_curve(FILE *gp, const struct plot *p, unsigned int blocks, const struct curve *c,
                      bool first)
{
    if (!first)
        fputs(", \\\n     ", gp);
    if (blocks <= PLOT_VCPUS_ONE_BY_ONE)
        fprintf(gp, "for [i=0:%u] ", blocks - 1);
    if (first)
        plot_quote(gp, p->data);
    else
        fputs("''", gp);
    if (blocks > PLOT_VCPUS_ONE_BY_ONE && c->title)
        fprintf(gp, " using 1:%u with %s title '%s'", c->col, c->style, c->title);
    else if (blocks > PLOT_VCPUS_ONE_BY_ONE)
        fprintf(gp, " using 1:%u with %s title 'all %u VCPUs'", c->col, c->style, blocks);
    else if (c->title)
        fprintf(gp, " index i using 1:%u with %s title (i == 0 ? '%s' : '')", c->col, c->style,
                c->title);
    else
        fprintf(gp, " index i using 1:%u with %s title word(vcpus, i + 1)", c->col, c->style);
}

static void put_panel_plot(FILE *gp, const struct plot *p, const struct panel *pn,
                           unsigned int blocks, unsigned int e)
{
    const struct curve value = { 2 + 3 * e, "steps lw 1.2", NULL },
        extrapolated = { 3 + 3 * e, "points pt 6 ps 0.3 lc rgb '#d95f02'",
                         "extrapolated (shared a counter)" },
        unmeasured = { 4 + 3 * e, "points pt 2 ps 0.7 lc rgb '#e7298a'", "not measured (no value)" };
    fputs("plot ", gp);
    put_curve(gp, p, blocks, &value, true);
    if (pn->extrapolated)
        put_curve(gp, p, blocks, &extrapolated, false);
    if (pn->unmeasured)
        put_curve(gp, p, blocks, &unmeasured, false);
    fputc('\n', gp);
}

static void write_plot_script(FILE *gp, const struct plot *p, const struct iv_set *s,
                              const unsigned int *ev, unsigned int n, enum timeline_x x,
                              const char *png)
{
    char interval[32], per[64], platform[96], xlabel[256];
    plot_thousands(iv_interval_length(s), interval, sizeof(interval));
    snprintf(per, sizeof(per), "per %s instr.", interval);
    plot_platform(s->source, s->pmu_backend, platform, sizeof(platform));
    if (x == TIMELINE_X_TIME)
        snprintf(xlabel, sizeof(xlabel), "time (s, emulated time on %s: TSC ticks at %.3f MHz%s)",
                 platform, (double)s->tsc_hz / 1e6,
                 s->pmu_backend == LOG_PMU_SOFT ? ", one tick per emulated instruction" : "");
    else
        snprintf(xlabel, sizeof(xlabel), "the VCPU's retired instructions (millions), on %s",
                 platform);
    plot_png_header(gp, PLOT_WIDTH, PANEL_HEIGHT * n + TITLE_HEIGHT, png);
    fprintf(gp, "set multiplot layout %u,1 title ", n);
    char title[512], missing[160] = "";
    const char *slash = s->source ? strrchr(s->source, '/') : NULL;
    if (s->missing)
        snprintf(missing, sizeof(missing), "; %" PRIu64 " rows missing (the lines break there)",
                 s->missing);
    snprintf(title, sizeof(title), "Vertigo timeline of %s: each event's count per interval of %s "
             "retired instructions of a VCPU%s", slash ? slash + 1 : s->source ? s->source : "-",
             interval, missing);
    plot_quote(gp, title);
    fputs(" font 'sans,11'\nset lmargin 14\nset key tmargin right horizontal samplen 2\nset grid\n"
          "set offsets 0, 0, 0, 0\nset xrange [0:*]\nvcpus = '", gp);
    unsigned int blocks = vcpu_blocks(s);
    for (size_t i = 0; i < s->count && blocks <= PLOT_VCPUS_ONE_BY_ONE; i++)
        if (!i || s->rows[i].domain != s->rows[i - 1].domain ||
            s->rows[i].vcpu != s->rows[i - 1].vcpu)
            fprintf(gp, "%sd%u.v%u", i ? " " : "", s->rows[i].domain, s->rows[i].vcpu);
    fputs("'\n", gp);
    for (unsigned int k = 0; k < n; k++) {
        struct panel pn = panel_of(s, ev[k]);
        if (k + 1 == n) {
            fputs("set xlabel ", gp);
            plot_quote(gp, xlabel);
            fputc('\n', gp);
        }
        put_y_axis(gp, s, ev[k], &pn, per);
        put_panel_plot(gp, p, &pn, blocks, ev[k]);
    }
    fputs("unset multiplot\n", gp);
}

int timeline_plot(const struct iv_set *s, const unsigned int *ev, unsigned int n,
                  enum timeline_x x, const char *png, const char *keep_script)
{
    struct plot p;
    if (!s->count || !n) {
        fprintf(stderr, "vertigo timeline: no interval rows to plot\n");
        return VERTIGO_EXIT_USAGE;
    }
    if (!plot_open(&p, "timeline", keep_script))
        return VERTIGO_EXIT_USAGE;
    bool ok = false;
    FILE *data = fopen(p.data, "w");
    if (data) {
        write_plot_data(data, s, x);
        ok = !ferror(data);
        ok &= fclose(data) == 0;
    }
    FILE *gp = ok ? fopen(p.script, "w") : NULL;
    if (gp) {
        write_plot_script(gp, &p, s, ev, n, x, png);
        ok = !ferror(gp);
        ok &= fclose(gp) == 0;
    }
    if (!ok || !gp)
        return plot_fail(&p, "cannot write the plot's files");
    return plot_run(&p);
}
