/* The guest's clock inside its NMI handlers (see pmu/vpmu/pmu_guest_nmi_time.h). */
#include "pmu/vpmu/pmu_guest_nmi_time.h"

#include "pmu/pmu_arch.h"

/* A new handler (or none): the time taken off the last one given back.
 * The guest's IRET does not exit for it: the first exit after the IRET
 * (the handler is then none, or the next PMI's) gives the time back. */
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

/* The exit after an entry inside the handler: where Vertigo's time
 * starts again (t->from, the end of the guest's run: the entry's TSC read
 * before the offset's write plus the run), and what Vertigo spent around
 * the run, from that read to the exit's TSC less the run: the least of
 * it so far is t->tail (0 until measured). */
void pmu_guest_nmi_time_exited(struct vcpu *v, uint64_t guest_ticks)
{
    struct pmu_guest_nmi_time *t = &v->pmu.vpmu.nmi_time;
    uint64_t exit = pmu_arch_exit_tsc(v);
    t->from = t->last_entry_tsc + guest_ticks;
    if (!t->last_entry_tsc || exit < t->from)
        return;
    if (!t->tail_learnt || exit - t->from < t->tail) {
        t->tail = exit - t->from;
        t->tail_learnt = true;
    }
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
    if (t->hiding && !t->last_entry_tsc)
        t->from = pmu_arch_exit_tsc(v);     /* the first exit inside it */
}

/* Vertigo's time since the last entry inside the handler: everything
 * from that entry's TSC read (here, before the offset's write) to this
 * one's but the guest's run between them (the offset's write, the entry
 * and exit path around the run included, measured, never guessed); at the
 * first exit inside the handler, from its exit's TSC. Read here, not at
 * the entry's own TSC read: the path from that read to the VM exit must
 * not vary (vmx/vmx_timer.c learns it). Taken off ahead as well: the
 * least Vertigo was seen to spend around one run, from this read to the
 * guest and from the guest to the exit's TSC read (t->tail), which the
 * guest would otherwise see once per handler (the last entry's path and
 * the first exit's). Never more than Vertigo spent, so the guest's TSC
 * never runs backwards. */
void pmu_guest_nmi_time_entered(struct vcpu *v)
{
    struct pmu_guest_nmi_time *t = &v->pmu.vpmu.nmi_time;
    uint64_t now = pmu_arch_tsc();
    uint64_t span = now > t->from ? now - t->from : 0;
    if (pmu_arch_guest_tsc_behind(v, t->behind + span + t->tail)) {
        t->behind += span;
        t->exits++;
        t->last_entry_tsc = now;
    }
}
