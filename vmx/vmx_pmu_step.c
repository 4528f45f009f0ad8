/* Single-stepping Vertigo for the software PMU's hypervisor counting (see
 * vmx/vmx_pmu_step.h). Steps are absolute per-CPU numbers (percpu
 * step_count, advanced by the #DB fast path); the stepper's step 1 is
 * step `base` + 1. */
#include "vmx/vmx_pmu_step.h"

#include "boot/cpu.h"
#include "boot/percpu.h"
#include "pmu/pmu_soft.h"
#include "vmm/console.h"
#include "vmx/sample.h"

#define NO_STEP UINT64_MAX

struct step_state {
    struct pmu_soft_stepper stepper;
    uint64_t base;              /* step_count at the last sync */
    uint64_t applied;           /* steps added to the context */
    uint64_t taken;             /* hypervisor samples taken at their step */
    uint64_t replayed;          /* taken from the RIP ring at a sync */
    uint64_t missed;            /* the ring no longer held the step's RIP */
};

static struct step_state states[MAX_CPUS];

static struct step_state *state_of(const struct vcpu *v)
{
    return &states[v->cpu % MAX_CPUS];
}

/* EFLAGS.TF of the running code; the POPFQ that sets it traps after the
 * next instruction, the one that clears it after itself (SDM Vol. 3B
 * 18.3.1.4): both are counted as steps. */
static void single_step(bool on)
{
    uint64_t tf = 1ull << RFLAGS_TF_BIT;
    uint64_t flags = read_rflags();
    flags = on ? flags | tf : flags & ~tf;
    __asm__ volatile("pushq %0; popfq" : : "r"(flags) : "memory", "cc");
}

static uint32_t apply_steps(struct vcpu *v, uint64_t upto)
{
    struct step_state *st = state_of(v);
    if (upto > st->applied) {
        pmu_soft_hypervisor_ticks(&v->pmu.ctx, upto - st->applied);
        st->applied = upto;
    }
    return pmu_ctx_take_overflows(&v->pmu.ctx);
}

static void sync_stepper(struct vcpu *v, uint64_t base)
{
    struct step_state *st = state_of(v);
    pmu_soft_stepper_sync(&st->stepper, &v->pmu.ctx);
    st->base = base;
}

static uint64_t next_absolute(const struct step_state *st)
{
    return st->stepper.next == NO_STEP ? NO_STEP : st->base + st->stepper.next;
}

void vmx_pmu_step_arm(struct vcpu *v, bool on)
{
    struct percpu *pc = this_cpu();
    struct step_state *st = state_of(v);
    single_step(false);
    st->applied = st->base = pc->step_count;
    pc->step_next = NO_STEP;
    __atomic_store_n(&pc->step_armed, on ? 1u : 0u, __ATOMIC_RELEASE);
}

uint32_t vmx_pmu_step_exit_begin(struct vcpu *v)
{
    single_step(false);
    return apply_steps(v, this_cpu()->step_at_exit);
}

uint32_t vmx_pmu_step_pause(struct vcpu *v)
{
    single_step(false);
    return apply_steps(v, this_cpu()->step_count);
}

/* Overflows among steps base+1 .. `upto` already taken (the exit path ran
 * them before this sync): sampled with the RIP the ring kept. */
static void replay(struct vcpu *v, uint64_t upto)
{
    struct percpu *pc = this_cpu();
    struct step_state *st = state_of(v);
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
        vmx_sample_hypervisor_step(pc->step_rips[step & PERCPU_STEP_RIP_MASK], 0, mask);
    }
}

uint32_t vmx_pmu_step_resume(struct vcpu *v)
{
    struct percpu *pc = this_cpu();
    struct step_state *st = state_of(v);
    uint64_t now = pc->step_count;
    sync_stepper(v, st->applied);
    replay(v, now);
    uint32_t overflows = apply_steps(v, now);
    pc->step_next = next_absolute(st);
    single_step(true);
    return overflows;
}

/* The #DB slow path: step_count reached step_next. */
bool step_trap_handle(struct trap_frame *frame)
{
    struct percpu *pc = this_cpu();
    struct vcpu *v = pc->sample_vcpu;
    if (!pc->step_armed || !v)
        return false;
    struct step_state *st = state_of(v);
    if (pc->step_count != pc->step_next)
        return true;                /* a step the slow path was not asked for */
    uint32_t mask = pmu_soft_stepper_overflow(&st->stepper) & v->pmu.sample_mask;
    pc->step_next = next_absolute(st);
    if (mask) {
        st->taken++;
        vmx_sample_hypervisor_step(frame->rip, frame->rbp, mask);
    }
    return true;
}

void vmx_pmu_step_report(const struct vcpu *v)
{
    const struct step_state *st = state_of(v);
    const struct percpu *pc = percpu_of(v->cpu);
    if (!pc->step_count)
        return;
    printk("pmu: vcpu %u: Vertigo single-stepped for :h sampling: %lu steps, %lu hypervisor "
           "samples at their step, %lu from the exit path's RIP ring, %lu missed\n", v->id,
           pc->step_count, st->taken, st->replayed, st->missed);
}
