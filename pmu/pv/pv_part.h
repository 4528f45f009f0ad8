/* A backend's part in the paravirtual counters (pmu/pv/pv_guest.h),
 * reached through the run's kind (pmu/backend/pmu_kind.h). A backend
 * without one (pv_part NULL) lets the exit loop measure them
 * (pmu/pv/pmu_pv.h: counted at every exit in the mode the guest ran in,
 * read by the guest's RDPMC through an exit); one with a part puts them
 * on counters of its own (the hardware backend, pmu/hw/pmu_pv_hw.h). */
#ifndef PMU_PV_PART_H
#define PMU_PV_PART_H

#include <stdint.h>

struct vcpu;

struct pv_part {
    /* Programs v's counters with events: the number programmed, or a
     * negative VERTIGO_E* error with *why set. */
    int64_t (*program)(struct vcpu *v, const char *events, const char **why);
};

#endif
