/* Pearson correlation across interval rows (see correlate.h). */
#include "host-tools/correlate.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

/* Whether every value is the same: then r is undefined, whatever the
 * rounding of the mean would make of the variance (a constant x whose
 * mean is not exactly representable gets a tiny non-zero sxx, and r =
 * 1.000 with itself, ~0 with the others). */
static bool constant(const double *x, uint64_t count)
{
    for (uint64_t i = 1; i < count; i++)
        if (x[i] != x[0])
            return false;
    return true;
}

double corr_pearson(const double *x, const double *y, uint64_t count)
{
    if (count < 2 || constant(x, count) || constant(y, count))
        return NAN;
    double mx = 0, my = 0;
    for (uint64_t i = 0; i < count; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= (double)count;
    my /= (double)count;
    double sxy = 0, sxx = 0, syy = 0;   /* two passes: no cancellation of big sums */
    for (uint64_t i = 0; i < count; i++) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
        syy += (y[i] - my) * (y[i] - my);
    }
    if (sxx <= 0 || syy <= 0)
        return NAN;
    double r = sxy / sqrt(sxx * syy);
    return r > 1 ? 1 : r < -1 ? -1 : r;
}

static bool row_used(const struct iv_row *r, const struct iv_events *v, const unsigned int *ev,
                     unsigned int n, const struct corr_range *range)
{
    /* tsc_start + tsc_span is the row's TSC (iv_add_row): no overflow */
    if (!r->instructions || r->tsc_start < range->tsc_from ||
        r->tsc_start + r->tsc_span > range->tsc_to || r->number < range->first ||
        r->number > range->last)
        return false;
    for (unsigned int k = 0; k < n; k++)
        if (!v->in_row[ev[k]] || v->how[ev[k]] == IV_UNMEASURED)
            return false;
    return true;
}

void corr_compute(const struct iv_set *s, const unsigned int *ev, unsigned int n,
                  const struct corr_range *range, struct corr_matrix *m)
{
    double *rate[IV_EVENTS_MAX] = { 0 };
    m->n = n;
    m->intervals = 0;
    for (unsigned int k = 0; k < n; k++) {
        m->ev[k] = ev[k];
        rate[k] = malloc((s->count ? s->count : 1) * sizeof(double));
    }
    for (size_t i = 0; i < s->count; i++) {
        const struct iv_row *r = &s->rows[i];
        struct iv_events v;
        iv_row_events(s, r, &v);
        if (!row_used(r, &v, ev, n, range))
            continue;
        for (unsigned int k = 0; k < n; k++)
            if (rate[k])
                rate[k][m->intervals] = (double)v.value[ev[k]] / (double)r->instructions;
        m->intervals++;
    }
    for (unsigned int a = 0; a < n; a++)
        for (unsigned int b = 0; b < n; b++)
            m->r[a][b] = rate[a] && rate[b] ? corr_pearson(rate[a], rate[b], m->intervals) : NAN;
    for (unsigned int k = 0; k < n; k++)
        free(rate[k]);
}
