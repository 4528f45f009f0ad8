/* The hardware backend's kind (pmu/backend/pmu_kind.h): what it needs of
 * VT-x, its events (the probed PMU's), and its parts in interval
 * multiplexing and the paravirtual counters. */
#include "pmu/backend/pmu_kind.h"

#include "lib/console.h"
#include "pmu/hw/pmu_mux_hw.h"
#include "pmu/hw/pmu_pv_hw.h"
#include "pmu/pmu_arch.h"

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

static void announce(const struct pmu_config *c)
{
    printk("pmu: using the hardware backend (architectural PMU v%u)\n", c->desc.version);
}

static void caps(const struct pmu_config *c, struct pmu_event_caps *caps)
{
    pmu_event_caps_hw(caps, &c->desc);
}

const struct pmu_kind pmu_kind_hw = {
    .missing = missing,
    .configure = configure,
    .announce = announce,
    .caps = caps,
    .announce_session = NULL,
    .mux = &pmu_mux_hw_part,
    .pv = &pmu_pv_hw_part,
    .sample = NULL,
};
