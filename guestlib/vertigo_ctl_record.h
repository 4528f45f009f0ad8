/* vertigo-ctl record: a sampling session around one command, of its
 * process only (guestlib/vertigo_ctl_record.c). */
#ifndef GUESTLIB_VERTIGO_CTL_RECORD_H
#define GUESTLIB_VERTIGO_CTL_RECORD_H

#include "vertigo/hypercall.h"

/* Runs cmd (cmd[0] looked up in PATH) with session s scoped to its
 * process: the command stops at its exec, its identity (and, with the
 * guest agent installed, its maps) goes to the log, start(s) starts the
 * session with VERTIGO_SESSION_PROCESS and the new page-table root, the
 * command runs, stop() ends the session when it exits. start and stop
 * print their own results and return 0 or an exit status. Returns the
 * command's exit status (128 + N when signal N ended it), or 1 when it
 * could not run or the session could not start (the command is killed
 * then). */
int record_run(struct vertigo_session *s, char **cmd,
               int (*start)(const struct vertigo_session *s), int (*stop)(void));

#endif
