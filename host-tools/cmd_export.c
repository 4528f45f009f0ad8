/* vertigo export --format pprof|folded|csv [-o FILE] [options] FILE|-:
 * writes the profile of a log in a format other tools read. Parses the
 * options and calls one writer per format (export_<format>.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host-tools/profile.h"
#include "host-tools/vertigo.h"

struct export_format {
    const char *name;
    bool (*write)(FILE *out, const struct profile *p);
    bool binary;
};

static const struct export_format formats[] = {
    { "pprof", export_pprof, true },
    { "folded", export_folded, false },
    { "csv", export_csv, false },
};

#define FORMAT_COUNT (sizeof(formats) / sizeof(formats[0]))

struct export_args {
    const struct export_format *format;
    const char *output;          /* NULL: stdout */
    const char *input;
};

static void usage(FILE *out)
{
    fprintf(out, "usage: vertigo export --format pprof|folded|csv [-o FILE] [--guest-root DIR]\n"
                 "                      [--kallsyms FILE] [--vertigo-elf FILE] [--event E] FILE|-\n%s"
                 "  --format F          pprof (gzipped profile.proto), folded (flame-graph\n"
                 "                      stacks), csv (one row per event/domain/vcpu/mode/symbol)\n"
                 "  -o FILE             write there instead of standard output\n",
            profile_options_help);
}

static bool set_format(struct export_args *a, const char *name)
{
    for (size_t i = 0; i < FORMAT_COUNT; i++)
        if (!strcmp(name, formats[i].name)) {
            a->format = &formats[i];
            return true;
        }
    fprintf(stderr, "vertigo export: unknown format '%s' (pprof, folded, csv)\n", name);
    return false;
}

/* Returns 1 to go on, 0 after --help, -1 on a usage error. */
static int parse_args(int argc, char **argv, struct profile_options *po, struct export_args *a)
{
    for (int i = 1; i < argc;) {
        int r = profile_parse_option(po, "export", argc, argv, &i);
        if (r < 0)
            return -1;
        if (r > 0)
            continue;
        const char *arg = argv[i];
        bool has_value = i + 1 < argc;
        if (!strcmp(arg, "--format") && has_value) {
            if (!set_format(a, argv[++i]))
                return -1;
        } else if (!strncmp(arg, "--format=", 9)) {
            if (!set_format(a, arg + 9))
                return -1;
        } else if (!strcmp(arg, "-o") && has_value) {
            a->output = argv[++i];
        } else if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            usage(stdout);
            return 0;
        } else if ((arg[0] != '-' || !arg[1]) && !a->input) {
            a->input = arg;
        } else {
            fprintf(stderr, "vertigo export: unexpected argument '%s'\n", arg);
            return -1;
        }
        i++;
    }
    if (!a->format || !a->input) {
        fprintf(stderr, "vertigo export: %s\n", !a->format ? "--format is required"
                                                           : "no input (FILE or - for stdin)");
        return -1;
    }
    return 1;
}

static int write_output(const struct export_args *a, const struct profile *p)
{
    if (!a->output && a->format->binary && isatty(STDOUT_FILENO)) {
        fprintf(stderr, "vertigo export: not writing %s to a terminal; use -o FILE\n", a->format->name);
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

int cmd_export(int argc, char **argv)
{
    struct profile_options po = { 0 };
    struct export_args a = { 0 };
    int r = parse_args(argc, argv, &po, &a);
    if (r <= 0) {
        if (r < 0)
            usage(stderr);
        return r < 0 ? VERTIGO_EXIT_USAGE : VERTIGO_EXIT_OK;
    }
    struct profile p;
    int status = profile_load(&p, "export", a.input, &po);
    if (status == VERTIGO_EXIT_OK || status == VERTIGO_EXIT_DAMAGED) {
        int w = write_output(&a, &p);
        if (w != VERTIGO_EXIT_OK)
            status = w;
    }
    profile_free(&p);
    return status;
}
