/* What the counters of a guest's virtual PMU (pmu/vpmu/vpmu.h) are programmed
 * to count, for the log: after each guest write to a PMU register the
 * caller asks for the counters enabled with a programming this VCPU has
 * not used on them before. A programming is a counter's event select as
 * written (general-purpose) or its field of IA32_FIXED_CTR_CTRL (fixed);
 * enabled means the EN bit, or a field that counts in some mode (IA32_PERF_GLOBAL_CTRL is left out: Linux clears
 * and sets it around every PMI). So a guest that switches a counted
 * thread in and out, or toggles its counters, logs nothing new; and the
 * table of programmings seen is bounded (VPMU_PROG_SEEN_MAX per VCPU):
 * past it, new programmings are only counted. Portable. */
#ifndef PMU_VPMU_PROG_H
#define PMU_VPMU_PROG_H

#include <stdint.h>

#include "pmu/vpmu/vpmu.h"
#include "vertigo/log_format.h"

#define VPMU_PROG_SEEN_MAX 32u

struct vpmu_prog {
    uint8_t counter;    /* GP k: k; fixed j: LOG_GUEST_COUNTER_FIXED + j */
    uint64_t control;   /* GP: IA32_PERFEVTSELk as written (EN set); fixed: its 4-bit field */
};

struct vpmu_prog_seen {
    unsigned int count;
    struct vpmu_prog seen[VPMU_PROG_SEEN_MAX];
    uint64_t not_logged;    /* new programmings found with the table full */
};

#define VPMU_PROG_NEW_MAX (VPMU_MAX_GP + VPMU_MAX_FIXED)

/* The counters p has enabled now with a programming not in seen, in
 * counter order (GP first): written to out (room for VPMU_PROG_NEW_MAX),
 * added to seen, and counted; those that do not fit seen are counted in
 * seen->not_logged instead. */
unsigned int vpmu_prog_new(const struct vpmu *p, struct vpmu_prog_seen *seen,
                           struct vpmu_prog out[VPMU_PROG_NEW_MAX]);

#endif
