/* Pearson correlation of events across the interval rows: each row gives
 * every chosen event's rate (its extrapolated value per retired
 * instruction of the row, so a shorter last row weighs like the others);
 * rows where a chosen event went unmeasured, or outside the chosen TSC or
 * interval range, are left out. Portable arithmetic, unit-tested. */
#ifndef HOST_TOOLS_CORRELATE_H
#define HOST_TOOLS_CORRELATE_H

#include <stdbool.h>
#include <stdint.h>

#include "host-tools/interval_rows.h"

/* Rows to use: TSC range [tsc_from, tsc_to] (the whole row inside it)
 * and interval numbers [first, last]. */
struct corr_range {
    uint64_t tsc_from, tsc_to;
    uint64_t first, last;
};

#define CORR_ALL { 0, UINT64_MAX, 0, UINT64_MAX }

struct corr_matrix {
    unsigned int n;                             /* events */
    unsigned int ev[IV_EVENTS_MAX];
    uint64_t intervals;                         /* rows used */
    double r[IV_EVENTS_MAX][IV_EVENTS_MAX];     /* NaN: undefined (a constant event) */
};

/* Fills m for events ev[0..n-1] over the rows of s in range. */
void corr_compute(const struct iv_set *s, const unsigned int *ev, unsigned int n,
                  const struct corr_range *range, struct corr_matrix *m);

/* Pearson's r of x and y (count values); NaN if either is constant or
 * count < 2. */
double corr_pearson(const double *x, const double *y, uint64_t count);

#endif
