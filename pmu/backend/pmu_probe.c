/* Counting probe for the architectural PMU. Bochs describes a version-4
 * PMU in CPUID 0AH but its MSRs read 0 and RDPMC returns 0 (docs/platform-notes.md);
 * such a PMU is "broken" and never used. */
#include "pmu/backend/pmu_probe.h"

#include "lib/cpu.h"
#include "lib/console.h"
#include "lib/msr.h"
#include "pmu/backend/pmu_log_desc.h"
#include "vmm/log/log_hv.h"
#include "vmm/pmu_hooks.h"

#define EVENT_INSTRUCTIONS_RETIRED 0xc0
#define PROBE_LOOP_ITERATIONS      100000u

static struct pmu_desc last_desc;
static enum pmu_verdict last_verdict = PMU_ABSENT;

static void probe_loop(void)
{
    for (uint32_t i = 0; i < PROBE_LOOP_ITERATIONS; i++)
        __asm__ volatile("" ::: "memory");
}

/* Returns 0 and the count, or -1 when an access faulted. */
static int probe_count(const struct pmu_desc *d, uint64_t *count)
{
    uint64_t saved_global = 0;
    int err = 0;

    err |= wrmsr_safe(MSR_IA32_PERFEVTSEL0, 0);
    err |= wrmsr_safe(MSR_IA32_PMC0, 0);
    if (d->version >= 2) {
        err |= rdmsr_safe(MSR_IA32_PERF_GLOBAL_CTRL, &saved_global);
        err |= wrmsr_safe(MSR_IA32_PERF_GLOBAL_CTRL, 1);
    }
    err |= wrmsr_safe(MSR_IA32_PERFEVTSEL0, EVENT_INSTRUCTIONS_RETIRED |
                      PERFEVTSEL_USR | PERFEVTSEL_OS | PERFEVTSEL_EN);
    probe_loop();
    err |= wrmsr_safe(MSR_IA32_PERFEVTSEL0, 0);
    err |= rdmsr_safe(MSR_IA32_PMC0, count);
    if (d->version >= 2)
        err |= wrmsr_safe(MSR_IA32_PERF_GLOBAL_CTRL, saved_global);
    return err ? -1 : 0;
}

static enum pmu_verdict probe(struct pmu_desc *desc)
{
    char text[256];
    struct cpuid_regs r = { 0 };

    if (cpuid(0, 0).eax >= 0xa)
        r = cpuid(0xa, 0);
    pmu_cpuid_decode(r.eax, r.ebx, r.ecx, r.edx, desc);
    pmu_desc_format(desc, text, sizeof(text));
    printk("pmu: %s\n", text);

    if (!desc->version || !desc->gp_counters) {
        printk("pmu: absent\n");
        return PMU_ABSENT;
    }
    uint64_t count = 0;
    if (probe_count(desc, &count) < 0) {
        printk("pmu: broken (claims v%u, PMU MSR access faults)\n", desc->version);
        return PMU_BROKEN;
    }
    if (count < PROBE_LOOP_ITERATIONS) {
        printk("pmu: broken (claims v%u, does not count)\n", desc->version);
        printk("pmu: probe counted %lu retired instructions for a loop of %u "
               "iterations\n", count, PROBE_LOOP_ITERATIONS);
        return PMU_BROKEN;
    }
    printk("pmu: hardware (counted %lu instructions for a loop of %u iterations)\n",
           count, PROBE_LOOP_ITERATIONS);
    return PMU_HARDWARE;
}

enum pmu_verdict pmu_probe(struct pmu_desc *desc)
{
    last_verdict = probe(desc);
    last_desc = *desc;
    return last_verdict;
}

enum pmu_verdict pmu_probe_result(struct pmu_desc *desc)
{
    *desc = last_desc;
    return last_verdict;
}

void pmu_platform_probe(void)
{
    struct pmu_desc pmu;
    enum pmu_verdict verdict = pmu_probe(&pmu);
    struct log_pmu_desc log_pmu = pmu_log_desc(verdict, &pmu, PMU_SESSION_NONE);
    log_hv_set_pmu(&log_pmu);
}
