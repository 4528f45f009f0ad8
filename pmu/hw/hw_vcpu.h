/* A VCPU's part of the hardware backend: where each feature's counters
 * sit on the hardware PMU while it runs (the guest's virtual PMU, the
 * paravirtual counters, an interval multiplexing session's live set and
 * clock), embedded in struct vcpu_pmu (pmu/pmu_vcpu.h). The software
 * backend needs none. */
#ifndef PMU_HW_HW_VCPU_H
#define PMU_HW_HW_VCPU_H

#include "pmu/hw/mux_hw.h"
#include "pmu/hw/pv_hw.h"
#include "pmu/hw/vpmu_hw.h"

struct hw_vcpu {
    struct vpmu_hw vpmu;            /* the guest's virtual PMU's counters */
    struct pv_hw pv;                /* the paravirtual counters */
    struct mux_hw mux;              /* the multiplexing session's set and clock */
};

#endif
