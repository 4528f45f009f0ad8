/* The backends' kinds (pmu/backend/pmu_kind.h): each backend's room
 * defines its own (pmu/hw/hw_kind.c, pmu/soft/soft_kind.c). */
#include "pmu/backend/pmu_kind.h"

#include <stddef.h>

extern const struct pmu_kind pmu_kind_hw;
extern const struct pmu_kind pmu_kind_soft;

const struct pmu_kind *pmu_kind_of(enum pmu_session_backend b)
{
    switch (b) {
    case PMU_SESSION_HW:
        return &pmu_kind_hw;
    case PMU_SESSION_SOFT:
        return &pmu_kind_soft;
    case PMU_SESSION_NONE:
        break;
    }
    return NULL;
}
