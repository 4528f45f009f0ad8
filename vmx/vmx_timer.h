/* The VMX-preemption timer, shared by every part of Vertigo that needs a
 * VCPU to exit after some guest time (SDM Vol. 3C, 26.5.1 "VMX-Preemption
 * Timer"): the EPT guard's sink window (vmx/ept_guard.c) and the software
 * PMU's steps and overflow points (pmu/run/pmu_run.c). Each owner asks for a
 * deadline in TSC ticks of guest time; before each entry the timer is
 * loaded with the nearest one, and after each exit the guest ticks that
 * passed are measured (timer value loaded minus value saved by the exit
 * control "save VMX-preemption timer value"; in Bochs, once the entry and
 * exit path's length is known, the TSC difference less it, the value not
 * written again while the nearest deadline stays as far) and taken
 * off every deadline. An owner whose deadline reached 0 has expired. */
#ifndef VMX_VMX_TIMER_H
#define VMX_VMX_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/vcpu.h"

/* Sets up v's timer state with no deadline. Call once before its first entry. */
void vmx_timer_init(struct vcpu *v);

/* Ticks the VM entry instruction itself takes off the timer before the
 * first guest instruction (0 on hardware; 1 in Bochs). Called only where a
 * TSC tick is one instruction (Bochs): there a run may also be measured
 * lazily, as its TSC difference less the entry and exit path's own ticks,
 * with the timer's value loaded once for many entries and never read back
 * (vmx/vmx_timer.c, arm_lazy). */
void vmx_timer_set_entry_ticks(unsigned int ticks);

/* Before each VM entry: loads the timer with the nearest deadline (or
 * switches it off when none). */
void vmx_timer_arm(struct vcpu *v);

/* After each VM exit: measures the guest ticks since the entry, advances
 * by them the guest clock the deadlines are set on, and returns them. When
 * the timer was off, the TSC difference between entry and exit is returned
 * instead (it includes the VM entry and exit themselves). */
uint64_t vmx_timer_settle(struct vcpu *v);

#define VMX_TIMER_NONE UINT64_MAX   /* deadline[owner]: no deadline */
/* The longest request: with the guest clock below 2^62 too (a century of
 * guest time at 1 GHz), a deadline never reaches VMX_TIMER_NONE. */
#define VMX_TIMER_TICKS_MAX (1ull << 62)

/* An owner other than the PMU moved its deadline from old to new: the
 * nearest of theirs (vmx_timer_arm's) follows without a search, unless
 * old was that nearest and new is later (a virtual APIC timer re-armed at
 * every entry, a slice, a wake-up: each asks again at many entries). */
static inline void vmx_timer_others_moved(struct vmx_timer_state *t, uint64_t old, uint64_t new)
{
    if (new == old)
        return;
    if (new <= t->others_nearest)
        t->others_nearest = new;
    else if (old == t->others_nearest)
        t->others_known = false;
}

/* Owner `owner` wants the guest to exit after `ticks` TSC ticks of guest
 * time (ticks >= 1), replacing any earlier request of that owner. The three
 * below are inline: the PMU plans every entry with them. Only the first
 * two change a deadline. */
static inline void vmx_timer_request(struct vcpu *v, enum vmx_timer_owner owner, uint64_t ticks)
{
    struct vmx_timer_state *t = &v->vmx.timer;
    if (ticks > VMX_TIMER_TICKS_MAX)
        ticks = VMX_TIMER_TICKS_MAX;
    uint64_t old = t->deadline[owner];
    t->deadline[owner] = t->clock + (ticks ? ticks : 1);
    if (owner != VMX_TIMER_PMU)
        vmx_timer_others_moved(t, old, t->deadline[owner]);
}

/* Withdraws owner's deadline. */
static inline void vmx_timer_cancel(struct vcpu *v, enum vmx_timer_owner owner)
{
    struct vmx_timer_state *t = &v->vmx.timer;
    uint64_t old = t->deadline[owner];
    t->deadline[owner] = VMX_TIMER_NONE;
    if (owner != VMX_TIMER_PMU)
        vmx_timer_others_moved(t, old, VMX_TIMER_NONE);
}

/* True if owner's deadline has passed (it stays requested until cancelled). */
static inline bool vmx_timer_expired(const struct vcpu *v, enum vmx_timer_owner owner)
{
    return v->vmx.timer.deadline[owner] <= v->vmx.timer.clock;
}

#endif
