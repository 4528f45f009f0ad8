/* Reading the multiplexing session's options (see pmu/mux/mux_options.h). */
#include "pmu/mux/mux_options.h"

#include "lib/cmdline.h"
#include "lib/format.h"
#include "lib/mem.h"

#define OPTION_MAX 32u

/* pmu.interval= / pmu.subinterval=: a number, 0 if absent; false (and
 * why) if present but not a number. */
static bool read_length(const char *cmdline, const char *key, uint64_t *out, char *why,
                        size_t why_len)
{
    char value[OPTION_MAX];
    *out = 0;
    if (!cmdline_get(cmdline, key, value, sizeof(value)))
        return true;
    if (cmdline_parse_u64(value, out))
        return true;
    fmt_snprintf(why, why_len, "%s=%s is not a number of retired instructions", key, value);
    return false;
}

/* pmu.interval.exact=on|off (default off); false (and why) if it is
 * neither. */
static bool read_exact(const char *cmdline, bool *exact, char *why, size_t why_len)
{
    char value[OPTION_MAX] = "";
    *exact = false;
    if (!cmdline_has(cmdline, "pmu.interval.exact"))
        return true;
    if (cmdline_get(cmdline, "pmu.interval.exact", value, sizeof(value))) {
        *exact = strcmp(value, "on") == 0;
        if (*exact || strcmp(value, "off") == 0)
            return true;
    }
    fmt_snprintf(why, why_len, "pmu.interval.exact=%s is not on or off", value);
    return false;
}

bool mux_options_read(const char *cmdline, struct mux_options *o, char *why, size_t why_len)
{
    if (!read_length(cmdline, "pmu.interval", &o->interval, why, why_len) ||
        !read_length(cmdline, "pmu.subinterval", &o->subinterval, why, why_len) ||
        !read_exact(cmdline, &o->exact, why, why_len))
        return false;
    if (!cmdline_has(cmdline, "pmu.interval")) {
        fmt_snprintf(why, why_len, "pmu.subinterval= needs pmu.interval=");
        return false;
    }
    return true;
}
