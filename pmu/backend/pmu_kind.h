/* What a backend brings to the features beside its counters (struct
 * pmu_backend_ops): its part of each feature, whose shape the feature's
 * room declares (interval multiplexing: pmu/mux/mux_part.h; paravirtual
 * counters: pmu/pv/pv_part.h; sampling: pmu/sample/sample_part.h). A feature's policy asks the run's kind for
 * its part and never which backend runs; only this room (which chooses)
 * and the backends' own rooms name a backend. */
#ifndef PMU_PMU_KIND_H
#define PMU_PMU_KIND_H

#include "pmu/backend/pmu_session.h"

struct mux_part;
struct pv_part;
struct sample_part;

struct pmu_kind {
    const struct mux_part *mux;
    /* NULL: the paravirtual counters count what the exit loop measures
     * (pmu/pv/pmu_pv.h) */
    const struct pv_part *pv;
    /* NULL: nothing beyond the backend's overflows (pmu/sample/sample_part.h) */
    const struct sample_part *sample;
};

/* The kind of backend b; NULL for PMU_SESSION_NONE (no backend runs). */
const struct pmu_kind *pmu_kind_of(enum pmu_session_backend b);

#endif
