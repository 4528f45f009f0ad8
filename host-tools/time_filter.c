/* perf's --time ranges (see time_filter.h). */
#include "host-tools/time_filter.h"

#include <stdio.h>
#include <string.h>

#define NS_PER_SECOND 1000000000ull
#define SECOND_DECIMALS 9u
#define PERCENT_DECIMALS 6u

/* A decimal number with up to `decimals` digits after the point, as an
 * integer in units of 10^-decimals, at most max; advances *s past it.
 * False if there is no digit, too many decimals, or it exceeds max. */
static bool fixed_point(const char **s, unsigned int decimals, uint64_t max, uint64_t *out)
{
    const char *p = *s;
    uint64_t whole = 0, frac = 0;
    unsigned int digits = 0, places = 0;
    for (; *p >= '0' && *p <= '9'; p++, digits++) {
        if (whole > (UINT64_MAX - 9) / 10)
            return false;
        whole = whole * 10 + (uint64_t)(*p - '0');
    }
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++, digits++, places++) {
            if (places == decimals)
                return false;
            frac = frac * 10 + (uint64_t)(*p - '0');
        }
    if (!digits)
        return false;
    uint64_t scale = 1;
    for (unsigned int i = 0; i < decimals; i++)
        scale *= 10;
    for (; places < decimals; places++)
        frac *= 10;
    if (whole > max / scale || whole * scale > max - frac)
        return false;
    *out = whole * scale + frac;
    *s = p;
    return true;
}

static bool fail(char *err, size_t err_len, const char *text, const char *why)
{
    snprintf(err, err_len, "--time '%s': %s", text, why);
    return false;
}

/* "START,STOP" ranges separated by spaces, in seconds. */
static bool parse_seconds(struct time_filter *f, const char *text, char *err, size_t err_len)
{
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        if (f->count == TIME_RANGES_MAX)
            return fail(err, err_len, text, "more than 16 ranges");
        struct time_range r = { 0, UINT64_MAX, false };
        if (*p != ',' && !fixed_point(&p, SECOND_DECIMALS, UINT64_MAX, &r.start))
            return fail(err, err_len, text, "expected START,STOP in seconds (up to 9 decimals), "
                        "or A%-B% or A%/N");
        if (*p++ != ',')
            return fail(err, err_len, text, "a range needs a comma between START and STOP");
        if (*p && *p != ' ' && !fixed_point(&p, SECOND_DECIMALS, UINT64_MAX, &r.stop))
            return fail(err, err_len, text, "STOP is no number of seconds (up to 9 decimals)");
        if (*p && *p != ' ')
            return fail(err, err_len, text, "ranges are separated by spaces");
        if (r.start > r.stop)
            return fail(err, err_len, text, "a range starts after its stop");
        f->ranges[f->count++] = r;
    }
    if (!f->count)
        return fail(err, err_len, text, "no range");
    return true;
}

/* One "A%-B%" or "A%/N" range at *p, in millionths of a percent. */
static bool parse_percent_range(const char **p, struct time_range *r)
{
    uint64_t a, b;
    if (!fixed_point(p, PERCENT_DECIMALS, TIME_PERCENT_ONE, &a) || *(*p)++ != '%')
        return false;
    if (**p == '/') {
        (*p)++;
        uint64_t n;
        if (!fixed_point(p, 0, TIME_PERCENT_ONE, &n) || !n || !a || a > TIME_PERCENT_ONE / n)
            return false;
        r->start = a * (n - 1);
        r->stop = a * n;
        return true;
    }
    if (*(*p)++ != '-' || !fixed_point(p, PERCENT_DECIMALS, TIME_PERCENT_ONE, &b) ||
        *(*p)++ != '%' || a > b)
        return false;
    r->start = a;
    r->stop = b;
    return true;
}

static bool parse_percent(struct time_filter *f, const char *text, char *err, size_t err_len)
{
    const char *p = text;
    f->percent = true;
    for (;;) {
        if (f->count == TIME_RANGES_MAX)
            return fail(err, err_len, text, "more than 16 ranges");
        struct time_range r;
        if (!parse_percent_range(&p, &r))
            return fail(err, err_len, text, "expected A%-B% (A <= B <= 100) or A%/N (N slices "
                        "of A% within 100%), several separated by commas");
        r.stop_open = r.stop < TIME_PERCENT_ONE;
        f->ranges[f->count++] = r;
        if (!*p)
            return true;
        if (*p++ != ',')
            return fail(err, err_len, text, "percent ranges are separated by commas");
    }
}

bool time_filter_parse(struct time_filter *f, const char *text, char *err, size_t err_len)
{
    memset(f, 0, sizeof(*f));
    return strchr(text, '%') ? parse_percent(f, text, err, err_len)
                             : parse_seconds(f, text, err, err_len);
}

/* first + span x part / 100%, without overflow (span < 2^64, part <= 100%). */
static uint64_t at_percent(uint64_t first, uint64_t span, uint64_t part)
{
    return first + (uint64_t)((unsigned __int128)span * part / TIME_PERCENT_ONE);
}

void time_filter_resolve(struct time_filter *f, uint64_t first_ns, uint64_t last_ns)
{
    if (!f->percent)
        return;
    uint64_t span = last_ns >= first_ns ? last_ns - first_ns : 0;
    for (unsigned int i = 0; i < f->count; i++) {
        f->ranges[i].start = at_percent(first_ns, span, f->ranges[i].start);
        f->ranges[i].stop = at_percent(first_ns, span, f->ranges[i].stop);
    }
    f->percent = false;
}

bool time_filter_keeps(const struct time_filter *f, uint64_t ns)
{
    if (!f->count)
        return true;
    for (unsigned int i = 0; i < f->count; i++) {
        const struct time_range *r = &f->ranges[i];
        if (ns >= r->start && (r->stop_open ? ns < r->stop : ns <= r->stop))
            return true;
    }
    return false;
}
