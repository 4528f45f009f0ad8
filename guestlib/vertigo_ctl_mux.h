/* vertigo-ctl mux: an interval multiplexing session of the VCPU it runs
 * on, started and stopped from the guest (VERTIGO_HC_MUX_START / _STOP,
 * through /dev/vertigo), optionally around one command
 * (guestlib/vertigo_ctl_mux.c). */
#ifndef GUESTLIB_VERTIGO_CTL_MUX_H
#define GUESTLIB_VERTIGO_CTL_MUX_H

/* argv = the words after "mux":
 *   -e LIST -I N [-S S] [-C CPU] [-- CMD [ARG...]]   start (and run CMD)
 *   --stop [-C CPU]                                  stop
 * Returns 0 done (with CMD: the command's exit status, 128 + N when
 * signal N ended it), 1 when Vertigo or /dev/vertigo refused, 2 for a
 * usage error, 3 when not under Vertigo. */
int mux_main(int argc, char **argv);

#endif
