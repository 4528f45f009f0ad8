/* Whether the software backend runs, for the exit loop's calls into it
 * (pmu/run/pmu_run.c). Inline: the exit path asks. */
#ifndef PMU_SOFT_CONFIG_H
#define PMU_SOFT_CONFIG_H

#include <stdbool.h>

#include "pmu/run/pmu_config.h"

static inline bool pmu_config_soft(void)
{
    return pmu_config.backend == PMU_SESSION_SOFT;
}

#endif
