/* The PMU's per-CPU state (see pmu/run/pmu_cpu.h). */
#include "pmu/run/pmu_cpu.h"

#include "pmu/run/pmu_config.h"

struct pmu_cpu pmu_cpus[MAX_CPUS];

enum pmu_status pmu_cpu_backend_init(unsigned int cpu, struct pmu_backend *be)
{
    if (!pmu_config.kind)
        return PMU_ERR_CONFIG;      /* no backend runs */
    return pmu_config.kind->init_cpu(cpu, be);
}
