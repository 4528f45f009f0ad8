/* Per-CPU data reached through GS base. */
#ifndef BOOT_PERCPU_H
#define BOOT_PERCPU_H

#include <stdint.h>

#include "boot/percpu_step.h"
#include "boot/smp.h"
#include "vmm/sampler.h"

struct percpu {
    struct percpu *self;        /* must stay first */
    /* Single-stepping Vertigo (vmx/vmx_pmu_step.c), at the fixed offsets
     * of boot/percpu_step.h: the #DB fast path counts steps and keeps the
     * RIP after each in a ring; the slow path runs at step_next. The
     * VM-exit stub records step_at_exit and, if armed, sets TF. */
    uint32_t step_armed;
    uint64_t step_count;
    uint64_t step_next;
    uint64_t step_at_exit;
    uint64_t step_rips[PERCPU_STEP_RIP_COUNT];
    unsigned int cpu_index;
    uint32_t apic_id;
    uint64_t nmi_count;         /* NMIs taken in root mode */
    /* Sampling (vmx/sample.c); written only by this CPU, exit path and
     * NMI handlers alike (exchanges where both write). */
    void *sample_vcpu;          /* the struct vcpu this CPU runs, or NULL */
    uint32_t sample_pending;    /* overflows awaiting their PMI (bit i: counter
                                 * i; SAMPLE_PENDING_TIMER: timer sample) */
    uint32_t kick;              /* another CPU sent an NMI to make us take a
                                 * new session: that NMI is not the guest's */
    struct sampler_stats sample_stats;
};

/* Sets GS base of the calling CPU to its percpu slot `cpu`. */
void percpu_init(unsigned int cpu);

struct percpu *percpu_of(unsigned int cpu);

static inline struct percpu *this_cpu(void)
{
    struct percpu *p;
    __asm__ volatile("movq %%gs:0, %0" : "=r"(p));
    return p;
}

#endif
