/* What the CPU says about its architectural PMU (SDM Vol. 3B, 20.2
 * "Architectural Performance Monitoring"; CPUID leaf 0AH), and the verdict
 * of the counting probe. Portable. */
#ifndef PMU_PMU_DESC_H
#define PMU_PMU_DESC_H

#include <stdbool.h>
#include <stdint.h>

/* Architectural events in CPUID.0AH:EBX bit order (bit set = NOT available). */
enum pmu_arch_event {
    PMU_ARCH_CYCLES = 0,
    PMU_ARCH_INSTRUCTIONS,
    PMU_ARCH_REF_CYCLES,
    PMU_ARCH_LLC_REFERENCES,
    PMU_ARCH_LLC_MISSES,
    PMU_ARCH_BRANCHES,
    PMU_ARCH_BRANCH_MISSES,
    PMU_ARCH_TOPDOWN_SLOTS,
    PMU_ARCH_EVENT_COUNT
};

enum pmu_verdict {
    PMU_ABSENT,     /* no architectural PMU described */
    PMU_BROKEN,     /* described, but does not count or faults */
    PMU_HARDWARE,   /* counts */
};

struct pmu_desc {
    uint8_t version;            /* 0: none */
    uint8_t gp_counters;
    uint8_t gp_width;
    uint8_t fixed_counters;     /* highest supported fixed index + 1 */
    uint8_t fixed_width;
    uint32_t fixed_mask;        /* bit i: fixed counter i exists (v5 bitmap) */
    uint32_t events_available;  /* bit i: enum pmu_arch_event i is available */
};

/* Decodes CPUID.0AH registers. */
void pmu_cpuid_decode(uint32_t eax, uint32_t ebx, uint32_t ecx, uint32_t edx,
                      struct pmu_desc *out);

/* Short perf-style name of an architectural event ("cycles", ...). */
const char *pmu_arch_event_name(enum pmu_arch_event ev);

/* Formats the "pmu: cpuid 0xa: ..." description into buf. */
int pmu_desc_format(const struct pmu_desc *d, char *buf, unsigned int size);

#endif
