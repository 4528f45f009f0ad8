/* vertigo: the host-side command. Dispatches to subcommands; the work is
 * in host-tools/cmd_*.c and the libraries they call. */
#include "host-tools/vertigo.h"
#include "host-tools/profile.h"

#include <stdio.h>
#include <string.h>

static const struct vertigo_command commands[] = {
    { "decode", cmd_decode, "FILE|-", "print a profiling log, one record per line" },
    { "stats",  cmd_stats,  "FILE|-", "summarize a profiling log: records, CPUs, loss, time span" },
    { "report", cmd_report, "FILE|-", "symbolized flat profile (perf report style); --help for options" },
    { "export", cmd_export, "FILE|-", "write the profile as pprof, folded stacks or CSV; --help" },
};

#define COMMAND_COUNT (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
    fprintf(out, "usage: vertigo COMMAND [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        fprintf(out, "  %-8s %-8s %s\n", commands[i].name, commands[i].usage, commands[i].help);
    fprintf(out, "\nexit status: 0 clean, 1 usage or I/O error, 2 no Vertigo log in the input,\n"
                 "3 log decoded but corruption or loss was reported\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return VERTIGO_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return VERTIGO_EXIT_OK;
    }
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "vertigo: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return VERTIGO_EXIT_USAGE;
}
