/* The PMU's state per physical CPU: the VCPU the CPU runs, the overflows
 * waiting for their PMI and the sampling statistics (the backend that
 * drives the CPU's counters keeps its instance in its own room). Each CPU
 * writes only its own entry (its exit path and its NMI handler, with atomic exchanges where both write); another CPU only
 * sets `kick` and reads at the end of the run. */
#ifndef PMU_PMU_CPU_H
#define PMU_PMU_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/smp.h"
#include "pmu/pmu_arch.h"
#include "pmu/backend/pmu.h"
#include "pmu/sample/stack_cost.h"

/* pending: a timer sample is due (bits 0..30 are counters). */
#define PMU_PENDING_TIMER (1u << 31)

/* Sampling statistics of one CPU. */
struct sampler_stats {
    uint64_t pmis;              /* PMIs taken: overflows sampled (at their exit or by an
                                 * NMI), timer samples */
    uint64_t samples_logged;    /* sample records written to the log */
    uint64_t samples_dropped;   /* samples lost: no log, or the ring was full */
    uint64_t spurious_nmis;     /* NMIs neither Vertigo's nor a guest's to take */
    uint64_t reflected_nmis;    /* NMIs in root mode queued for the guest */
    uint64_t kicks;             /* NMIs sent to make a VCPU take a new session */
    uint64_t user_stacks;       /* user-stack records written with user samples */
};

/* What the NMI path costs: TSC cycles from the PMI being raised (software
 * backend, timer samples) or the handler being entered (hardware PMI) to
 * the samples logged, and the part spent writing them. One PMI in
 * sample_cost_every is measured (pmu/sample/sample_nmi.c). */
struct sample_cost {
    uint64_t raised_tsc;        /* when the PMI was raised, 0 when none pending */
    uint64_t seen;              /* PMIs handled, measured or not */
    uint64_t pmis;              /* PMIs measured */
    uint64_t path_cycles;       /* raise (or handler entry) → samples logged */
    uint64_t record_cycles;     /* of which recording and logging the samples */
    struct stack_cost stack[2]; /* of which walking guest call stacks, by mode:
                                   SAMPLE_COST_USER, SAMPLE_COST_KERNEL */
};

enum { SAMPLE_COST_USER, SAMPLE_COST_KERNEL };

#define SAMPLE_COST_EVERY     16u      /* the default: a power of two */
#define SAMPLE_COST_EVERY_MAX 65536u

/* One PMI in this many is measured: SAMPLE_COST_EVERY, or the command
 * line's sample.cost_every= (a power of two; 1 times every PMI, for a
 * benchmark), set before any sampling session starts. */
extern uint32_t sample_cost_every;

/* True if the next PMI this CPU handles is one of the measured ones. */
static inline bool sample_cost_measures_next(const struct sample_cost *cost)
{
    return (cost->seen & (sample_cost_every - 1)) == 0;
}

struct pmu_cpu {
    struct vcpu *vcpu;          /* the VCPU this CPU runs, NULL before */
    uint32_t apic_id;
    uint32_t pending;           /* overflows awaiting their PMI (bit i: counter i) */
    uint32_t kick;              /* another CPU sent an NMI to make this CPU's VCPU
                                 * take a new session: that NMI is not the guest's */
    struct sampler_stats stats;
    struct sample_cost cost;
};

extern struct pmu_cpu pmu_cpus[MAX_CPUS];

static inline struct pmu_cpu *pmu_cpu_of(unsigned int cpu)
{
    return &pmu_cpus[cpu % MAX_CPUS];
}

static inline struct pmu_cpu *pmu_this_cpu(void)
{
    return pmu_cpu_of(pmu_arch_cpu_index());
}

/* Sets up CPU cpu's instance of the run's backend (its kind's init_cpu,
 * pmu_config) and returns its handle in *be. */
enum pmu_status pmu_cpu_backend_init(unsigned int cpu, struct pmu_backend *be);

#endif
