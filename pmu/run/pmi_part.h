/* A backend's part in the PMI (pmu/run/pmu_pmi.h), reached through the
 * run's kind (pmu/backend/pmu_kind.h). A backend whose counters raise a
 * real PMI through the local APIC's LVTPC has one (the hardware backend,
 * pmu/hw/hw_kind.c); one that finds its overflows at VM exits and raises
 * the PMI itself (the software backend) has none (pmi_part NULL). */
#ifndef PMU_PMI_PART_H
#define PMU_PMI_PART_H

#include <stdint.h>

#include "pmu/backend/pmu.h"

struct pmi_part {
    /* Points LVTPC at NMI delivery, unmasked, on this CPU, once the
     * backend drives the CPU's counters and before any can overflow. */
    void (*arm)(const struct pmu_lvtpc_ops *lvt);
    /* After the backend's overflow took a PMI's overflows of ctx: LVTPC
     * unmasked again, and the overflows whose PMI was lost behind the
     * mask (bit i: counters[i]). */
    uint32_t (*rearm)(void *self, struct pmu_ctx *ctx, const struct pmu_lvtpc_ops *lvt);
};

#endif
