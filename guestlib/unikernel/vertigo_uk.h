/* For programs of the unikernel runtime (guestlib/unikernel/): what the
 * domain was started with, and Vertigo's counters of the calling VCPU.
 * The program runs at CPL 3 with newlib's libc; VERTIGO_HC_PMU_READ works
 * from any privilege level, so the reads below are a VMCALL each, with no
 * system call around them (see include/vertigo/hypercall.h). */
#ifndef GUESTLIB_UNIKERNEL_VERTIGO_UK_H
#define GUESTLIB_UNIKERNEL_VERTIGO_UK_H

#include <stdint.h>

#include "include/vertigo/unikernel.h"
#include "guestlib/vertigo_measure.h"
#include "guestlib/vertigo_vmcall.h"

/* The start-info page as Vertigo gave it: domain id, RAM size, TSC rate,
 * the module's command line (argv is this line split at spaces). */
const struct vertigo_uk_start *vertigo_uk_info(void);

/* Count of event `index` of Vertigo's counting session (the order of
 * pmu.events= on Vertigo's command line) so far for this VCPU; negative
 * -VERTIGO_E* (e.g. -VERTIGO_EINVAL past the list). Forced inline: two
 * reads around a window see only the register setup and the VMCALL. */
VERTIGO_ALWAYS_INLINE int64_t vertigo_uk_pmu_read(uint64_t index)
{
    return vertigo_hypercall1(VERTIGO_HC_PMU_READ, index);
}

/* A system call of the runtime (guestlib/unikernel/uk_abi.h: UK_SYS_*):
 * INT 0x80 with RAX = nr, arguments in RDI, RSI, RDX -> RAX. */
static inline int64_t vertigo_uk_syscall(uint64_t nr, uint64_t a0, uint64_t a1, uint64_t a2)
{
    int64_t ret;
    __asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr), "D"(a0), "S"(a1), "d"(a2) : "memory");
    return ret;
}

/* The number of events in the session (0: none). */
VERTIGO_ALWAYS_INLINE int64_t vertigo_uk_pmu_events(void)
{
    return vertigo_hypercall1(VERTIGO_HC_PMU_READ, VERTIGO_PMU_EVENT_COUNT);
}

#endif
