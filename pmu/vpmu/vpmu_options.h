/* The options of the guest's virtual PMU (pmu/vpmu/vpmu.h) on Vertigo's
 * command line: pmu.guest=on|off (default on wherever the run's backend
 * can offer one: either backend), pmu.guest.gp=N (0..VPMU_MAX_GP
 * general-purpose counters, default all) and pmu.guest.fixed=N
 * (0..VPMU_MAX_FIXED fixed counters, default all). A bad value is named
 * in a warning and its default used; no counter at all means no PMU. One
 * console line says what the guest gets, or why it gets nothing. Portable. */
#ifndef PMU_VPMU_OPTIONS_H
#define PMU_VPMU_OPTIONS_H

#include <stdbool.h>

struct vpmu_options {
    bool on;                    /* the guest gets a virtual PMU */
    unsigned int gp_counters;   /* offered through CPUID leaf 0xA */
    unsigned int fixed_counters;
};

/* Reads the options from cmdline. why_not: NULL when the run's backend
 * can offer a virtual PMU, else the reason it cannot (printed; the guest
 * then gets none whatever the options say). */
struct vpmu_options vpmu_options_read(const char *cmdline, const char *why_not);

#endif
