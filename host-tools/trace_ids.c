/* The time-ordered exports' names of domains and VCPUs (see trace_ids.h). */
#include "host-tools/trace_ids.h"

#include <stdio.h>

void trace_process_name(const struct domain_names *names, uint32_t domain, char out[TRACE_NAME_MAX])
{
    static const struct domain_names none;
    char buf[DOMAIN_NAME_MAX];
    snprintf(out, TRACE_NAME_MAX, "%s (domain %u)", domain_name(names ? names : &none, domain, buf),
             domain);
}

void trace_thread_name(uint32_t vcpu, char out[TRACE_NAME_MAX])
{
    snprintf(out, TRACE_NAME_MAX, "VCPU %u", vcpu);
}
