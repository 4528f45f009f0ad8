/* The options of the command line's interval multiplexing session, read
 * apart from running it (pmu/mux/pmu_mux.c): pmu.interval=N and
 * pmu.subinterval=S (retired instructions; S defaults to N when absent,
 * mux_row.h) and pmu.interval.exact=on|off (default off: with on, each
 * row is followed by the exact counts of the same interval). Portable. */
#ifndef PMU_MUX_MUX_OPTIONS_H
#define PMU_MUX_MUX_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mux_options {
    uint64_t interval;          /* pmu.interval=, 0 if absent */
    uint64_t subinterval;       /* pmu.subinterval=, 0 if absent */
    bool exact;                 /* pmu.interval.exact=on */
};

/* Reads the three options of cmdline into *o: true, or false with why
 * there can be no session in why ("pmu.interval=x is not a number of
 * retired instructions", "pmu.interval.exact=x is not on or off",
 * "pmu.subinterval= needs pmu.interval="), checked in that order. */
bool mux_options_read(const char *cmdline, struct mux_options *o, char *why, size_t why_len);

#endif
