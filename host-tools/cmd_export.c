/* vertigo export --format pprof|folded|csv|perfetto|pftrace [-o FILE] [options] FILE|-:
 * writes the profile of a log in a format other tools read. Its own
 * options and the chosen writer (one per format, export_<format>.c); the
 * shared command line is profile_cli.c's. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host-tools/profile_cli.h"
#include "host-tools/vertigo.h"

struct export_format {
    const char *name;
    bool (*write)(FILE *out, const struct profile *p);
    bool binary;
    /* Whether the format can hold the profile (NULL: any), else why not. */
    bool (*fits)(const struct profile *p, char *err, size_t err_len);
    bool timeline;               /* writes every sample at its time */
};

static const struct export_format formats[] = {
    { "pprof", export_pprof, true, export_pprof_fits, false },
    { "folded", export_folded, false, NULL, false },
    { "csv", export_csv, false, NULL, false },
    { "perfetto", export_perfetto, false, NULL, true },
    { "pftrace", export_pftrace, true, NULL, true },
};

#define FORMAT_COUNT (sizeof(formats) / sizeof(formats[0]))

struct export_args {
    const struct export_format *format;
    const char *output;          /* NULL: stdout */
};

static void usage(FILE *out)
{
    fprintf(out, "usage: vertigo export --format pprof|folded|csv|perfetto|pftrace [-o FILE] [-q]\n"
                 "                      [--time RANGES] [-e E] [-c C] [--pids P] [-d D] [-S S]\n"
                 "                      [--guest-root [DOM=]DIR] [--kallsyms [DOM=]FILE]\n"
                 "                      [--vertigo-elf FILE] [-i] FILE|-\n"
                 "Writes the profile of a log in a format other tools read.\n%s"
                 "  --format F          pprof (gzipped profile.proto), folded (flame-graph\n"
                 "                      stacks), csv (one row per event/domain/vcpu/mode/symbol),\n"
                 "                      perfetto (Chrome Trace Event JSON: samples in time order\n"
                 "                      on one track per VCPU, stacks in stackFrames: catapult\n"
                 "                      and chrome://tracing show them, ui.perfetto.dev does not),\n"
                 "                      pftrace (Perfetto's protobuf trace: every sample with its\n"
                 "                      call stack, for ui.perfetto.dev and trace_processor)\n"
                 "  -o FILE             write there instead of standard output (-: standard output)\n",
            profile_options_help);
}

static bool set_format(void *settings, const char *name)
{
    struct export_args *a = settings;
    for (size_t i = 0; i < FORMAT_COUNT; i++)
        if (!strcmp(name, formats[i].name)) {
            a->format = &formats[i];
            return true;
        }
    fprintf(stderr, "vertigo export: unknown format '%s' (pprof, folded, csv, perfetto, pftrace)\n", name);
    return false;
}

static bool set_output(void *settings, const char *path)
{
    ((struct export_args *)settings)->output = strcmp(path, "-") ? path : NULL;   /* -: stdout */
    return true;
}

static bool has_format(const void *settings)
{
    if (((const struct export_args *)settings)->format)
        return true;
    fprintf(stderr, "vertigo export: --format is required\n");
    return false;
}

/* Only Perfetto's trace needs each sample's time; the other formats read
 * the aggregated profile, whose size does not grow with the samples. */
static bool needs_timeline(const void *settings)
{
    return ((const struct export_args *)settings)->format->timeline;
}

static int write_output(const struct profile *p, const char *input, const void *settings)
{
    const struct export_args *a = settings;
    (void)input;
    if (!a->output && a->format->binary && isatty(STDOUT_FILENO)) {
        fprintf(stderr, "vertigo export: not writing %s to a terminal; use -o FILE\n", a->format->name);
        return VERTIGO_EXIT_USAGE;
    }
    char why[256];
    if (a->format->fits && !a->format->fits(p, why, sizeof(why))) {
        fprintf(stderr, "vertigo export: %s\n", why);
        return VERTIGO_EXIT_USAGE;
    }
    FILE *out = a->output ? fopen(a->output, a->format->binary ? "wb" : "w") : stdout;
    if (!out) {
        fprintf(stderr, "vertigo export: %s: %s\n", a->output, strerror(errno));
        return VERTIGO_EXIT_USAGE;
    }
    bool ok = a->format->write(out, p);
    ok &= out == stdout ? fflush(out) == 0 : fclose(out) == 0;
    if (!ok) {
        fprintf(stderr, "vertigo export: %s: write error\n", a->output ? a->output : "stdout");
        return VERTIGO_EXIT_USAGE;
    }
    return VERTIGO_EXIT_OK;
}

static const struct profile_cli_option export_cli_options[] = {
    { "--format", true, set_format },
    { "-o", true, set_output },
};

static const struct profile_cli_command export_command = {
    .name = "export",
    .options = export_cli_options,
    .option_count = sizeof(export_cli_options) / sizeof(export_cli_options[0]),
    .usage = usage,
    .complete = has_format,
    .write = write_output,
    .needs_timeline = needs_timeline,
};

int cmd_export(int argc, char **argv)
{
    struct export_args a = { 0 };
    return profile_cli_run(&export_command, &a, argc, argv);
}
