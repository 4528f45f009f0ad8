/* The hardware backend's kind (pmu/backend/pmu_kind.h): what it needs of
 * VT-x, its events (the probed PMU's), and its parts in interval
 * multiplexing, the paravirtual counters, the guest's virtual PMU and the
 * PMI. */
#include "pmu/backend/pmu_kind.h"
#include "pmu/hw/hw_run.h"

#include "lib/console.h"
#include "lib/smp.h"
#include "pmu/hw/pmu_mux_hw.h"
#include "pmu/hw/pmu_pv_hw.h"
#include "pmu/hw/pmu_vpmu_hw.h"
#include "pmu/pmu_arch.h"
#include "pmu/run/pmi_part.h"
#include "pmu/hw/pmu_hw.h"

static const char *missing(void)
{
    return pmu_arch_has_global_ctrl_switch() ? NULL
           : "the VM-entry/exit \"load IA32_PERF_GLOBAL_CTRL\" controls are missing";
}

static void configure(struct pmu_config *c, const char *cmdline)
{
    (void)c;
    (void)cmdline;              /* no options of its own */
}

/* Each CPU's instance: pmu_hw_init sets all of it. */
static struct pmu_hw hw_cpus[MAX_CPUS];

static enum pmu_status init_cpu(unsigned int cpu, struct pmu_backend *be)
{
    struct pmu_hw *hw = &hw_cpus[cpu % MAX_CPUS];
    enum pmu_status st = pmu_hw_init(hw, &pmu_config.desc, pmu_arch_perf_capabilities(),
                                     pmu_arch_msr());
    *be = pmu_hw_backend(hw);
    return st;
}

static void announce(const struct pmu_config *c)
{
    printk("pmu: using the hardware backend (architectural PMU v%u)\n", c->desc.version);
}

static void caps(const struct pmu_config *c, struct pmu_event_caps *caps)
{
    pmu_event_caps_hw(caps, &c->desc);
}

static uint32_t pmi_rearm(void *self, struct pmu_ctx *ctx, const struct pmu_lvtpc_ops *lvt)
{
    return pmu_hw_pmi_rearm(self, ctx, lvt);
}

/* Its counters raise PMIs through LVTPC (pmu/hw/pmu_hw.h). */
static const struct pmi_part pmi_part = {
    .arm = pmu_hw_pmi_arm,
    .rearm = pmi_rearm,
};

const struct pmu_kind pmu_kind_hw = {
    .missing = missing,
    .configure = configure,
    .init_cpu = init_cpu,
    .run = &pmu_hw_run_part,
    .announce = announce,
    .caps = caps,
    .announce_session = NULL,
    .mux = &pmu_mux_hw_part,
    .pv = &pmu_pv_hw_part,
    .vpmu = &pmu_vpmu_hw_part,
    .sample = NULL,
    .pmi = &pmi_part,
};
