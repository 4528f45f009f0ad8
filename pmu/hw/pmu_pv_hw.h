/* A VCPU's paravirtual counters on the hardware backend, in the VM-exit
 * loop: VERTIGO_HC_PV_PROGRAM places them (pmu/hw/pv_hw.h), every entry
 * loads them before the guest's virtual PMU (which takes the counters
 * left) and publishes the page, every exit takes their counts back, and
 * RDPMC exiting is turned off for the runs in which RDPMC may pass
 * through (on otherwise). A VCPU switch needs nothing more: the outgoing
 * VCPU's counts were taken back at its last exit, and the incoming one's
 * next entry loads its own counters and clears every other. */
#ifndef PMU_PMU_PV_HW_H
#define PMU_PMU_PV_HW_H

#include <stdint.h>

#include "pmu/backend/pmu.h"
#include "pmu/pv/pv_part.h"

struct vcpu;

/* VERTIGO_HC_PV_PROGRAM with the hardware backend counting for v: the
 * number of counters, or the refusal of pv_hw_program (*why says it). */
int64_t pmu_pv_hw_program(struct vcpu *v, const char *events, const char **why);

/* The hardware backend's part in the paravirtual counters (its kind,
 * pmu/hw/hw_kind.c): pmu_pv_hw_program. */
extern const struct pv_part pmu_pv_hw_part;

/* Before the entry (guest CPL cpl), after Vertigo's session planned its
 * GLOBAL_CTRL bits and before the guest's virtual PMU is placed. */
void pmu_pv_hw_enter(struct vcpu *v, struct pmu_entry_plan *plan, unsigned int cpl);

/* After the exit. */
void pmu_pv_hw_exit(struct vcpu *v);

#endif
