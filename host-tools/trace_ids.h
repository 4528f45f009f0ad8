/* One naming of domains and VCPUs, and one time base, for every
 * time-ordered export (`vertigo script`, `vertigo export --format
 * perfetto|pftrace`, `vertigo timeline --format json`), so that their
 * tracks and times line up when they are viewed together: a domain is the
 * process "NAME (domain D)", a VCPU its thread "VCPU V"; times are the
 * TSC since 0 at the log's TSC frequency (timeline_ns). Numbers: process
 * D + 1 and thread (D + 1) x 65536 + V, since Perfetto's importer takes
 * process and thread 0 for the kernel's idle task and wants thread
 * numbers unique across processes. */
#ifndef HOST_TOOLS_TRACE_IDS_H
#define HOST_TOOLS_TRACE_IDS_H

#include <stdint.h>

#include "host-tools/domain_names.h"

#define TRACE_NAME_MAX (DOMAIN_NAME_MAX + 24u)
#define TRACE_VCPUS_PER_DOMAIN 65536u

static inline uint32_t trace_pid(uint32_t domain)
{
    return domain + 1;
}

static inline uint32_t trace_tid(uint32_t domain, uint32_t vcpu)
{
    return (domain + 1) * TRACE_VCPUS_PER_DOMAIN + vcpu % TRACE_VCPUS_PER_DOMAIN;
}

/* "NAME (domain D)" (names: the log's, or NULL for "domD"). */
void trace_process_name(const struct domain_names *names, uint32_t domain, char out[TRACE_NAME_MAX]);

/* "VCPU V". */
void trace_thread_name(uint32_t vcpu, char out[TRACE_NAME_MAX]);

#endif
