/* A VCPU's part of the sampling session applied to it (pmu/sample/),
 * embedded in struct vcpu_pmu (pmu/pmu_vcpu.h). */
#ifndef PMU_SAMPLE_SAMPLE_VCPU_H
#define PMU_SAMPLE_SAMPLE_VCPU_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/backend/pmu_ctx.h"
#include "pmu/sample/sample_freq.h"

struct sample_vcpu {
    uint32_t mask;                  /* bit i: ctx counter i samples on overflow */
    uint32_t generation;            /* session generation applied to this VCPU */
    bool stale;                     /* its events' context was re-programmed under
                                     * it: applied again before the next entry */
    uint32_t stack_depth;           /* return addresses per sample */
    bool user_stack;                /* copy user registers and stack with user samples */
    uint64_t timer_ticks;           /* timer sampling: guest ticks per sample, 0: off */
    uint32_t freq;                  /* frequency mode: samples a second, 0: fixed periods */
    struct sample_freq_counter freq_counters[PMU_CTX_MAX_COUNTERS];  /* by ctx counter */
};

#endif
