/* What the paravirtual counters' hypercalls (pmu/pv/pv_hypercalls.h) do,
 * for the calling VCPU v, once their arguments are validated. Each returns
 * the value for RAX. */
#ifndef PMU_PV_PV_GUEST_H
#define PMU_PV_PV_GUEST_H

#include <stdint.h>

#include "vertigo/hypercall.h"

struct vcpu;

/* VERTIGO_HC_PV_PAGE with a page-aligned guest-physical address (0:
 * unregister): 0, or the pointer error of a page that is not writable
 * guest RAM. */
int64_t pv_guest_page(struct vcpu *v, uint64_t gpa);

/* VERTIGO_HC_PV_PROGRAM: the number of counters, -VERTIGO_EINVAL for an
 * event list the backend cannot count this way, -VERTIGO_ENOSYS for a
 * backend without paravirtual counters. */
int64_t pv_guest_program(struct vcpu *v, const struct vertigo_pv_program *prog);

/* VERTIGO_HC_PV_READ: the count, or -VERTIGO_EINVAL past the program. */
int64_t pv_guest_read(struct vcpu *v, uint64_t index);

/* VERTIGO_HC_PV_VECTOR: 0, or -VERTIGO_EINVAL for a vector refused. */
int64_t pv_guest_vector(struct vcpu *v, uint64_t vector);

#endif
