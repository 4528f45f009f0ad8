/* Reading a log for the vertigo subcommands: a file or "-" (stdin, a
 * pipe that may still be growing) fed through a decoder, and the mapping
 * of the decoder's verdict to an exit status with a message. */
#ifndef HOST_TOOLS_LOG_INPUT_H
#define HOST_TOOLS_LOG_INPUT_H

#include <stdio.h>

#include "host-tools/logdec.h"

/* Feeds all of path ("-" for stdin) to dec and finishes it. Returns 0, or
 * VERTIGO_EXIT_USAGE after printing "CMD: PATH: reason" on an I/O error. */
int log_input_decode(const char *cmd, const char *path, struct logdec *dec);

/* Feeds the rest of in (named path in messages) to dec and finishes it.
 * Returns 0, or VERTIGO_EXIT_USAGE after "vertigo CMD: PATH: read error". */
int log_input_feed(const char *cmd, const char *path, FILE *in, struct logdec *dec);

/* path opened so that it can be read more than once (rewind): a regular
 * file as it is; "-" (stdin), a pipe (`<(...)`) or a device copied into a
 * temporary file first. NULL after "vertigo CMD: PATH: reason" on stderr. */
FILE *log_input_open_twice(const char *cmd, const char *path);

/* The exit status for a finished decoder; prints a one-line diagnosis to
 * stderr when the input held no log or was damaged. */
int log_input_exit_status(const char *cmd, const char *path, const struct logdec *dec);

/* Standard output flushed after a command wrote it: status, or
 * VERTIGO_EXIT_USAGE after "vertigo CMD: standard output: REASON" when
 * something could not be written (a full disk, a closed pipe). */
int log_output_status(const char *cmd, int status);

#endif
