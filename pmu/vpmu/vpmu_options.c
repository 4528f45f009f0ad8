/* The guest's virtual PMU options (see pmu/vpmu/vpmu_options.h). */
#include "pmu/vpmu/vpmu_options.h"

#include "pmu/vpmu/vpmu.h"
#include "lib/cmdline.h"
#include "lib/console.h"
#include "lib/mem.h"

#define OPTION_MAX 32u

/* pmu.guest=on|off; true unless off. */
static bool read_switch(const char *cmdline)
{
    char value[OPTION_MAX];
    if (!cmdline_get(cmdline, "pmu.guest", value, sizeof(value)) || strcmp(value, "on") == 0)
        return true;
    if (strcmp(value, "off") == 0)
        return false;
    printk("pmu: warning: bad option pmu.guest=%s (on, off); using on\n", value);
    return true;
}

/* A counter count 0..max, default max. */
static unsigned int read_count(const char *cmdline, const char *key, unsigned int max,
                               const char *what)
{
    char value[OPTION_MAX];
    uint64_t n;
    if (!cmdline_get(cmdline, key, value, sizeof(value)))
        return max;
    if (!cmdline_parse_u64(value, &n) || n > max) {
        printk("pmu: warning: bad option %s=%s (0 to %u %s counters); using %u\n", key, value,
               max, what, max);
        return max;
    }
    return (unsigned int)n;
}

struct vpmu_options vpmu_options_read(const char *cmdline, const char *why_not)
{
    struct vpmu_options o = {
        .on = read_switch(cmdline),
        .gp_counters = read_count(cmdline, "pmu.guest.gp", VPMU_MAX_GP, "general-purpose"),
        .fixed_counters = read_count(cmdline, "pmu.guest.fixed", VPMU_MAX_FIXED, "fixed"),
    };
    if (!o.on) {
        printk("pmu: the guest gets no virtual PMU (pmu.guest=off)\n");
    } else if (why_not) {
        printk("pmu: the guest gets no virtual PMU: %s\n", why_not);
        o.on = false;
    } else if (o.gp_counters + o.fixed_counters == 0) {
        printk("pmu: the guest gets no virtual PMU: pmu.guest.gp=0 and pmu.guest.fixed=0 "
               "leave it no counter\n");
        o.on = false;
    } else {
        printk("pmu: the guest gets a virtual PMU (version %u, %u general-purpose + %u fixed "
               "counters; pmu.guest=off to hide it)\n", VPMU_VERSION, o.gp_counters,
               o.fixed_counters);
    }
    return o;
}
