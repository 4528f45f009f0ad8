/* VCPU switches on one physical CPU (see pmu/run/pmu_switch.h). */
#include "pmu/run/pmu_switch.h"

#include "pmu/backend/pmu_kind.h"
#include "pmu/mux/mux_part.h"
#include "pmu/run/pmu_config.h"
#include "pmu/run/pmu_cpu.h"
#include "pmu/run/pmu_pmi.h"
#include "pmu/run/pmu_run.h"
#include "lib/console.h"
#include "vmm/vcpu.h"

/* A backend operation that failed at a switch (an MSR access faulted):
 * said once per VCPU and direction; the counts of that VCPU are then
 * unreliable, which its totals line says too (pmu_switch_report). */
static void note_failure(struct vcpu *v, const char *what, enum pmu_status st)
{
    struct pmu_switch_state *s = &v->pmu.sw_state;
    if (!s->failures++)
        printk("pmu: vcpu %u of domain %u: %s at a VCPU switch failed: %s\n", v->id,
               v->domain->id, what, pmu_status_text(st));
}

/* v's interval session on counters of the backend's own
 * (pmu/mux/mux_part.h), or NULL. */
static const struct mux_own_session *mux_own(const struct pmu_kind *k, const struct vcpu *v)
{
    return k && v->pmu.mux.on ? k->mux->own : NULL;
}

/* A PMI the outgoing VCPU's exit raised may still be on its way (Bochs
 * keeps NMIs blocked until the exit handler's IRET): its overflows are
 * the VCPU's, sampled where it stopped. They leave with it and are raised
 * again when it comes back, its guest state still that exit's; the NMI
 * in flight then finds nothing pending and writes no sample. */
static void pmi_out(struct vcpu *from)
{
    struct pmu_cpu *c = pmu_cpu_of(from->cpu);
    from->pmu.sw_state.pending_pmi |= __atomic_exchange_n(&c->pending, 0u, __ATOMIC_SEQ_CST);
}

static void pmi_in(struct vcpu *to)
{
    uint32_t pending = to->pmu.sw_state.pending_pmi;
    to->pmu.sw_state.pending_pmi = 0;
    if (pending)
        pmu_pmi_raise(pending);
}

void pmu_vcpu_switch_out(struct vcpu *from)
{
    struct vcpu_pmu *p = &from->pmu;
    uint64_t t0 = pmu_arch_tsc();
    const struct pmu_kind *k = pmu_config.kind;
    pmi_out(from);
    if (k && k->switch_out)
        k->switch_out(from);
    if (p->be.ops && p->ctx.loaded) {
        enum pmu_status st = p->be.ops->save(p->be.self, &p->ctx);
        if (st != PMU_OK)
            note_failure(from, "saving the counters", st);
    }
    if (mux_own(k, from))
        mux_own(k, from)->save(from);   /* an interval session's live set and clock */
    p->sw_state.out_tsc = pmu_arch_tsc();
    p->sw_state.ticks += p->sw_state.out_tsc - t0;
}

/* :h counted by time (software backend) spans exit to exit: the stretch
 * the VCPU spent switched out is taken out of it. */
static void skip_time_out(struct vcpu_pmu *p, uint64_t now)
{
    if (p->sw_state.out_tsc && p->last_exit_tsc)
        p->last_exit_tsc += now - p->sw_state.out_tsc;
    p->sw_state.out_tsc = 0;
}

void pmu_vcpu_switch_in(struct vcpu *to)
{
    struct vcpu_pmu *p = &to->pmu;
    uint64_t t0 = pmu_arch_tsc();
    __atomic_store_n(&pmu_cpu_of(to->cpu)->vcpu, to, __ATOMIC_RELEASE);
    swevent_add(&p->sw, SWEVENT_VCPU_SWITCHES, 1);
    skip_time_out(p, t0);
    bool loaded = p->be.ops && !p->ctx.loaded;
    if (loaded) {
        enum pmu_status st = p->be.ops->load(p->be.self, &p->ctx);
        if (st != PMU_OK)
            note_failure(to, "loading the counters", st);
    }
    const struct pmu_kind *k = pmu_config.kind;
    if (mux_own(k, to))
        mux_own(k, to)->load(to);
    if (k && k->switch_in)
        k->switch_in(to, loaded);
    pmi_in(to);
    p->sw_state.ticks += pmu_arch_tsc() - t0;
}

void pmu_switch_report(const struct vcpu *v)
{
    const struct pmu_switch_state *s = &v->pmu.sw_state;
    uint64_t in = v->pmu.sw.value[SWEVENT_VCPU_SWITCHES];
    if (in <= 1 && !s->failures)
        return;     /* only its start: the VCPU never shared its CPU */
    printk("pmu: vcpu %u: %lu switches in, %lu TSC ticks of PMU switch work (%lu per "
           "switch)%s\n", v->id, in - 1, s->ticks, s->ticks / (in - 1 ? in - 1 : 1),
           s->failures ? ", counts unreliable: a counter MSR faulted" : "");
}
