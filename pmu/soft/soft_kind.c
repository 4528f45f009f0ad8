/* The software backend's kind (pmu/backend/pmu_kind.h). It counts every
 * event of a session all along, so an interval multiplexing session
 * rotates its sets over the VCPU's own context (pmu/mux/pmu_mux.c) over
 * the pmu.soft.counters it offers; the paravirtual counters are what the
 * exit loop measures (no part of its own). */
#include "pmu/backend/pmu_kind.h"
#include "pmu/mux/mux_part.h"
#include "pmu/run/pmu_config.h"

static struct mux_counters counters(const struct pmu_config *c)
{
    return (struct mux_counters){ c->soft_counters, 0 };
}

static const struct mux_part mux = { .counters = counters, .own = NULL };

const struct pmu_kind pmu_kind_soft = {
    .mux = &mux,
    .pv = NULL,
};
