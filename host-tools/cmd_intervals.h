/* What `vertigo timeline` and `vertigo correlate` share: the command line
 * (profile_cli_args: their own options, no symbol options), loading the
 * interval rows of the input, choosing the events, writing a text output
 * to a file or standard output. */
#ifndef HOST_TOOLS_CMD_INTERVALS_H
#define HOST_TOOLS_CMD_INTERVALS_H

#include <stdbool.h>
#include <stdio.h>

#include "host-tools/interval_rows.h"
#include "host-tools/profile_cli.h"

/* Writes the output for the chosen events ev[0..n-1]; an enum vertigo_exit. */
typedef int (*intervals_writer)(const struct iv_set *s, const unsigned int *ev, unsigned int n,
                                const void *settings);

/* Parses argv into settings, loads the rows of the input, picks the
 * events of *events (read after parsing; NULL: all) and calls write.
 * Returns an enum vertigo_exit: the command line's, the input's, write's
 * when it failed, else OK or DAMAGED (loss in the log, rows missing). A
 * log without interval rows is an error (USAGE) that says so. */
int intervals_run(const struct profile_cli_command *c, void *settings, int argc, char **argv,
                  const char *const *events, intervals_writer write);

/* Opens path (NULL: stdout) for writing, calls fn and closes it; USAGE
 * after "vertigo CMD: PATH: why" when that fails, else OK. */
int intervals_write_file(const char *cmd, const char *path, const struct iv_set *s,
                         const unsigned int *ev, unsigned int n, const void *settings,
                         bool (*fn)(FILE *out, const struct iv_set *s, const unsigned int *ev,
                                    unsigned int n, const void *settings));

int cmd_timeline(int argc, char **argv);
int cmd_correlate(int argc, char **argv);
extern const char cmd_timeline_help[];
extern const char cmd_correlate_help[];

#endif
