/* The PMI of both backends (see pmu/pmu_pmi.h). */
#include "pmu/pmu_pmi.h"

#include "pmu/pmu_config.h"
#include "vmm/vcpu.h"

void pmu_pmi_raise(uint32_t mask)
{
    struct pmu_cpu *c = pmu_this_cpu();
    if (sample_cost_measures_next(&c->cost) && !c->cost.raised_tsc)
        c->cost.raised_tsc = pmu_arch_tsc();
    __atomic_fetch_or(&c->pending, mask, __ATOMIC_SEQ_CST);
    pmu_arch_send_nmi(c->apic_id);
}

void pmu_pmi_kick_others(const struct vcpu *self)
{
    const struct domain *d = self->domain;
    for (unsigned int i = 0; i < d->vcpu_count; i++) {
        const struct vcpu *o = &d->vcpus[i];
        struct pmu_cpu *c = pmu_cpu_of(o->cpu);
        if (o == self || !__atomic_load_n(&c->vcpu, __ATOMIC_ACQUIRE))
            continue;
        __atomic_store_n(&c->kick, 1u, __ATOMIC_SEQ_CST);
        pmu_this_cpu()->stats.kicks++;
        pmu_arch_send_nmi(c->apic_id);
    }
}

static struct pmu_hw *hw_backend_of(struct vcpu *v)
{
    return v->pmu.be.ops == &pmu_hw_ops ? v->pmu.be.self : NULL;
}

void pmu_pmi_arm(struct vcpu *v)
{
    if (!hw_backend_of(v))
        return;
    pmu_arch_lvtpc_claim(v, PMU_LVTPC_NMI);
    pmu_hw_pmi_arm(pmu_arch_lvtpc());
}

/* Each delivered PMI masks LVTPC (SDM Vol. 3A 11.5.1): unmask it, and
 * collect the overflows whose PMI was lost behind the mask. */
static uint32_t rearm(struct vcpu *v, struct pmu_hw *hw)
{
    if (!pmu_arch_lvtpc_owned(v))
        return 0;
    return pmu_hw_pmi_rearm(hw, &v->pmu.ctx, pmu_arch_lvtpc());
}

/* Hardware backend: the counters that overflowed, re-armed; the order is
 * the backend's overflow (GLOBAL_STATUS read, Vertigo's bits cleared,
 * counters reloaded) before LVTPC is unmasked, so an overflow after the
 * unmask raises its own PMI. */
uint32_t pmu_pmi_hw_overflows(struct vcpu *v, bool *handled)
{
    struct vcpu_pmu *p = &v->pmu;
    struct pmu_hw *hw = p->be.self;
    uint32_t mask = p->be.ops->overflow(p->be.self, &p->ctx);
    mask |= rearm(v, hw);
    *handled = mask != 0;
    for (uint32_t m = mask; m; m &= m - 1)
        p->overflows++;
    return mask & p->sample_mask;
}
