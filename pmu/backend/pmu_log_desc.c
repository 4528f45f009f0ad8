/* The stream header's PMU description (pmu/backend/pmu_log_desc.h). */
#include "pmu/backend/pmu_log_desc.h"

static uint8_t log_backend(enum pmu_verdict verdict, enum pmu_session_backend backend)
{
    switch (backend) {
    case PMU_SESSION_HW:   return LOG_PMU_HW;
    case PMU_SESSION_SOFT: return LOG_PMU_SOFT;
    case PMU_SESSION_NONE: break;
    }
    return verdict == PMU_BROKEN ? LOG_PMU_BROKEN : LOG_PMU_NONE;
}

struct log_pmu_desc pmu_log_desc(enum pmu_verdict verdict, const struct pmu_desc *d,
                                 enum pmu_session_backend backend)
{
    struct log_pmu_desc out = {
        .backend = log_backend(verdict, backend),
        .version = d->version,
        .gp_count = d->gp_counters,
        .gp_width = d->gp_width,
        .fixed_count = d->fixed_counters,
        .fixed_width = d->fixed_width,
    };
    return out;
}
