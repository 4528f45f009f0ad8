/* The guest's virtual PMU on the hardware counters in the VM-exit loop:
 * the hardware backend's part in it (pmu/vpmu/vpmu_part.h). */
#include "pmu/hw/pmu_vpmu_hw.h"

#include "lib/console.h"
#include "pmu/hw/hw_vcpu.h"
#include "pmu/hw/pmu_mux_hw.h"
#include "pmu/pmu_arch.h"
#include "pmu/run/pmu_config.h"
#include "pmu/vpmu/vpmu_part.h"
#include "vmm/vcpu.h"

static bool bind(struct vcpu *v)
{
    struct vcpu_pmu *p = &v->pmu;
    struct vpmu_hw *h = &hw_vcpu_of(p)->vpmu;
    if (h->hw)
        return true;                /* bound since the VCPU started */
    struct pmu_hw *hw = p->be.self;
    if (!vpmu_hw_init(h, hw)) {
        printk("pmu: vcpu %u: the guest gets no PMU: the hardware counters are not %u bits wide\n",
               v->id, VPMU_WIDTH);
        return false;
    }
    struct vpmu_config config = vpmu_hw_offer(hw);
    if (config.gp_counters > pmu_config.guest_gp_counters)
        config.gp_counters = pmu_config.guest_gp_counters;
    if (config.fixed_counters > pmu_config.guest_fixed_counters)
        config.fixed_counters = pmu_config.guest_fixed_counters;
    printk("pmu: vcpu %u: the guest's virtual PMU runs on the hardware counters: %u "
           "general-purpose + %u fixed offered\n", v->id, config.gp_counters,
           config.fixed_counters);
    vpmu_init(&p->vpmu.regs, &config);
    return true;
}

/* Vertigo's paravirtual counters are placed first, then the guest's. */
static void enter(struct vcpu *v, struct pmu_entry_plan *plan)
{
    struct vcpu_pmu *p = &v->pmu;
    struct hw_vcpu *h = hw_vcpu_of(p);
    if (!h->vpmu.hw)
        return;
    uint64_t busy = pmu_mux_hw_busy(v) | h->pv.enable;
    plan->guest_global_ctrl |= vpmu_hw_load(&h->vpmu, &p->vpmu.regs, busy);
}

static bool exit_(struct vcpu *v)
{
    struct vcpu_pmu *p = &v->pmu;
    struct vpmu_hw *h = &hw_vcpu_of(p)->vpmu;
    if (!h->loaded)
        return false;
    vpmu_lvtpc_write(&p->vpmu.regs, pmu_arch_guest_lvtpc(v));
    vpmu_hw_save(h, &p->vpmu.regs);
    return true;
}

const struct vpmu_part pmu_vpmu_hw_part = {
    .bind = bind,
    .enter = enter,
    .exit = exit_,
};
