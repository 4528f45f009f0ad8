/* Per-CPU data reached through GS base. */
#ifndef BOOT_PERCPU_H
#define BOOT_PERCPU_H

#include <stdint.h>

#include "vmm/sampler.h"
#include "vmm/smp.h"

struct percpu {
    struct percpu *self;        /* must stay first */
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
