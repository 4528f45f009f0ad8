/* The program's argv from the module's arguments. Portable: unit-tested on
 * the host. */
#ifndef GUESTLIB_UNIKERNEL_UK_ARGS_H
#define GUESTLIB_UNIKERNEL_UK_ARGS_H

/* Splits `line` in place at spaces (the space after each word becomes a
 * NUL) into argv[first..], at most `max` entries in all (argv[0..first) are
 * the caller's; further words are dropped), terminates argv with NULL (argv
 * has max + 1 slots) and returns the count, first included. */
int uk_split_args(char *line, char **argv, int first, int max);

#endif
