/* For host programs that read guest memory the way Vertigo does, through a
 * real EPT (vmx/ept.c) and the checked cursor (vmx/guest_mem.c): memory
 * below 4 GiB (Vertigo's identity-mapped host range, so a guest-physical
 * address can be the host address itself) and a domain with one VCPU and
 * an empty EPT whose tables come from such memory. Used by the call-stack
 * benchmark's harness and the guest-pages fuzzer. Aborts on failure: a
 * program without this set-up has nothing to measure or test. */
#ifndef TESTS_UNIT_HOST_EPT_H
#define TESTS_UNIT_HOST_EPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/vcpu.h"

#define HOST_EPT_PAGE 4096ull

/* pages of zeroed memory below 4 GiB; `guarded`: with an inaccessible page
 * on each side, so a stray read faults. */
uint8_t *host_ept_memory(size_t pages, bool guarded);

/* d with one VCPU and an empty EPT (4-level walk, WB, 2 MiB leaves) whose
 * tables take at most pool_pages pages. */
void host_ept_domain(struct domain *d, unsigned int pool_pages);

#endif
