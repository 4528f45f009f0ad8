/* What the log's stream header says about the PMU: the probe's verdict,
 * the CPUID description and the session's backend mapped to the ABI's
 * struct log_pmu_desc (include/vertigo/log_format.h). Portable. */
#ifndef PMU_PMU_LOG_DESC_H
#define PMU_PMU_LOG_DESC_H

#include "pmu/backend/pmu_desc.h"
#include "pmu/backend/pmu_session.h"
#include "vertigo/log_format.h"

/* The header's PMU description: the backend the run uses (hw or soft),
 * else what the probe found (broken, or none for absent and for a working
 * PMU no session uses), and the counters CPUID describes in *d. */
struct log_pmu_desc pmu_log_desc(enum pmu_verdict verdict, const struct pmu_desc *d,
                                 enum pmu_session_backend backend);

#endif
