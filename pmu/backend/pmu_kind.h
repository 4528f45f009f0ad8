/* What a backend brings to the features beside its counters (struct
 * pmu_backend_ops): its part of each feature, whose shape the feature's
 * room declares (interval multiplexing: pmu/mux/mux_part.h; paravirtual
 * counters: pmu/pv/pv_part.h; sampling: pmu/sample/sample_part.h; the PMI:
 * pmu/run/pmi_part.h; the counting session: pmu/run/run_part.h; the guest's virtual PMU: pmu/vpmu/vpmu_part.h). A feature's policy asks the run's kind for
 * its part and never which backend runs; only this room (which chooses)
 * and the backends' own rooms name a backend. */
#ifndef PMU_PMU_KIND_H
#define PMU_PMU_KIND_H

#include <stdbool.h>

#include "pmu/backend/pmu.h"
#include "pmu/backend/pmu_session.h"

struct mux_part;
struct pmi_part;
struct run_part;
struct vpmu_part;
struct pv_part;
struct sample_part;
struct pmu_config;
struct pmu_event_caps;
struct vcpu;

struct pmu_kind {
    /* What the backend needs of the CPU beyond the PMU, if missing (the
     * run then has no backend), or NULL. */
    const char *(*missing)(void);
    /* Reads the backend's own options of cmdline into c, after the
     * options every backend shares (pmu/run/pmu_config.h). */
    void (*configure)(struct pmu_config *c, const char *cmdline);
    /* Sets up CPU cpu's instance of the backend (kept in the backend's
     * room) for the run's configuration and returns its handle in *be. */
    enum pmu_status (*init_cpu)(unsigned int cpu, struct pmu_backend *be);
    /* The console's line naming the backend ("pmu: using ..."). */
    void (*announce)(const struct pmu_config *c);
    /* The events a session can count on it (placed, unless a multiplexing
     * part runs them on counters of its own). */
    void (*caps)(const struct pmu_config *c, struct pmu_event_caps *caps);
    /* The backend's words on a counting session (after its event count). */
    void (*announce_session)(const struct pmu_config *c);
    /* VCPU switches on a CPU (pmu/run/pmu_switch.c), each NULL if the
     * backend needs nothing beyond its context's save and load: before
     * the outgoing VCPU's context is saved; after the incoming one's was
     * loaded (loaded: just now; false if it stayed loaded or counts
     * nothing). */
    void (*switch_out)(struct vcpu *from);
    void (*switch_in)(struct vcpu *to, bool loaded);
    const struct mux_part *mux;
    /* NULL: the paravirtual counters count what the exit loop measures
     * (pmu/pv/pmu_pv.h) */
    const struct pv_part *pv;
    /* NULL: nothing beyond the backend's overflows (pmu/sample/sample_part.h) */
    const struct sample_part *sample;
    /* NULL: the backend raises its PMIs itself at VM exits; else its
     * counters raise them through LVTPC (pmu/run/pmi_part.h) */
    const struct pmi_part *pmi;
    /* its part in the counting session in the VM-exit loop (pmu/run/run_part.h) */
    const struct run_part *run;
    /* NULL: the guest's virtual PMU counts what the exit loop measures,
     * lazily (pmu/vpmu/vpmu_part.h) */
    const struct vpmu_part *vpmu;
};

/* The kind of backend b; NULL for PMU_SESSION_NONE (no backend runs). */
const struct pmu_kind *pmu_kind_of(enum pmu_session_backend b);

#endif
