/* TSC ticks as time: see uk_time.h. */
#include "guestlib/unikernel/uk_time.h"

uint64_t uk_tsc_to_units(uint64_t ticks, uint64_t tsc_hz, uint64_t per_second)
{
    /* Whole seconds first, then the remainder (below tsc_hz), so that no
     * product overflows. */
    return ticks / tsc_hz * per_second + ticks % tsc_hz * per_second / tsc_hz;
}
