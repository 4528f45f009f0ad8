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
#define LABELLED_MAX 24u          /* events whose cells carry their r */
#define UNDEFINED_COLOUR "#a0a0a0"
#define UNDEFINED_VALUE "2"       /* an undefined r in the plot's data: no r is above 1 */

enum corr_format { FMT_TEXT, FMT_CSV, FMT_PNG };

struct correlate_args {
    enum corr_format format;
    const char *output;
    const char *events;
    struct corr_range range;
    const char *script;          /* --gnuplot-script: keep the PNG's script there */
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
                 "  -o FILE             write there instead of standard output (-: standard output)\n"
                 "  --events LIST       only these events (names or ids, comma-separated)\n"
                 "  --tsc FROM:TO       only rows that lie within these TSC values\n"
                 "  --intervals A:B     only rows numbered A to B\n"
                 "  --gnuplot-script FILE  keep the PNG's gnuplot script in FILE (its data in\n"
                 "                      FILE.dat), to read or change it\n"
                 "  -i, --input FILE    the log (the same as giving FILE; - for stdin)\n"
                 "  -h, --help          this text;  --version  the version\n"
                 "  An event constant over the rows has no r (undefined): text and csv show it\n"
                 "  as - and an empty cell, png as a grey cell marked undef\n");
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
    ((struct correlate_args *)settings)->output = strcmp(path, "-") ? path : NULL;   /* -: stdout */
    return true;
}

static bool set_events(void *settings, const char *list)
{
    ((struct correlate_args *)settings)->events = list;
    return true;
}

static bool set_script(void *settings, const char *path)
{
    ((struct correlate_args *)settings)->script = path;
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
    if (a->script && a->format != FMT_PNG) {
        fprintf(stderr, "vertigo correlate: --gnuplot-script goes with --format png\n");
        return false;
    }
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

static bool any_undefined(void)
{
    for (unsigned int a = 0; a < matrix.n; a++)
        for (unsigned int b = 0; b < matrix.n; b++)
            if (isnan(matrix.r[a][b]))
                return true;
    return false;
}

/* Cells are coloured by r (blue -1, white 0, red 1) and, up to
 * LABELLED_MAX events, carry their value; an undefined r is grey, on the
 * grey background the image leaves uncovered there, with "undef" and its
 * own legend entry, so it can never pass for r = 0. */
static void write_heat_map_script(FILE *gp, const struct plot *p, const struct iv_set *s,
                                  const char *png)
{
    unsigned int side = LABEL_PIXELS + CELL_PIXELS * matrix.n;
    const char *slash = s->source ? strrchr(s->source, '/') : NULL;
    char title[512];
    snprintf(title, sizeof(title), "Pearson r of the events' counts per retired instruction,\n"
             "over %" PRIu64 " intervals of %s", matrix.intervals,
             slash ? slash + 1 : s->source ? s->source : "-");
    plot_png_header(gp, side + 160, side + 60, png);
    fputs("set title ", gp);
    plot_quote_lines(gp, title);
    fprintf(gp, " font 'sans,11'\n"
                "set palette defined (-1 'blue', 0 'white', 1 'red')\nset cbrange [-1:1]\n"
                "set cblabel 'Pearson r (-1 to 1)'\n"
                "set xrange [-0.5:%u.5]\nset yrange [%u.5:-0.5]\nset xtics rotate by 60 right\n"
                "set size square\nset key below\n"
                "set object 1 rectangle from -0.5,-0.5 to %u.5,%u.5 behind fillcolor rgb '%s' "
                "fillstyle solid noborder\n", matrix.n - 1, matrix.n - 1, matrix.n - 1,
            matrix.n - 1, UNDEFINED_COLOUR);
    put_tics(gp, s, "xtics");
    put_tics(gp, s, "ytics");
    fputs("plot ", gp);
    plot_quote(gp, p->data);
    fputs(" matrix using 1:2:($3 > 1 ? NaN : $3) with image notitle", gp);
    if (matrix.n <= LABELLED_MAX)          /* white on the darker cells */
        fputs(", \\\n     '' matrix using 1:2:($3 > 1 ? 'undef' : abs($3) < 0.6 ? "
              "sprintf('%.2f', $3) : '') with labels font 'sans,7' notitle, \\\n"
              "     '' matrix using 1:2:($3 <= 1 && abs($3) >= 0.6 ? sprintf('%.2f', $3) : '') "
              "with labels font 'sans,7' tc rgb 'white' notitle", gp);
    if (any_undefined())
        fprintf(gp, ", \\\n     keyentry with boxes fillstyle solid fc rgb '%s' "
                "title 'undefined r: an event constant over these intervals'", UNDEFINED_COLOUR);
    fputc('\n', gp);
}

static int write_heat_map(const struct iv_set *s, const char *png, const char *keep_script)
{
    struct plot p;
    if (!plot_open(&p, "correlate", keep_script))
        return VERTIGO_EXIT_USAGE;
    FILE *data = fopen(p.data, "w");
    bool ok = data != NULL;
    for (unsigned int a = 0; ok && a < matrix.n; a++)
        for (unsigned int b = 0; b < matrix.n; b++) {
            if (isnan(matrix.r[a][b]))          /* gnuplot warns of NaN in a matrix */
                fputs(UNDEFINED_VALUE, data);
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
        return plot_fail(&p, "cannot write the plot's files");
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
        return write_heat_map(s, a->output, a->script);
    return intervals_write_file("correlate", a->output, s, ev, n, a,
                                a->format == FMT_CSV ? write_csv : write_text);
}

static const struct profile_cli_option options[] = {
    { "--format", true, set_format },
    { "-o", true, set_output },
    { "--events", true, set_events },
    { "--tsc", true, set_tsc },
    { "--intervals", true, set_intervals },
    { "--gnuplot-script", true, set_script },
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
