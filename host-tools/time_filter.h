/* perf's --time: which samples a report, script or export keeps by their
 * time. Either absolute ranges in seconds, as `vertigo script` prints a
 * sample's time (the TSC at the log's TSC frequency):
 *   START,STOP    START <= t <= STOP, either end may be left out
 *                 (",STOP", "START,"); several ranges separated by spaces
 * or ranges in percent of the log's span, from its first sample's time
 * to its last's:
 *   A%-B%         from A% to B% of the span
 *   A%/N          the Nth slice of A% (A%/1 is 0%-A%, A%/2 is A%-2A%)
 * several separated by commas. A percent range includes its start and
 * excludes its end, except an end at 100%, so that adjacent slices
 * (10%/1,10%/2) never share a sample. Times are whole nanoseconds:
 * seconds are read with up to 9 decimals, exactly, and percentages with
 * up to 6. */
#ifndef HOST_TOOLS_TIME_FILTER_H
#define HOST_TOOLS_TIME_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TIME_RANGES_MAX 16u
#define TIME_PERCENT_ONE 100000000ull    /* 100% in millionths of a percent */

struct time_range {
    uint64_t start, stop;        /* ns (after time_filter_resolve), inclusive */
    bool stop_open;              /* a percent range: stop excluded */
};

struct time_filter {
    unsigned int count;          /* 0: no filter */
    bool percent;                /* ranges in millionths of a percent until resolved */
    struct time_range ranges[TIME_RANGES_MAX];
};

/* Parses text into f. False with a message in err ("--time 5,3: the start
 * is after the stop") when it is not one of the forms above. */
bool time_filter_parse(struct time_filter *f, const char *text, char *err, size_t err_len);

/* Turns percent ranges into nanoseconds of the span first..last (the
 * first and last samples' times); absolute ranges are left alone. */
void time_filter_resolve(struct time_filter *f, uint64_t first_ns, uint64_t last_ns);

/* Whether a sample at ns passes (always, without ranges). */
bool time_filter_keeps(const struct time_filter *f, uint64_t ns);

#endif
