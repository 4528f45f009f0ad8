/* TSC ticks as time: the unikernel's clocks (newlib's times, gettimeofday,
 * clock_gettime) divide the TSC by the start-info page's tsc_hz. Portable:
 * unit-tested on the host. */
#ifndef GUESTLIB_UNIKERNEL_UK_TIME_H
#define GUESTLIB_UNIKERNEL_UK_TIME_H

#include <stdint.h>

#define UK_NSEC_PER_SEC 1000000000ull

/* `ticks` of a TSC of `tsc_hz` (> 0) in units of 1/`per_second` s, rounded
 * down; exact for any ticks as long as tsc_hz * per_second is below 2^64
 * (nanoseconds of a TSC up to 18 GHz). */
uint64_t uk_tsc_to_units(uint64_t ticks, uint64_t tsc_hz, uint64_t per_second);

#endif
