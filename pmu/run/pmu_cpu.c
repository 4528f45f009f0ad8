/* The PMU's per-CPU state and the backend instance each CPU drives (see
 * pmu/run/pmu_cpu.h). */
#include "pmu/run/pmu_cpu.h"

#include "pmu/run/pmu_config.h"

struct pmu_cpu pmu_cpus[MAX_CPUS];

static enum pmu_status hw_backend_init(struct pmu_cpu *c, struct pmu_backend *be)
{
    enum pmu_status st = pmu_hw_init(&c->hw, &pmu_config.desc, pmu_arch_perf_capabilities(),
                                     pmu_arch_msr());
    *be = pmu_hw_backend(&c->hw);
    return st;
}

static enum pmu_status soft_backend_init(struct pmu_cpu *c, struct pmu_backend *be)
{
    struct pmu_soft_config cfg = {
        .step_ticks = pmu_config.step_ticks,
        .tsc_counts_instructions = pmu_config.tsc_counts_instructions,
    };
    enum pmu_status st = pmu_soft_init(&c->soft, &cfg);
    *be = pmu_soft_backend(&c->soft);
    return st;
}

enum pmu_status pmu_cpu_backend_init(unsigned int cpu, struct pmu_backend *be)
{
    struct pmu_cpu *c = pmu_cpu_of(cpu);
    if (pmu_config.backend == PMU_SESSION_HW)
        return hw_backend_init(c, be);
    return soft_backend_init(c, be);
}
