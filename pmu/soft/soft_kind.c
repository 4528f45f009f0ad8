/* The software backend's kind (pmu/backend/pmu_kind.h). It counts every
 * event of a session all along, so an interval multiplexing session
 * rotates its sets over the VCPU's own context (pmu/mux/pmu_mux.c) over
 * the pmu.soft.counters it offers; the paravirtual counters are what the
 * exit loop measures (no part of its own); it samples Vertigo by
 * single-stepping it (pmu/soft/pmu_step.h) where a TSC tick is an
 * instruction, and measures each overflow's skid. */
#include "pmu/backend/pmu_kind.h"
#include "pmu/mux/mux_part.h"
#include "pmu/run/pmu_config.h"
#include "pmu/run/pmu_run.h"
#include "pmu/sample/sample_part.h"
#include "pmu/soft/pmu_soft.h"
#include "pmu/soft/pmu_step.h"

static struct mux_counters counters(const struct pmu_config *c)
{
    return (struct mux_counters){ c->soft_counters, 0 };
}

static const struct mux_part mux = { .counters = counters, .own = NULL };

static const char *hypervisor_refusal(void)
{
    return pmu_config.tsc_counts_instructions ? NULL
           : "the software PMU samples the hypervisor (:h) only where a TSC tick is an "
             "instruction (Bochs)";
}

static void session_ending(struct vcpu *v)
{
    if (pmu_step_armed(v)) {
        pmu_run_count_overflows(v, pmu_step_pause(v));  /* its steps into the old counts */
        pmu_step_arm(v, false);
    }
}

static void session_started(struct vcpu *v)
{
    if (pmu_soft_samples_hypervisor(&v->pmu.ctx))
        pmu_step_arm(v, true);
}

static const struct sample_part sample = {
    .hypervisor_refusal = hypervisor_refusal,
    .session_ending = session_ending,
    .session_started = session_started,
    .measures_skid = true,
};

const struct pmu_kind pmu_kind_soft = {
    .mux = &mux,
    .pv = NULL,
    .sample = &sample,
};
