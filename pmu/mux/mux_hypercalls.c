/* The guest's interval multiplexing hypercalls: argument checks and
 * handlers (see pmu/mux/mux_hypercalls.h). */
#include "pmu/mux/mux_hypercalls.h"

#include "lib/mem.h"
#include "pmu/mux/pmu_mux_guest.h"
#include "vmm/hypercall.h"

int64_t mux_hypercall_check(const struct vertigo_mux *m)
{
    size_t len = strnlen(m->events, sizeof(m->events));
    if (m->abi_version != VERTIGO_MUX_ABI || m->reserved)
        return -VERTIGO_EINVAL;
    return len && len < sizeof(m->events) ? 0 : -VERTIGO_EINVAL;
}

static int64_t hc_mux_start(const struct hypercall_args *a, guest_copy_fn read, void *ctx)
{
    struct vertigo_mux m;
    int64_t r = hypercall_copy_in(read, ctx, a->arg[0], &m, sizeof(m));
    if (!r)
        r = mux_hypercall_check(&m);
    if (r)
        return r;
    return pmu_mux_guest_start(a->vcpu, &m);
}

static int64_t hc_mux_stop(const struct hypercall_args *a, guest_copy_fn read, void *ctx)
{
    (void)read, (void)ctx;
    return pmu_mux_guest_stop(a->vcpu);
}

static const struct hypercall_def mux_calls[] = {
    { VERTIGO_HC_MUX_START, true, hc_mux_start },
    { VERTIGO_HC_MUX_STOP, true, hc_mux_stop },
};

bool mux_hypercalls_register(void)
{
    return hypercall_register(mux_calls, sizeof(mux_calls) / sizeof(mux_calls[0]));
}
