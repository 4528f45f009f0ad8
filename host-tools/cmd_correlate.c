/* vertigo correlate [--format text|csv|png] [-o FILE] [--events LIST]
 * [--tsc FROM:TO] [--intervals FIRST:LAST] FILE|-: Pearson's correlation
 * matrix of the events across the interval rows (correlate.c), with the
 * number of intervals it stands on; as text, CSV or a heat-map PNG. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host-tools/cmd_intervals.h"
#include "host-tools/correlate.h"
#include "host-tools/plot.h"
#include "host-tools/text_quote.h"
#include "host-tools/vertigo.h"

#define CELL_PIXELS 40u
#define LABEL_PIXELS 220u

enum corr_format { FMT_TEXT, FMT_CSV, FMT_PNG };

struct correlate_args {
    enum corr_format format;
    const char *output;
    const char *events;
    struct corr_range range;
};

static void usage(FILE *out)
{
    fprintf(out, "usage: vertigo correlate [--format text|csv|png] [-o FILE] [--events LIST]\n"
                 "                         [--tsc FROM:TO] [--intervals FIRST:LAST] FILE|-\n"
                 "  Pearson's r between the events across the interval rows (pmu.interval=), each\n"
                 "  row giving every event's extrapolated count per retired instruction; rows\n"
                 "  where an event went unmeasured are left out; the number of rows used is shown\n"
                 "  --format F          text (default), csv (the matrix, the first cell\n"
                 "                      intervals=N), png (a heat map; needs -o)\n"
                 "  -o FILE             write there instead of standard output\n"
                 "  --events LIST       only these events (names or ids, comma-separated)\n"
                 "  --tsc FROM:TO       only rows that lie within these TSC values\n"
                 "  --intervals A:B     only rows numbered A to B\n");
}

static bool set_format(void *settings, const char *name)
{
    static const char *const names[] = { "text", "csv", "png" };
    int i = profile_cli_choose("correlate", "format", name, names, sizeof(names) / sizeof(names[0]));
    if (i >= 0)
        ((struct correlate_args *)settings)->format = (enum corr_format)i;
    return i >= 0;
}

static bool set_output(void *settings, const char *path)
{
    ((struct correlate_args *)settings)->output = path;
    return true;
}

static bool set_events(void *settings, const char *list)
{
    ((struct correlate_args *)settings)->events = list;
    return true;
}

/* "A:B" with A <= B, decimal or 0x; false after a message. */
static bool parse_span(const char *option, const char *text, uint64_t *from, uint64_t *to)
{
    char *end;
    errno = 0;
    unsigned long long a = strtoull(text, &end, 0);
    bool ok = end != text && *end == ':' && text[0] != '-';
    const char *second = end + 1;
    unsigned long long b = ok ? strtoull(second, &end, 0) : 0;
    ok = ok && end != second && !*end && *second != '-' && errno == 0 && a <= b;
    if (!ok) {
        fprintf(stderr, "vertigo correlate: %s '%s': expected FROM:TO, two numbers with "
                "FROM <= TO\n", option, text);
        return false;
    }
    *from = a;
    *to = b;
    return true;
}

static bool set_tsc(void *settings, const char *text)
{
    struct corr_range *r = &((struct correlate_args *)settings)->range;
    return parse_span("--tsc", text, &r->tsc_from, &r->tsc_to);
}

static bool set_intervals(void *settings, const char *text)
{
    struct corr_range *r = &((struct correlate_args *)settings)->range;
    return parse_span("--intervals", text, &r->first, &r->last);
}

static bool complete(const void *settings)
{
    const struct correlate_args *a = settings;
    if (a->format != FMT_PNG || a->output)
        return true;
    fprintf(stderr, "vertigo correlate: --format png needs -o FILE\n");
    return false;
}

/* ---- Writers ---------------------------------------------------------------- */

static struct corr_matrix matrix;   /* 8 KiB: one per run */

static bool write_text(FILE *out, const struct iv_set *s, const unsigned int *ev, unsigned int n,
                       const void *settings)
{
    (void)ev, (void)n, (void)settings;
    char name[IV_NAME_MAX];
    fprintf(out, "# %" PRIu64 " intervals; Pearson's r of each event's count per retired "
            "instruction (- : an event constant over them)\n%28s", matrix.intervals, "");
    for (unsigned int b = 0; b < matrix.n; b++)
        fprintf(out, " %6u", b);
    fputc('\n', out);
    for (unsigned int a = 0; a < matrix.n; a++) {
        char shown[25];              /* the name's first 24 bytes, in a 24-byte column */
        snprintf(shown, sizeof(shown), "%s", iv_event_name(s, matrix.ev[a], name, sizeof(name)));
        fprintf(out, "%3u ", a);
        text_put_padded(out, shown, sizeof(shown) - 1);
        for (unsigned int b = 0; b < matrix.n; b++) {
            if (isnan(matrix.r[a][b]))
                fprintf(out, " %6s", "-");
            else
                fprintf(out, " %6.3f", matrix.r[a][b]);
        }
        fputc('\n', out);
    }
    return !ferror(out);
}

