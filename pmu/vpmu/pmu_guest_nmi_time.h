/* The guest's clock inside the NMI handlers Vertigo injects (its virtual
 * PMU's PMIs, pmu.guest=on).
 *
 * A guest's perf times its PMI handler with its TSC (sched_clock) and
 * lowers kernel.perf_event_max_sample_rate when the handler looks slow.
 * The handler reads and writes PMU registers, each access a VM exit; in
 * Bochs the TSC counts every emulated instruction, Vertigo's too, so the
 * guest would take Vertigo's handling of those exits for its own. From
 * the first exit inside the handler until the guest returns from it (its
 * IRET, which is made to exit), the guest's TSC is set behind the host's
 * by every TSC tick Vertigo spent since then (from one entry's TSC read
 * to the next but the guest's run between them, the entry and exit path
 * included): inside the handler the guest's clock runs only while the
 * guest does. At the first exit after the handler's IRET (the IRET itself
 * is not made to exit: that exit would be one more in each PMI's ten or
 * so) the offset goes back to 0, so the guest's TSC jumps forward by what
 * it was behind: it never runs backwards and keeps time; inside a handler,
 * and from its IRET to the next exit, it runs slow by Vertigo's share.
 * Portable: the VM-exit loop calls it, the arch hooks set the TSC offset. */
#ifndef PMU_PMU_GUEST_NMI_TIME_H
#define PMU_PMU_GUEST_NMI_TIME_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/vcpu.h"

/* Before the entry is committed: which handler the guest is in, and
 * whether this entry follows an exit inside it. */
void pmu_guest_nmi_time_before_entry(struct vcpu *v);

void pmu_guest_nmi_time_exited(struct vcpu *v, uint64_t guest_ticks);

/* The guest ran guest_ticks before this exit (the shared timer's
 * measure). Inline: every exit. */
static inline void pmu_guest_nmi_time_after_exit(struct vcpu *v, uint64_t guest_ticks)
{
    if (v->pmu.vpmu.nmi_time.hiding)
        pmu_guest_nmi_time_exited(v, guest_ticks);
}

/* The VM entry follows (its TSC not read yet): Vertigo's time since the
 * last entry inside the handler taken off the guest's TSC. */
void pmu_guest_nmi_time_entered(struct vcpu *v);

#endif
