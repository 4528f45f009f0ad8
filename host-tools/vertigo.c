/* vertigo: the host-side command, the one front door: boots (`run`),
 * decodes, summarizes, reports and exports. Dispatches to subcommands;
 * the work is in host-tools/cmd_*.c and the libraries they call. */
#include "host-tools/vertigo.h"
#include "host-tools/cmd_intervals.h"
#include "host-tools/profile.h"

#include <stdio.h>
#include <string.h>


static const struct vertigo_command commands[] = {
    { "run",    cmd_run,    "[OPTIONS]", cmd_run_help },
    { "decode", cmd_decode, "FILE|-", cmd_decode_help },
    { "stats",  cmd_stats,  "FILE|-", cmd_stats_help },
    { "report", cmd_report, "FILE|-", "symbolized flat profile (perf report style)" },
    { "script", cmd_script, "FILE|-", "every sample in time order (perf script style)" },
    { "export", cmd_export, "FILE|-", "write the profile as pprof, folded stacks, CSV or Perfetto JSON" },
    { "diff",   cmd_diff,   "A B", cmd_diff_help },
    { "top",    cmd_top,    "FILE", cmd_top_help },
    { "annotate", cmd_annotate, "SYMBOL FILE", "a function's samples per instruction (perf annotate style)" },
    { "check-frames", cmd_check_frames, "FILE|-", "check every frame against the binary it is named in" },
    { "timeline", cmd_timeline, "FILE|-", cmd_timeline_help },
    { "correlate", cmd_correlate, "FILE|-", cmd_correlate_help },
};

#define COMMAND_COUNT (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
    fprintf(out, "usage: vertigo COMMAND [ARGS]     vertigo help COMMAND     vertigo --version\n\n"
                 "commands:\n");
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        fprintf(out, "  %-12s %-7s %s\n", commands[i].name, commands[i].usage, commands[i].help);
    fprintf(out, "\n`vertigo COMMAND --help` (or `vertigo help COMMAND`) prints its options.\n"
                 "exit status: 0 clean, 1 unreadable file or I/O error, 2 bad command line,\n"
                 "3 log decoded but corruption or loss was reported, 4 no Vertigo log in the\n"
                 "input, 5 check-frames found invalid frames; `vertigo run` has its own\n"
                 "(see its --help)\n");
}

static const struct vertigo_command *find_command(const char *name)
{
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        if (!strcmp(name, commands[i].name))
            return &commands[i];
    return NULL;
}

static int unknown_command(const char *name)
{
    fprintf(stderr, "vertigo: unknown command '%s'\n", name);
    usage(stderr);
    return VERTIGO_EXIT_CMDLINE;
}

/* vertigo help [COMMAND]: the overview, or COMMAND --help; --version as
 * every command has it. */
static int help(int argc, char **argv)
{
    if (argc < 3 || !strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")) {
        usage(stdout);
        return VERTIGO_EXIT_OK;
    }
    if (argc == 3 && !strcmp(argv[2], "--version")) {
        vertigo_print_version(stdout);
        return VERTIGO_EXIT_OK;
    }
    const struct vertigo_command *c = find_command(argv[2]);
    if (!c)
        return unknown_command(argv[2]);
    char *help_argv[] = { argv[2], "--help", NULL };
    return c->run(2, help_argv);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return VERTIGO_EXIT_CMDLINE;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
        return help(1, argv);
    if (!strcmp(argv[1], "help"))
        return help(argc, argv);
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
        vertigo_print_version(stdout);
        return VERTIGO_EXIT_OK;
    }
    const struct vertigo_command *c = find_command(argv[1]);
    if (!c)
        return unknown_command(argv[1]);
    if (argc == 3 && !strcmp(argv[2], "--version")) {   /* every command, `run` included */
        vertigo_print_version(stdout);
        return VERTIGO_EXIT_OK;
    }
    return c->run(argc - 1, argv + 1);
}
