/* Tier (c) failure: a condition Vertigo cannot continue from. Prints the
 * message, the calling CPU and its control registers plus a backtrace,
 * then ends the run with a failure status. Never for guest-triggerable
 * conditions: those inject a fault or stop that guest. */
#ifndef VMM_PANIC_H
#define VMM_PANIC_H

__attribute__((noreturn, format(printf, 1, 2))) void panic(const char *fmt, ...);

#endif
