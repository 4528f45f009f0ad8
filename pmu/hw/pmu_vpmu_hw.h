/* The guest's virtual PMU on the hardware counters in the VM-exit loop:
 * the hardware backend's part in it (pmu/vpmu/vpmu_part.h), listed in its
 * kind (pmu/hw/hw_kind.c). */
#ifndef PMU_HW_PMU_VPMU_HW_H
#define PMU_HW_PMU_VPMU_HW_H

#include "pmu/vpmu/vpmu_part.h"

extern const struct vpmu_part pmu_vpmu_hw_part;

#endif
