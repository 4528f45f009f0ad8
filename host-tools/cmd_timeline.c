/* vertigo timeline [--format csv|tsv|json|png] [-o FILE] [--events LIST]
 * [--x time|instructions] FILE|-: the rows of interval multiplexing
 * sessions (one per VCPU and interval of N retired instructions), every
 * event extrapolated from its turns on the counters, as a table, a Chrome
 * Trace Event JSON or a PNG (timeline_write.c). */
#include <string.h>

#include "host-tools/cmd_intervals.h"
#include "host-tools/timeline_write.h"

enum timeline_format { FMT_CSV, FMT_TSV, FMT_JSON, FMT_PNG };

struct timeline_args {
    enum timeline_format format;
    enum timeline_x x;
    const char *output;          /* NULL: stdout */
    const char *events;          /* NULL: all */
    const char *script;          /* --gnuplot-script: keep the PNG's script there */
};

static void usage(FILE *out)
{
    fprintf(out, "usage: vertigo timeline [--format csv|tsv|json|png] [-o FILE] [--events LIST]\n"
                 "                        [--x time|instructions] FILE|-\n"
                 "  the interval rows of the log (pmu.interval=): one line per VCPU and interval,\n"
                 "  each event's extrapolated value, raw count, instructions on a counter and how\n"
                 "  it was obtained (measured, extrapolated, unmeasured)\n"
                 "  --format F          csv (default), tsv, json (Chrome Trace Event format: a\n"
                 "                      counter track per event, for ui.perfetto.dev or\n"
                 "                      chrome://tracing), png (one panel per event; needs -o)\n"
                 "  -o FILE             write there instead of standard output (-: standard output)\n"
                 "  --events LIST       only these events (names or ids, comma-separated)\n"
                 "  --x time|instructions  the x axis of json and png (default time)\n"
                 "  --gnuplot-script FILE  keep the PNG's gnuplot script in FILE (its data in\n"
                 "                      FILE.dat), to read or change it\n"
                 "  -i, --input FILE    the log (the same as giving FILE; - for stdin)\n"
                 "  -h, --help          this text;  --version  the version\n");
}

static bool set_format(void *settings, const char *name)
{
    static const char *const names[] = { "csv", "tsv", "json", "png" };
    int i = profile_cli_choose("timeline", "format", name, names, sizeof(names) / sizeof(names[0]));
    if (i >= 0)
        ((struct timeline_args *)settings)->format = (enum timeline_format)i;
    return i >= 0;
}

static bool set_x(void *settings, const char *name)
{
    static const char *const names[] = { "time", "instructions" };
    int i = profile_cli_choose("timeline", "x axis", name, names, sizeof(names) / sizeof(names[0]));
    if (i >= 0)
        ((struct timeline_args *)settings)->x = i ? TIMELINE_X_INSTRUCTIONS : TIMELINE_X_TIME;
    return i >= 0;
}

static bool set_output(void *settings, const char *path)
{
    ((struct timeline_args *)settings)->output = strcmp(path, "-") ? path : NULL;   /* -: stdout */
    return true;
}

static bool set_events(void *settings, const char *list)
{
    ((struct timeline_args *)settings)->events = list;
    return true;
}

static bool set_script(void *settings, const char *path)
{
    ((struct timeline_args *)settings)->script = path;
    return true;
}

static bool complete(const void *settings)
{
    const struct timeline_args *a = settings;
    if (a->script && a->format != FMT_PNG) {
        fprintf(stderr, "vertigo timeline: --gnuplot-script goes with --format png\n");
        return false;
    }
    if (a->format != FMT_PNG || a->output)
        return true;
    fprintf(stderr, "vertigo timeline: --format png needs -o FILE\n");
    return false;
}

static bool write_text(FILE *out, const struct iv_set *s, const unsigned int *ev, unsigned int n,
                       const void *settings)
{
    const struct timeline_args *a = settings;
    if (a->format == FMT_JSON)
        return timeline_write_trace(out, s, ev, n, a->x);
    return timeline_write_table(out, s, ev, n, a->format == FMT_TSV ? '\t' : ',');
}

static int write_rows(const struct iv_set *s, const unsigned int *ev, unsigned int n,
                      const void *settings)
{
    const struct timeline_args *a = settings;
    if (a->format == FMT_PNG)
        return timeline_plot(s, ev, n, a->x, a->output, a->script);
    return intervals_write_file("timeline", a->output, s, ev, n, a, write_text);
}

static const struct profile_cli_option options[] = {
    { "--format", true, set_format },
    { "-o", true, set_output },
    { "--events", true, set_events },
    { "--x", true, set_x },
    { "--gnuplot-script", true, set_script },
};

const char cmd_timeline_help[] = "interval rows (pmu.interval=) as CSV/TSV, trace JSON or PNG";

int cmd_timeline(int argc, char **argv)
{
    static const struct profile_cli_command command = {
        .name = "timeline", .options = options, .option_count = sizeof(options) / sizeof(options[0]),
        .usage = usage, .complete = complete,
    };
    struct timeline_args a = { .format = FMT_CSV, .x = TIMELINE_X_TIME };
    return intervals_run(&command, &a, argc, argv, &a.events, write_rows);
}
