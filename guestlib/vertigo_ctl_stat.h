/* vertigo-ctl stat [-e LIST] -- CMD [ARG...]: per-thread counters
 * (guestlib/vertigo_counters.h's events, default instructions,cycles)
 * around one command, printed in perf stat's shape
 * (guestlib/vertigo_ctl_stat.c). */
#ifndef GUESTLIB_VERTIGO_CTL_STAT_H
#define GUESTLIB_VERTIGO_CTL_STAT_H

/* argv = the words after "stat". Returns the command's exit status (128 +
 * N when signal N ended it), 1 when it could not run or its counts could
 * not be read, 2 for a usage error or an event list the library refuses,
 * 3 when not under Vertigo. */
int stat_main(int argc, char **argv);

#endif
