/* Per-CPU data reached through GS base. */
#ifndef BOOT_PERCPU_H
#define BOOT_PERCPU_H

#include <stdint.h>

#include "boot/percpu_step.h"
#include "lib/smp.h"

struct percpu {
    struct percpu *self;        /* must stay first */
    /* Single-stepping Vertigo (pmu/soft/pmu_step.c), at the fixed offsets of
     * boot/percpu_step.h: the #DB fast path counts steps and keeps the RIP
     * after each in a ring; the slow path runs at step.next. The VM-exit
     * stub records step.at_exit and, if armed, sets TF. */
    struct percpu_step step;
    unsigned int cpu_index;
    uint32_t apic_id;
    uint64_t nmi_count;         /* NMIs taken in root mode */
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
