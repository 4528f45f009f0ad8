/* The hardware backend's part in the counting session in the VM-exit
 * loop (pmu/run/run_part.h), listed in its kind (pmu/hw/hw_kind.c). */
#ifndef PMU_HW_HW_RUN_H
#define PMU_HW_HW_RUN_H

#include "pmu/run/run_part.h"

extern const struct run_part pmu_hw_run_part;

#endif
