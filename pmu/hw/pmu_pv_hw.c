/* Paravirtual counters on the hardware backend in the exit loop (see
 * pmu/hw/pmu_pv_hw.h). */
#include "pmu/hw/pmu_pv_hw.h"
#include "pmu/hw/hw_vcpu.h"

#include "pmu/pmu_arch.h"
#include "pmu/run/pmu_config.h"
#include "pmu/hw/pmu_mux_hw.h"
#include "pmu/hw/pv_hw.h"
#include "vmm/vcpu.h"

int64_t pmu_pv_hw_program(struct vcpu *v, const char *events, const char **why)
{
    struct vcpu_pmu *p = &v->pmu;
    struct pmu_event_caps caps;
    if (!hw_vcpu_of(p)->pv.hw)
        pv_hw_init(&hw_vcpu_of(p)->pv, p->be.self);
    pmu_config_caps(&caps);
    int64_t r = pv_hw_program(&hw_vcpu_of(p)->pv, &p->pv, events, &caps, pmu_mux_hw_busy(v), why);
    if (r > 0) {
        pmu_arch_rdpmc_exiting(v, true);    /* until a run may pass it through */
        p->pv.rdpmc_native = false;
    }
    return r;
}

const struct pv_part pmu_pv_hw_part = { .program = pmu_pv_hw_program };

/* RDPMC runs natively exactly in the runs that pass it through; the VMCS
 * is written only when that changes. With a virtual PMU no run passes it
 * through, and the virtual PMU keeps the exiting it set. */
static void rdpmc_exiting(struct vcpu *v, bool native)
{
    if (native == v->pmu.pv.rdpmc_native)
        return;
    pmu_arch_rdpmc_exiting(v, !native);
    v->pmu.pv.rdpmc_native = native;
}

void pmu_pv_hw_enter(struct vcpu *v, struct pmu_entry_plan *plan, unsigned int cpl)
{
    struct vcpu_pmu *p = &v->pmu;
    if (!hw_vcpu_of(p)->pv.hw)
        return;
    bool no_virtual_pmu = !p->vpmu.on;
    plan->guest_global_ctrl |= pv_hw_load(&hw_vcpu_of(p)->pv, &p->pv, pmu_mux_hw_busy(v),
                                          no_virtual_pmu);
    rdpmc_exiting(v, hw_vcpu_of(p)->pv.count && hw_vcpu_of(p)->pv.passthrough);   /* "" stops them: exits again */
    pmu_pv_publish(&p->pv, pmu_arch_tsc(), cpl);
}

void pmu_pv_hw_exit(struct vcpu *v)
{
    pv_hw_save(&hw_vcpu_of(&v->pmu)->pv, &v->pmu.pv);
}
