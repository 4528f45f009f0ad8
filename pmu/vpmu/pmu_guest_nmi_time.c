/* The guest's clock inside its NMI handlers (see pmu/vpmu/pmu_guest_nmi_time.h). */
#include "pmu/vpmu/pmu_guest_nmi_time.h"

#include "pmu/pmu_arch.h"

/* A new handler (or none): the time taken off the last one given back. */
static void handler_changed(struct vcpu *v, uint64_t handler)
{
    struct pmu_guest_nmi_time *t = &v->pmu.vpmu.nmi_time;
    if (t->behind) {
        pmu_arch_guest_tsc_behind(v, 0);
        t->given_back += t->behind;
        t->behind = 0;
    }
    t->handler = handler;
    t->hiding = false;
}

void pmu_guest_nmi_time_before_entry(struct vcpu *v)
{
    struct pmu_guest_nmi_time *t = &v->pmu.vpmu.nmi_time;
    uint64_t handler = pmu_arch_guest_nmi_handler(v);
    if (handler != t->handler) {
        handler_changed(v, handler);    /* the entry that injects it: nothing to hide yet */
        return;
    }
    t->hiding = handler && v->pmu.vpmu.on;
    if (t->hiding)
        pmu_arch_guest_nmi_return_exits(v);
}

void pmu_guest_nmi_time_entering(struct vcpu *v)
{
    struct pmu_guest_nmi_time *t = &v->pmu.vpmu.nmi_time;
    uint64_t span = pmu_arch_tsc() - pmu_arch_exit_tsc(v) + pmu_arch_entry_exit_ticks(v);
    if (pmu_arch_guest_tsc_behind(v, t->behind + span)) {
        t->behind += span;
        t->exits++;
    }
}
