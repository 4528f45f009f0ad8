/* LVTPC for the hardware PMU's PMI (see vmx/vmx_pmi.h): boot/apic.c's
 * accessors (xAPIC MMIO or x2APIC MSR, by the current mode) handed to
 * the portable policy in pmu/pmu_hw.c. */
#include "vmx/vmx_pmi.h"

#include "boot/apic.h"
#include "pmu/pmu_hw.h"
#include "vmx/apic_guard.h"

static uint32_t lvtpc_read(void *ctx)
{
    (void)ctx;
    return apic_read_lvtpc();
}

static void lvtpc_write(void *ctx, uint32_t value)
{
    (void)ctx;
    apic_write_lvtpc(value);
}

static const struct pmu_lvtpc_ops lvtpc_ops = { lvtpc_read, lvtpc_write, NULL };

static struct pmu_hw *hw_backend_of(struct vcpu *v)
{
    return v->pmu.be.ops == &pmu_hw_ops ? v->pmu.be.self : NULL;
}

void vmx_pmi_arm(struct vcpu *v)
{
    if (!hw_backend_of(v))
        return;
    apic_guard_lvtpc_claim(v, PMU_LVTPC_NMI);
    pmu_hw_pmi_arm(&lvtpc_ops);
}

uint32_t vmx_pmi_rearm(struct vcpu *v)
{
    struct pmu_hw *hw = hw_backend_of(v);
    if (!hw || !apic_guard_lvtpc_owned(v))
        return 0;
    return pmu_hw_pmi_rearm(hw, &v->pmu.ctx, &lvtpc_ops);
}
