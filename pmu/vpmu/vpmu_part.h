/* A backend's part in the guest's virtual PMU (pmu/vpmu/pmu_guest.h),
 * reached through the run's kind (pmu/backend/pmu_kind.h). A backend
 * without one (vpmu_part NULL: the software backend) counts the guest's
 * events from the runs the exit loop measures, lazily
 * (pmu/vpmu/pmu_guest_clock.h); one with a part runs the guest's counting
 * counters on counters of its own (the hardware backend's, on the
 * hardware counters Vertigo's session leaves free: pmu/hw/pmu_vpmu_hw.c). */
#ifndef PMU_VPMU_PART_H
#define PMU_VPMU_PART_H

#include <stdbool.h>

struct pmu_entry_plan;
struct vcpu;

struct vpmu_part {
    /* Once v's backend is set up: the guest's counters bound to it and
     * the guest's registers set up with what it offers (nothing more
     * than the command line's counters); done once per VCPU start. False
     * (the reason said on the console) when it can offer nothing. */
    bool (*bind)(struct vcpu *v);
    /* Before the VM entry, the guest's PMU counting: its counting counters
     * loaded, their GLOBAL_CTRL bits added to plan's guest value. */
    void (*enter)(struct vcpu *v, struct pmu_entry_plan *plan);
    /* After the VM exit: the guest's counters read back into its
     * registers, its LVTPC taken first (the PMIs they raised are then
     * pending there); false if none were loaded. */
    bool (*exit)(struct vcpu *v);
};

#endif