static bool write_csv(FILE *out, const struct iv_set *s, const unsigned int *ev, unsigned int n,
                      const void *settings)
{
    (void)ev, (void)n, (void)settings;
    char name[IV_NAME_MAX];
    fprintf(out, "intervals=%" PRIu64, matrix.intervals);
    for (unsigned int b = 0; b < matrix.n; b++) {
        fputc(',', out);
        csv_put_field(out, iv_event_name(s, matrix.ev[b], name, sizeof(name)), ',');
    }
    fputc('\n', out);
    for (unsigned int a = 0; a < matrix.n; a++) {
        csv_put_field(out, iv_event_name(s, matrix.ev[a], name, sizeof(name)), ',');
        for (unsigned int b = 0; b < matrix.n; b++) {
            if (isnan(matrix.r[a][b]))
                fputc(',', out);
            else
                fprintf(out, ",%.6f", matrix.r[a][b]);
        }
        fputc('\n', out);
    }
    return !ferror(out);
}

static void put_tics(FILE *gp, const struct iv_set *s, const char *axis)
{
    char name[IV_NAME_MAX];
    fprintf(gp, "set %s (", axis);
    for (unsigned int k = 0; k < matrix.n; k++) {
        plot_quote(gp, iv_event_name(s, matrix.ev[k], name, sizeof(name)));
        fprintf(gp, " %u%s", k, k + 1 < matrix.n ? ", " : ")\n");
    }
}

static void write_heat_map_script(FILE *gp, const struct plot *p, const struct iv_set *s,
                                  const char *png)
{
    unsigned int side = LABEL_PIXELS + CELL_PIXELS * matrix.n;
    plot_png_header(gp, side + 80, side, png);
    fprintf(gp, "set title 'Pearson r over %" PRIu64 " intervals'\n"
                "set palette defined (-1 'blue', 0 'white', 1 'red')\nset cbrange [-1:1]\n"
                "set xrange [-0.5:%u.5]\nset yrange [%u.5:-0.5]\nset xtics rotate by 60 right\n"
                "set size square\n", matrix.intervals, matrix.n - 1, matrix.n - 1);
    put_tics(gp, s, "xtics");
    put_tics(gp, s, "ytics");
    fputs("plot ", gp);
    plot_quote(gp, p->data);
    fputs(" matrix with image notitle\n", gp);
}

static int write_heat_map(const struct iv_set *s, const char *png)
{
    struct plot p;
    if (!plot_open(&p, "correlate"))
        return VERTIGO_EXIT_USAGE;
    FILE *data = fopen(p.data, "w");
    bool ok = data != NULL;
    for (unsigned int a = 0; ok && a < matrix.n; a++)
        for (unsigned int b = 0; b < matrix.n; b++) {
            if (isnan(matrix.r[a][b]))
                fputs("NaN", data);
            else
                fprintf(data, "%.4f", matrix.r[a][b]);
            fputc(b + 1 < matrix.n ? ' ' : '\n', data);
        }
    ok = ok && !ferror(data);
    ok &= data ? fclose(data) == 0 : false;
    FILE *gp = ok ? fopen(p.script, "w") : NULL;
    if (gp) {
        write_heat_map_script(gp, &p, s, png);
        ok = !ferror(gp);
        ok &= fclose(gp) == 0;
    }
    if (!ok || !gp)
        return plot_fail(&p, "cannot write the plot's scratch files");
    return plot_run(&p);
}

static int write_matrix(const struct iv_set *s, const unsigned int *ev, unsigned int n,
                        const void *settings)
{
    const struct correlate_args *a = settings;
    corr_compute(s, ev, n, &a->range, &matrix);
    if (matrix.intervals < 2) {
        fprintf(stderr, "vertigo correlate: %" PRIu64 " interval%s in the chosen range: a "
                "correlation needs at least 2\n", matrix.intervals,
                matrix.intervals == 1 ? "" : "s");
        return VERTIGO_EXIT_USAGE;
    }
    if (a->format == FMT_PNG)
        return write_heat_map(s, a->output);
    return intervals_write_file("correlate", a->output, s, ev, n, a,
                                a->format == FMT_CSV ? write_csv : write_text);
}

static const struct profile_cli_option options[] = {
    { "--format", true, set_format },
    { "-o", true, set_output },
    { "--events", true, set_events },
    { "--tsc", true, set_tsc },
    { "--intervals", true, set_intervals },
};

const char cmd_correlate_help[] = "correlation matrix of the events across interval rows";

int cmd_correlate(int argc, char **argv)
{
    static const struct profile_cli_command command = {
        .name = "correlate", .options = options, .option_count = sizeof(options) / sizeof(options[0]),
        .usage = usage, .complete = complete,
    };
    struct correlate_args a = { .format = FMT_TEXT, .range = CORR_ALL };
    return intervals_run(&command, &a, argc, argv, &a.events, write_matrix);
}
