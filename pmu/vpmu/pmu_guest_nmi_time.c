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
    t->last_entry_tsc = 0;
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

/* Vertigo's time since the last entry inside the handler: everything
 * from that entry's TSC read (here, before the offset's write) to this
 * one's but the guest's run between them (the offset's write, the entry
 * and exit path around the run included, measured, never guessed); at the
 * first exit inside the handler, from its exit's TSC (the exit path
 * before it, a few instructions, stays the guest's). Read here, not at
 * the entry's own TSC read: the path from that read to the VM entry must
 * not vary (vmx/vmx_timer.c learns it). What the guest still sees of
 * Vertigo is the last entry's path after this read. Never more than
 * Vertigo spent, so the guest's TSC never runs backwards. */
void pmu_guest_nmi_time_entered(struct vcpu *v)
{
    struct pmu_guest_nmi_time *t = &v->pmu.vpmu.nmi_time;
    uint64_t now = pmu_arch_tsc();
    uint64_t from = t->last_entry_tsc ? t->last_entry_tsc + t->run_ticks : pmu_arch_exit_tsc(v);
    uint64_t span = now > from ? now - from : 0;
    if (pmu_arch_guest_tsc_behind(v, t->behind + span)) {
        t->behind += span;
        t->exits++;
        t->last_entry_tsc = now;
    }
}
