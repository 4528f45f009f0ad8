/* The virtual APIC timer (SDM Vol. 3A 11.5.4). The count is never stored
 * as it runs: the time the count was loaded and the guest TSC give it,
 * and timer_due_tsc is the next expiry the VCPU's runner must honour. */
#include "vmm/vhw/vlapic_timer.h"

static uint32_t timer_mode(const struct vlapic *a)
{
    return a->lvt[VLAPIC_LVT_TIMER] & VLAPIC_TIMER_MODE_MASK;
}

/* DCR bits 3,1,0: 000 -> 2, 001 -> 4, ..., 110 -> 128, 111 -> 1. */
uint32_t vlapic_timer_divider(uint32_t dcr)
{
    uint32_t code = (dcr & 3u) | ((dcr >> 1) & 4u);
    return code == 7u ? 1u : 2u << code;
}

static uint64_t tsc_per_count(const struct vlapic *a)
{
    return a->tsc_per_tick * vlapic_timer_divider(a->timer_dcr);
}

/* How soon the timer may fire again, one rule for the three modes of SDM
 * Vol. 3A 11.5.4 (the LVT timer entry's bits 18:17), applied here and
 * only here: every path that arms the count (an initial count, a divide
 * change, a periodic reload) takes its period from this function.
 * - Periodic: the count reloads itself, so nothing the guest does bounds
 *   the interrupts it gets but this period: at least timer_min_period
 *   (vlapic.h: VLAPIC_TIMER_MIN_PERIOD_US, as KVM's min_timer_period_us).
 * - One-shot: fires once per initial-count write.
 * - TSC-deadline (11.5.4.1): fires once per IA32_TSC_DEADLINE write.
 *   Those two need a guest exit (the WRMSR) for each interrupt, as a
 *   self-IPI does: the exits bound them, and a floor would only delay a
 *   guest's short timers, so their period is the guest's own. */
static uint64_t period_tsc(const struct vlapic *a)
{
    uint64_t period = (uint64_t)a->timer_icr * tsc_per_count(a);
    if (period && timer_mode(a) == VLAPIC_TIMER_PERIODIC && period < a->timer_min_period)
        return a->timer_min_period;
    return period;
}

/* Guest TSC ticks `counts` counts of the current period take: each count
 * slower when the period was floored. */
static uint64_t counts_tsc(const struct vlapic *a, uint32_t counts)
{
    uint64_t period = period_tsc(a);
    if (period != (uint64_t)a->timer_icr * tsc_per_count(a))    /* floored: small values */
        return (uint64_t)counts * period / a->timer_icr;
    return (uint64_t)counts * tsc_per_count(a);
}

void vlapic_timer_set_min_period(struct vlapic *a, uint64_t tsc_hz)
{
    a->timer_min_period = tsc_hz / (1000000u / VLAPIC_TIMER_MIN_PERIOD_US);
}

static void disarm(struct vlapic *a)
{
    a->timer_due_tsc = VLAPIC_NO_DEADLINE;
}

static void start_count(struct vlapic *a, uint64_t now_tsc)
{
    a->timer_start_tsc = now_tsc;
    if (a->timer_icr == 0)
        disarm(a);
    else
        a->timer_due_tsc = now_tsc + period_tsc(a);
}

void vlapic_timer_set_lvt(struct vlapic *a, uint32_t lvt)
{
    bool was_deadline = timer_mode(a) == VLAPIC_TIMER_TSC_DEADLINE;
    bool is_deadline = (lvt & VLAPIC_TIMER_MODE_MASK) == VLAPIC_TIMER_TSC_DEADLINE;

    a->lvt[VLAPIC_LVT_TIMER] = lvt;
    if (was_deadline != is_deadline) {
        /* SDM 11.5.4.1: a transition to or from TSC-deadline mode disarms. */
        disarm(a);
        a->timer_icr = 0;
        a->tsc_deadline = 0;
    }
}

