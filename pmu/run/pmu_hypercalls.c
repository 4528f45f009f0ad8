/* The PMU's hypercalls: the counting session's VERTIGO_HC_PMU_READ and
 * _STEP here (any CPL), and every PMU feature's table registered with the
 * dispatcher at start-up: sampling (pmu/sample/sample_hypercalls.h), the
 * paravirtual counters (pmu/pv/pv_hypercalls.h), the guest's multiplexing
 * sessions (pmu/mux/mux_hypercalls.h). */
#include "vmm/pmu_hooks.h"

#include "pmu/mux/mux_hypercalls.h"
#include "pmu/pv/pv_hypercalls.h"
#include "pmu/run/pmu_run.h"
#include "pmu/sample/sample_hypercalls.h"
#include "vmm/hypercall.h"

static int64_t hc_pmu_read(const struct hypercall_args *a, guest_copy_fn read, void *ctx)
{
    (void)read, (void)ctx;
    return pmu_run_guest_read(a->vcpu, a->arg[0]);
}

static int64_t hc_pmu_step(const struct hypercall_args *a, guest_copy_fn read, void *ctx)
{
    (void)read, (void)ctx;
    return pmu_run_guest_step(a->vcpu, a->arg[0]);
}

static const struct hypercall_def counting_calls[] = {
    { VERTIGO_HC_PMU_READ, false, hc_pmu_read },
    { VERTIGO_HC_PMU_STEP, false, hc_pmu_step },
};

bool pmu_hypercalls_register(void)
{
    return hypercall_register(counting_calls, sizeof(counting_calls) / sizeof(counting_calls[0])) &&
           sample_hypercalls_register() && pv_hypercalls_register() && mux_hypercalls_register();
}
