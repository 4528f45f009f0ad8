/* The software backend's part in the counting session in the VM-exit
 * loop (pmu/run/run_part.h), listed in its kind (pmu/soft/soft_kind.c). */
#ifndef PMU_SOFT_SOFT_RUN_H
#define PMU_SOFT_SOFT_RUN_H

#include "pmu/run/run_part.h"

extern const struct run_part pmu_soft_run_part;

#endif
