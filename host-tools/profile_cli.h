/* The command line of the profile commands (`vertigo report`, `script`,
 * `export`, `diff`, `annotate`, ...): the options they share, with perf's
 * names and short forms (--guest-root, --kallsyms, --vertigo-elf, -e
 * --event, -i --input, -c --comms, --pids, -d --dsos, -S --symbols,
 * --time, -q --quiet, --stdio), one argument loop around each command's
 * own options, and the run that follows it: load the log, hand the
 * profile to the command's writer, return the exit status. --help and
 * --version are answered here for every command that uses it. */
#ifndef HOST_TOOLS_PROFILE_CLI_H
#define HOST_TOOLS_PROFILE_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "host-tools/profile.h"

/* One option of a command besides the shared ones. A long option with a
 * value ("--sort KEY") also takes the form --sort=KEY; a short one
 * ("-s KEY") does not. An option whose value is missing (the last
 * argument) is an error that names it. */
struct profile_cli_option {
    /* "--children", "-o", or the spellings of one option separated by
     * '|', the first named in messages: "--sort|-s" (perf's short form). */
    const char *name;
    bool takes_value;
    /* Stores the option in the command's settings (value NULL for a
     * flag). Returns false after printing why the value is refused. */
    bool (*set)(void *settings, const char *value);
};

struct profile_cli_command {
    const char *name;            /* "report": messages start "vertigo report: " */
    const struct profile_cli_option *options;
    size_t option_count;
    /* Prints the whole usage, shared options (profile_options_help) included. */
    void (*usage)(FILE *out);
    /* Called after the last argument: false after a message when a
     * required option is missing. NULL when none is required. */
    bool (*complete)(const void *settings);
    /* Writes the profile loaded from input (a path or "-"); returns an
     * enum vertigo_exit. */
    int (*write)(const struct profile *p, const char *input, const void *settings);
    bool timeline;               /* the writer reads the samples' times */
    unsigned int inputs;         /* inputs it takes: 0 means 1 (`vertigo diff`: 2) */
    /* If not NULL, decides instead of `timeline` once the command line is
     * read (export needs the times for one format only: without them the
     * profile's memory does not grow with the number of samples). */
    bool (*needs_timeline)(const void *settings);
};

/* Runs command c on argv (argv[0] is its name), filling settings through
 * its options. Returns an enum vertigo_exit: OK after --help (the usage on
 * stdout) or --version; CMDLINE after a message and the usage on stderr
 * for an unknown or incomplete command line; otherwise the status of
 * loading the input (profile_load), or the writer's when the log gave a
 * profile (clean or damaged) and writing it failed. */
int profile_cli_run(const struct profile_cli_command *c, void *settings, int argc, char **argv);

/* The command line alone, for commands that read no profile (`vertigo
 * timeline`, `vertigo correlate`, `vertigo stats`): c's own options,
 * --help, --version and one input (-i FILE or the argument), no shared
 * option (c->write is not called). Returns -1 with *input set when the
 * command should run, else the exit status: OK after --help or
 * --version, CMDLINE after a message and the usage on stderr. */
int profile_cli_args(const struct profile_cli_command *c, void *settings, int argc, char **argv,
                     const char **input);

/* The shared options parsed with the inputs (c->inputs of them), for a
 * command that loads its profiles itself (`vertigo diff`): -1 to go on,
 * else the exit status as profile_cli_args. */
int profile_cli_parse(const struct profile_cli_command *c, struct profile_options *po,
                      void *settings, int argc, char **argv, const char **inputs);

/* The index in names[0..n-1] of value, for an option's setter; -1 after
 * "vertigo CMD: unknown WHAT 'VALUE' (name, name, ...)" on stderr. */
int profile_cli_choose(const char *cmd, const char *what, const char *value,
                       const char *const *names, size_t n);

/* Usage lines of the shared options. */
extern const char profile_options_help[];

#endif
