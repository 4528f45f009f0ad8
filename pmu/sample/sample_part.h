/* A backend's part in sampling (pmu/sample/sample_apply.h), reached
 * through the run's kind (pmu/backend/pmu_kind.h); a backend without one
 * (sample_part NULL) samples every event it counts, Vertigo's included,
 * by its own overflows. The software backend's part
 * (pmu/soft/soft_kind.c): it samples Vertigo (:h) by single-stepping it
 * near each overflow, and only where a TSC tick is an instruction; its
 * overflow points are exact, so each one's skid is measured. */
#ifndef PMU_SAMPLE_PART_H
#define PMU_SAMPLE_PART_H

#include <stdbool.h>

struct vcpu;

struct sample_part {
    /* Why events with :h cannot sample in this run, or NULL. */
    const char *(*hypervisor_refusal)(void);
    /* The session on v is about to change: whatever sampling Vertigo
     * needed stops, its overflows into the old counts. */
    void (*session_ending)(struct vcpu *v);
    /* v's context was programmed with a sampling session. */
    void (*session_started)(struct vcpu *v);
    /* Each overflow point's skid is measured (pmu_counter.skid_max). */
    bool measures_skid;
};

#endif
