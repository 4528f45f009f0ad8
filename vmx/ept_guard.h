/* Guest accesses to guest-physical memory not mapped for it (Vertigo's
 * own, or nothing): the EPT-violation handler (vmx/exit.h) and the sink
 * windows it opens in the domain's shared EPT (vmx/ept_sink.h). */
#ifndef VMX_EPT_GUARD_H
#define VMX_EPT_GUARD_H

#include <stddef.h>

#include "vmm/page_alloc.h"
#include "vmm/vcpu.h"

/* Once, after d's EPT is built: the sink may divert pages of the `count`
 * ranges Vertigo hid from the guest, to a scratch page from the heap. */
void ept_guard_init(struct domain *d, const struct phys_range *hidden, size_t count);

/* Before each VM entry of v: invalidates this CPU's EPT translations if
 * the domain's EPT changed since it last did (a sink window opened or
 * closed on any CPU). */
void ept_guard_before_entry(struct vcpu *v);

#endif