void vlapic_timer_set_initial(struct vlapic *a, uint32_t count, uint64_t now_tsc)
{
    if (timer_mode(a) == VLAPIC_TIMER_TSC_DEADLINE)
        return;
    a->timer_icr = count;
    start_count(a, now_tsc);
}

/* The count already elapsed keeps its counts: the count goes on from the
 * current count at the new rate (the SDM leaves a change while counting
 * unspecified; this is the least surprising reading), its period the
 * one period_tsc gives at the new rate (floored as any other). A periodic
 * timer still reloads the full initial count afterwards. */
void vlapic_timer_set_divide(struct vlapic *a, uint32_t dcr, uint64_t now_tsc)
{
    uint32_t left = vlapic_timer_current(a, now_tsc);

    a->timer_dcr = dcr;
    if (timer_mode(a) == VLAPIC_TIMER_TSC_DEADLINE || left == 0)
        return;
    a->timer_start_tsc = now_tsc - counts_tsc(a, a->timer_icr - left);
    a->timer_due_tsc = a->timer_start_tsc + period_tsc(a);
}

/* A disarmed count (a one-shot count that ran out, or none loaded) reads
 * 0 and stays there when the mode changes to periodic: only a new initial
 * count starts it again (SDM 11.5.4; KVM and QEMU behave so too). */
uint32_t vlapic_timer_current(const struct vlapic *a, uint64_t now_tsc)
{
    uint64_t elapsed, period = period_tsc(a);

    if (timer_mode(a) == VLAPIC_TIMER_TSC_DEADLINE || period == 0 ||
        a->timer_due_tsc == VLAPIC_NO_DEADLINE)
        return 0;
    elapsed = now_tsc - a->timer_start_tsc;
    if (elapsed >= period) {
        if (timer_mode(a) != VLAPIC_TIMER_PERIODIC)
            return 0;
        elapsed %= period;
    }
    if (period != (uint64_t)a->timer_icr * tsc_per_count(a))    /* floored: slower */
        return a->timer_icr - (uint32_t)(elapsed * a->timer_icr / period);
    return a->timer_icr - (uint32_t)(elapsed / tsc_per_count(a));
}

void vlapic_timer_set_deadline(struct vlapic *a, uint64_t deadline_tsc)
{
    if (timer_mode(a) != VLAPIC_TIMER_TSC_DEADLINE)
        return;
    a->tsc_deadline = deadline_tsc;
    a->timer_due_tsc = deadline_tsc == 0 ? VLAPIC_NO_DEADLINE : deadline_tsc;
}

uint64_t vlapic_timer_get_deadline(const struct vlapic *a)
{
    return timer_mode(a) == VLAPIC_TIMER_TSC_DEADLINE ? a->tsc_deadline : 0;
}

/* Expiry: the deadline MSR clears, a one-shot count stays at 0, a
 * periodic count reloads from the last period boundary before now. */
static void expire(struct vlapic *a, uint64_t now_tsc)
{
    uint64_t period = period_tsc(a), periods;

    switch (timer_mode(a)) {
    case VLAPIC_TIMER_TSC_DEADLINE:
        a->tsc_deadline = 0;
        disarm(a);
        break;
    case VLAPIC_TIMER_PERIODIC:
        periods = (now_tsc - a->timer_start_tsc) / period;
        a->timer_start_tsc += periods * period;
        a->timer_due_tsc = a->timer_start_tsc + period;
        break;
    default:
        disarm(a);
        break;
    }
}

void vlapic_timer_advance(struct vlapic *a, uint64_t now_tsc)
{
    if (a->timer_due_tsc == VLAPIC_NO_DEADLINE || now_tsc < a->timer_due_tsc)
        return;
    expire(a, now_tsc);
    vlapic_deliver_lvt(a, VLAPIC_LVT_TIMER);
}

uint64_t vlapic_next_deadline(const struct vlapic *a)
{
    return a->timer_due_tsc;
}
