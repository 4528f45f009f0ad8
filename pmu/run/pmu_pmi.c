/* The PMI of both backends (see pmu/run/pmu_pmi.h). */
#include "pmu/run/pmu_pmi.h"

#include "pmu/run/pmu_config.h"
#include "pmu/run/pmi_part.h"
#include "vmm/vcpu.h"

/* Per CPU: Vertigo's NMI in flight and the exit path's raise (see
 * pmu/run/pmu_pmi.h). `inflight` is set by any CPU, cleared by the owner's
 * NMI path; the rest is the owner's. */
static struct pmu_nmi_cpu {
    uint32_t inflight;          /* an NMI of Vertigo's is on its way to this CPU */
    bool raised;                /* this exit raised a PMI ... */
    bool inflight_before_raise; /* ... and one was in flight before it */
    bool hw_noted;              /* a hardware PMI came in root, not taken yet */
    struct pmu_nmi_stats stats;
} nmi_cpus[MAX_CPUS];

static struct pmu_nmi_cpu *nmi_of(const struct pmu_cpu *c)
{
    return &nmi_cpus[(unsigned int)(c - pmu_cpus) % MAX_CPUS];
}

void pmu_pmi_cpu_start(struct pmu_cpu *c)
{
    *nmi_of(c) = (struct pmu_nmi_cpu){ 0 };
}

struct pmu_nmi_stats *pmu_pmi_stats(unsigned int cpu)
{
    return &nmi_cpus[cpu % MAX_CPUS].stats;
}

/* The reason is recorded before this: an NMI is sent unless one of
 * Vertigo's is already in flight to that CPU, which then carries it. */
static void signal_cpu(struct pmu_cpu *c)
{
    struct pmu_nmi_cpu *n = nmi_of(c);
    if (__atomic_exchange_n(&n->inflight, 1u, __ATOMIC_SEQ_CST)) {
        __atomic_fetch_add(&n->stats.merged, 1, __ATOMIC_RELAXED);
        return;
    }
    __atomic_fetch_add(&n->stats.sent, 1, __ATOMIC_RELAXED);
    pmu_arch_send_nmi(c->apic_id);
}

void pmu_pmi_raise(uint32_t mask)
{
    struct pmu_cpu *c = pmu_this_cpu();
    struct pmu_nmi_cpu *n = nmi_of(c);
    if (sample_cost_measures_next(&c->cost) && !c->cost.raised_tsc)
        c->cost.raised_tsc = pmu_arch_tsc();
    if (!n->raised) {
        n->inflight_before_raise = __atomic_load_n(&n->inflight, __ATOMIC_SEQ_CST) != 0;
        n->raised = true;
    }
    __atomic_fetch_or(&c->pending, mask, __ATOMIC_SEQ_CST);
    signal_cpu(c);
}

void pmu_pmi_kick_cpu(unsigned int cpu)
{
    struct pmu_cpu *c = pmu_cpu_of(cpu);
    if (!__atomic_load_n(&c->vcpu, __ATOMIC_ACQUIRE))
        return;     /* it has not started a VCPU: it looks for work itself */
    __atomic_store_n(&c->kick, 1u, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&pmu_this_cpu()->stats.kicks, 1, __ATOMIC_RELAXED);
    signal_cpu(c);
}

void pmu_pmi_kick_others(const struct vcpu *self)
{
    const struct domain *d = self->domain;
    for (unsigned int i = 0; i < d->vcpu_count; i++)
        if (&d->vcpus[i] != self)
            pmu_pmi_kick_cpu(d->vcpus[i].cpu);
}

bool pmu_pmi_receive(struct pmu_cpu *c)
{
    struct pmu_nmi_cpu *n = nmi_of(c);
    n->raised = false;
    if (!__atomic_exchange_n(&n->inflight, 0u, __ATOMIC_SEQ_CST))
        return false;
    n->stats.received++;
    return true;
}

bool pmu_pmi_receive_exit(struct pmu_cpu *c)
{
    struct pmu_nmi_cpu *n = nmi_of(c);
    if (n->raised && !n->inflight_before_raise) {
        /* The raised NMI is still to come; this one is not Vertigo's. */
        n->raised = false;
        n->stats.guest_before_raise++;
        return false;
    }
    return pmu_pmi_receive(c);
}

void pmu_pmi_entry(struct pmu_cpu *c)
{
    nmi_of(c)->raised = false;
}

/* Delivering a PMI sets LVTPC's mask bit (SDM Vol. 3A 11.5.1), and only
 * the re-arm clears it: a masked LVTPC that Vertigo owns means a PMI came
 * and was not taken yet. Reading it writes nothing. */
bool pmu_pmi_hw_delivered(struct vcpu *v)
{
    if (!pmu_pmi_by_lvtpc(v) || !pmu_arch_lvtpc_owned(v))
        return false;
    const struct pmu_lvtpc_ops *lvt = pmu_arch_lvtpc();
    return (lvt->read(lvt->ctx) & PMU_LVT_MASKED) != 0;
}

bool pmu_pmi_hw_note(struct pmu_cpu *c, struct vcpu *v)
{
    struct pmu_nmi_cpu *n = nmi_of(c);
    if (n->hw_noted || !pmu_pmi_hw_delivered(v))
        return false;
    n->hw_noted = true;
    n->stats.hw_deferred++;
    return true;
}

uint32_t pmu_pmi_hw_take_noted(struct pmu_cpu *c, struct vcpu *v)
{
    struct pmu_nmi_cpu *n = nmi_of(c);
    if (!n->hw_noted)
        return 0;
    n->hw_noted = false;
    return pmu_pmi_hw_overflows(v);
}

void pmu_pmi_arm(struct vcpu *v)
{
    if (!v->pmu.be.ops || !pmu_config.kind->pmi)
        return;
    pmu_arch_lvtpc_claim(v, PMU_LVTPC_NMI);
    pmu_config.kind->pmi->arm(pmu_arch_lvtpc());
}

/* Each delivered PMI masks LVTPC (SDM Vol. 3A 11.5.1): unmask it, and
 * collect the overflows whose PMI was lost behind the mask. */
static uint32_t rearm(struct vcpu *v)
{
    if (!pmu_arch_lvtpc_owned(v))
        return 0;
    return pmu_config.kind->pmi->rearm(v->pmu.be.self, &v->pmu.ctx, pmu_arch_lvtpc());
}

/* Hardware backend: the counters that overflowed, re-armed; the order is
 * the backend's overflow (GLOBAL_STATUS read, Vertigo's bits cleared,
 * counters reloaded) before LVTPC is unmasked, so an overflow after the
 * unmask raises its own PMI. */
uint32_t pmu_pmi_hw_overflows(struct vcpu *v)
{
    struct vcpu_pmu *p = &v->pmu;
    uint32_t mask = p->be.ops->overflow(p->be.self, &p->ctx);
    mask |= rearm(v);
    for (uint32_t m = mask; m; m &= m - 1)
        p->overflows++;
    return mask & p->sample.mask;
}
