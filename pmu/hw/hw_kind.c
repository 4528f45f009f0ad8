/* The hardware backend's kind (pmu/backend/pmu_kind.h): its parts in
 * interval multiplexing and the paravirtual counters. */
#include "pmu/backend/pmu_kind.h"
#include "pmu/hw/pmu_mux_hw.h"
#include "pmu/hw/pmu_pv_hw.h"

const struct pmu_kind pmu_kind_hw = {
    .mux = &pmu_mux_hw_part,
    .pv = &pmu_pv_hw_part,
};
