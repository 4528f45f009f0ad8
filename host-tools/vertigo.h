/* The `vertigo` command: its subcommand table and exit statuses. Each
 * subcommand lives in its own file (host-tools/cmd_<name>.c) and is one
 * row of the table in host-tools/vertigo.c. */
#ifndef HOST_TOOLS_VERTIGO_H
#define HOST_TOOLS_VERTIGO_H

#include <stdio.h>

/* Exit statuses shared by every subcommand but `vertigo run`, which has
 * its own (host-tools/vertigo-run; docs/user-guide.md has both). A wrong
 * command line exits 2, as usual for Unix commands; each data error has
 * a code of its own. */
enum vertigo_exit {
    VERTIGO_EXIT_OK = 0,        /* clean */
    VERTIGO_EXIT_USAGE = 1,     /* unreadable file, I/O error, unknown event,
                                 * out of memory (the name predates
                                 * VERTIGO_EXIT_CMDLINE) */
    VERTIGO_EXIT_CMDLINE = 2,   /* unknown command or option, missing argument */
    VERTIGO_EXIT_DAMAGED = 3,   /* decoded, but corruption or loss reported */
    VERTIGO_EXIT_NO_LOG = 4,    /* the input holds no Vertigo log */
    VERTIGO_EXIT_INVALID = 5,   /* check-frames: frames the binaries contradict */
};

/* Values of the log whose sum or product passes 2^64 - 1 (log_arith.h):
 * the log is corrupt, as for any record out of range. */
#define VERTIGO_EXIT_OVERFLOW VERTIGO_EXIT_DAMAGED

struct vertigo_command {
    const char *name;
    /* argv[0] is the subcommand name; returns an enum vertigo_exit. */
    int (*run)(int argc, char **argv);
    const char *usage;          /* arguments, e.g. "FILE|-" */
    const char *help;           /* one line */
};

/* "vertigo VERSION" and the log format version it reads, two lines
 * (host-tools/vertigo_version.c). */
void vertigo_print_version(FILE *out);

int cmd_decode(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_check_frames(int argc, char **argv);
int cmd_annotate(int argc, char **argv);

/* One-line descriptions (the table's and the commands' own --help). */
extern const char cmd_decode_help[];
extern const char cmd_stats_help[];
extern const char cmd_run_help[];

#endif
