/* The multiplexing hypercalls for tests (see tests/unit/mux_hypercalls.h). */
#include "tests/unit/mux_hypercalls.h"

#include <stdio.h>

#include "pmu/mux/pmu_mux_guest.h"
#include "vertigo/hypercall.h"

int64_t mux_start(struct vcpu *v, const char *events, uint64_t n, uint64_t sub)
{
    struct vertigo_mux m = { .abi_version = VERTIGO_MUX_ABI, .interval = n, .subinterval = sub };
    snprintf(m.events, sizeof(m.events), "%s", events);
    return pmu_mux_guest_start(v, &m);
}

int64_t mux_stop(struct vcpu *v)
{
    return pmu_mux_guest_stop(v);
}
