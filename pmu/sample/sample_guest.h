/* What the sampling hypercalls (pmu/sample/sample_hypercalls.h) do, for
 * the calling VCPU v, once their arguments are validated. Each returns the
 * value for RAX. */
#ifndef PMU_SAMPLE_SAMPLE_GUEST_H
#define PMU_SAMPLE_SAMPLE_GUEST_H

#include <stdint.h>

#include "vertigo/hypercall.h"
#include "vmm/hypercall.h"

struct vcpu;

/* VERTIGO_HC_SESSION_START: a domain's kernel samples its own domain
 * unless sample.control= grants it the machine; 0, -VERTIGO_EBUSY when a
 * session runs, -VERTIGO_EINVAL when the backend cannot sample its events. */
int64_t sample_guest_start(struct vcpu *v, const struct vertigo_session *s);

/* VERTIGO_HC_SESSION_STOP: the samples logged, -VERTIGO_EINVAL when none
 * runs, -VERTIGO_EPERM for a session another domain or the command line
 * started. */
int64_t sample_guest_stop(struct vcpu *v);

/* VERTIGO_HC_SYMBOLS: the chunk and its len data bytes shipped into the
 * log as symbol records: 0, or -VERTIGO_EINVAL out of sequence. */
int64_t sample_guest_symbols(struct vcpu *v, const struct vertigo_symbols_chunk *c,
                             const uint8_t *data);

/* VERTIGO_HC_KERNEL_ORC: the domain's kernel unwind tables, read with
 * read(read_ctx, ...): 0 or -VERTIGO_E*. */
int64_t sample_guest_kernel_orc(struct vcpu *v, const struct vertigo_kernel_orc *a,
                                guest_copy_fn read, void *read_ctx);

#endif
