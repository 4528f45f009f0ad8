/* The PMU counting probe: does the PMU that CPUID describes really count? */
#ifndef PMU_PMU_PROBE_H
#define PMU_PMU_PROBE_H

#include "pmu/backend/pmu_desc.h"

/* Reads CPUID 0AH, programs GP counter 0 for retired instructions around a
 * known loop and reads it back, recovering from #GP. Prints the two "pmu:"
 * report lines and returns the verdict; *desc receives the description. */
enum pmu_verdict pmu_probe(struct pmu_desc *desc);

/* The result of the last pmu_probe() call (for the log stream header):
 * copies its description to *desc and returns its verdict, or returns
 * PMU_ABSENT with a zeroed *desc if the probe has not run. */
enum pmu_verdict pmu_probe_result(struct pmu_desc *desc);

#endif
