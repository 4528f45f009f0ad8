/* The multiplexing hypercalls for tests (see tests/unit/mux_hypercalls.h). */
#include "tests/unit/mux_hypercalls.h"

#include <stdio.h>

#include "pmu/pmu_loop.h"
#include "vertigo/hypercall.h"
#include "vmm/hypercall.h"

int64_t mux_start(struct vcpu *v, const char *events, uint64_t n, uint64_t sub)
{
    struct vertigo_mux m = { .abi_version = VERTIGO_MUX_ABI, .interval = n, .subinterval = sub };
    snprintf(m.events, sizeof(m.events), "%s", events);
    const struct hypercall_mux *mux = pmu_hypercalls(v)->mux;
    return mux->start(mux->ctx, &m);
}

int64_t mux_stop(struct vcpu *v)
{
    const struct hypercall_mux *mux = pmu_hypercalls(v)->mux;
    return mux->stop(mux->ctx);
}
