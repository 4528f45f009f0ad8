/* Single-stepping Vertigo for the software PMU's hypervisor counting (see
 * pmu/pmu_step.h). Steps are absolute per-CPU numbers (the step area's
 * count, advanced by the #DB fast path); the stepper's step 1 is step
 * `base` + 1. */
#include "pmu/pmu_step.h"

#include "boot/traps.h"
#include "pmu/pmu_cpu.h"
#include "pmu/pmu_soft.h"
#include "vmm/console.h"

#define NO_STEP UINT64_MAX

static pmu_step_sample_fn sampler;

void pmu_step_set_sampler(pmu_step_sample_fn fn)
{
    sampler = fn;
}

static struct pmu_step_state *state_of(const struct vcpu *v)
{
    return &pmu_cpu_of(v->cpu)->step;
}

static uint32_t apply_steps(struct vcpu *v, uint64_t upto)
{
    struct pmu_step_state *st = state_of(v);
    if (upto > st->applied) {
        pmu_soft_hypervisor_ticks(&v->pmu.ctx, upto - st->applied);
        st->applied = upto;
    }
    return pmu_ctx_take_overflows(&v->pmu.ctx);
}

static void sync_stepper(struct vcpu *v, uint64_t base)
{
    struct pmu_step_state *st = state_of(v);
    pmu_soft_stepper_sync(&st->stepper, &v->pmu.ctx);
    st->base = base;
}

static uint64_t next_absolute(const struct pmu_step_state *st)
{
    return st->stepper.next == NO_STEP ? NO_STEP : st->base + st->stepper.next;
}

void pmu_step_arm(struct vcpu *v, bool on)
{
    struct percpu_step *area = pmu_arch_this_step_area();
    struct pmu_step_state *st = state_of(v);
    pmu_arch_single_step(false);
    st->applied = st->base = area->count;
    area->next = NO_STEP;
    __atomic_store_n(&area->armed, on ? 1u : 0u, __ATOMIC_RELEASE);
}

uint32_t pmu_step_exit_begin(struct vcpu *v)
{
    pmu_arch_single_step(false);
    return apply_steps(v, pmu_arch_this_step_area()->at_exit);
}

uint32_t pmu_step_pause(struct vcpu *v)
{
    pmu_arch_single_step(false);
    return apply_steps(v, pmu_arch_this_step_area()->count);
}

/* Overflows among steps base+1 .. `upto` already taken (the exit path ran
 * them before this sync): sampled with the RIP the ring kept. */
static void replay(struct vcpu *v, const struct percpu_step *area, uint64_t upto)
{
    struct pmu_step_state *st = state_of(v);
    uint32_t sampled = v->pmu.sample_mask;
    while (next_absolute(st) <= upto) {
        uint64_t step = next_absolute(st);
        uint32_t mask = pmu_soft_stepper_overflow(&st->stepper) & sampled;
        if (!mask)
            continue;
        if (upto - step >= PERCPU_STEP_RIP_COUNT) {
            st->missed++;
            continue;
        }
        st->replayed++;
        sampler(area->rips[step & PERCPU_STEP_RIP_MASK], 0, mask);
    }
}

uint32_t pmu_step_resume(struct vcpu *v)
{
    struct percpu_step *area = pmu_arch_this_step_area();
    struct pmu_step_state *st = state_of(v);
    uint64_t now = area->count;
    sync_stepper(v, st->applied);
    replay(v, area, now);
    uint32_t overflows = apply_steps(v, now);
    area->next = next_absolute(st);
    pmu_arch_single_step(true);
    return overflows;
}

/* The #DB slow path (boot/traps.h): the step count reached step.next. */
bool step_trap_handle(struct trap_frame *frame)
{
    struct pmu_cpu *c = pmu_this_cpu();
    struct percpu_step *area = pmu_arch_this_step_area();
    struct vcpu *v = c->vcpu;
    if (!area->armed || !v)
        return false;
    struct pmu_step_state *st = &c->step;
    if (area->count != area->next)
        return true;                /* a step the slow path was not asked for */
    uint32_t mask = pmu_soft_stepper_overflow(&st->stepper) & v->pmu.sample_mask;
    area->next = next_absolute(st);
    if (mask) {
        st->taken++;
        sampler(frame->rip, frame->rbp, mask);
    }
    return true;
}

void pmu_step_report(const struct vcpu *v)
{
    const struct pmu_step_state *st = state_of(v);
    const struct percpu_step *area = pmu_arch_step_area(v->cpu);
    if (!area->count)
        return;
    printk("pmu: vcpu %u: Vertigo single-stepped for :h sampling: %lu steps, %lu hypervisor "
           "samples at their step, %lu from the exit path's RIP ring, %lu missed\n", v->id,
           area->count, st->taken, st->replayed, st->missed);
}
