/* Single-stepping Vertigo for the software PMU's hypervisor counting (see
 * pmu/soft/pmu_step.h). Steps are absolute per-CPU numbers (the step area's
 * count, advanced by the #DB fast path); the stepper's step 1 is step
 * `base` + 1. */
#include "pmu/soft/pmu_step.h"

#include "boot/traps.h"
#include "pmu/run/pmu_config.h"
#include "pmu/run/pmu_cpu.h"
#include "pmu/soft/pmu_soft.h"
#include "lib/console.h"

#define NO_STEP UINT64_MAX

static pmu_step_sample_fn sampler;

void pmu_step_set_sampler(pmu_step_sample_fn fn)
{
    sampler = fn;
}

struct pmu_step_state pmu_step_states[MAX_CPUS];

static struct pmu_step_state *state_of(const struct vcpu *v)
{
    return &pmu_step_states[v->cpu % MAX_CPUS];
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

/* The address a late overflow's sample carries (pmu/soft/pmu_step.h). Never
 * called; its own instruction keeps it apart from its neighbours. */
__attribute__((noinline, used)) void pmu_step_late_overflow(void)
{
    __asm__ volatile("nop");
}

static uint64_t ticks_between(uint64_t from, uint64_t to)
{
    return to > from ? to - from : 0;
}

/* The stretch that ends at this sync point lasted `length` of Vertigo's
 * instructions: the longest of its kind so far. */
static void stretch_ended(struct pmu_step_state *st, uint64_t length)
{
    if (st->kind >= PMU_STRETCH_KINDS)
        return;                 /* the first stretch after arming: no kind */
    uint32_t *longest = &st->longest[st->kind];
    if (length > *longest)
        *longest = length < UINT32_MAX ? (uint32_t)length : UINT32_MAX;
}

/* How far from an overflow a stretch of this kind may start unstepped. */
static uint64_t stretch_bound(const struct pmu_step_state *st, unsigned int kind)
{
    uint64_t longest = st->longest[kind];
    uint64_t bound = longest ? longest + PMU_STEP_MARGIN : pmu_config.step_ahead;
    return bound < pmu_config.step_ahead ? bound : pmu_config.step_ahead;
}

void pmu_step_arm(struct vcpu *v, bool on)
{
    struct percpu_step *area = pmu_arch_this_step_area();
    struct pmu_step_state *st = state_of(v);
    pmu_arch_single_step(false);
    st->applied = st->base = st->start_count = area->count;
    st->kind = PMU_STRETCH_KINDS;
    st->unstepped = st->far = false;
    st->exit_path_ticks = 0;
    area->next = NO_STEP;
    area->step_exits = 0;       /* the next resume decides */
    area->exit_tsc = UINT64_MAX;
    st->entry_lead = 0;         /* this session's entry path is learnt anew */
    st->joined_ticks = 0;
    __atomic_store_n(&area->armed, on ? 1u : 0u, __ATOMIC_RELEASE);
}

/* Adds ticks of Vertigo's time that ran unstepped. An overflow among them
 * means the stretch was longer than pmu.step_ahead: its instruction is not
 * known; it is sampled at pmu_step_late_overflow (no call stack) and
 * counted as late. */
static uint32_t apply_unstepped(struct vcpu *v, uint64_t ticks)
{
    struct pmu_step_state *st = state_of(v);
    st->unstepped_ticks += ticks;
    pmu_soft_hypervisor_ticks(&v->pmu.ctx, ticks);
    uint32_t overflows = pmu_ctx_take_overflows(&v->pmu.ctx);
    uint32_t mask = overflows & v->pmu.sample.mask;
    if (mask) {
        st->late++;
        sampler((uint64_t)(uintptr_t)pmu_step_late_overflow, 0, mask);
    }
    return overflows;
}

/* An unstepped entry stretch lasted `before` up to the entry's TSC read,
 * and its exit path `exit_path`: the least lead and the longest exit path
 * so far (both only ever seen on entries Vertigo did not step). */
static void entry_seen(struct pmu_step_state *st, uint64_t before, uint64_t exit_path)
{
    if (!st->entry_lead || before < st->entry_lead)
        st->entry_lead = before;
    if (exit_path > st->longest_exit_path)
        st->longest_exit_path = exit_path < UINT32_MAX ? (uint32_t)exit_path : UINT32_MAX;
}

/* The exit path of an unstepped entry: its ticks up to the sync are added
 * at the next resume, after the guest's. Unstepped, all of them by TSC;
 * stepped by the stub, those up to its TSC read by TSC and the rest as
 * steps (the resume's take_steps). Returns the path's length. */
static uint64_t unstepped_exit_path(struct pmu_step_state *st, const struct percpu_step *area,
                                    uint64_t entry, uint64_t guest_ticks)
{
    if (!area->exit_stepped) {
        st->exit_path_ticks = ticks_between(guest_ticks, ticks_between(entry, pmu_arch_tsc()));
        return st->exit_path_ticks;
    }
    st->exit_path_ticks = ticks_between(guest_ticks, ticks_between(entry, area->exit_read));
    return st->exit_path_ticks + ticks_between(area->at_exit, area->count);
}

uint32_t pmu_step_exit_begin(struct vcpu *v, uint64_t guest_ticks)
{
    struct pmu_step_state *st = state_of(v);
    const struct percpu_step *area = pmu_arch_this_step_area();
    pmu_arch_single_step(false);
    if (!st->unstepped) {
        stretch_ended(st, ticks_between(st->start_count, area->at_exit));
        return apply_steps(v, area->at_exit);
    }
    /* Vertigo's time up to the entry comes before the guest's ticks; the
     * rest (the entry and exit instructions, the exit path) after them. */
    st->unstepped = st->far = false;
    uint64_t entry = pmu_arch_entry_tsc(v);
    uint64_t before = ticks_between(st->unstepped_tsc, entry);
    uint64_t exit_path = unstepped_exit_path(st, area, entry, guest_ticks);
    stretch_ended(st, ticks_between(st->kind_tsc, entry) + exit_path);
    if (st->kind == PMU_STRETCH_ENTRY)      /* the entry's lead is from its kind's start */
        entry_seen(st, ticks_between(st->kind_tsc, entry), exit_path);
    return apply_unstepped(v, before);
}

uint32_t pmu_step_pause(struct vcpu *v)
{
    struct pmu_step_state *st = state_of(v);
    pmu_arch_single_step(false);
    if (!st->unstepped) {
        uint64_t now = pmu_arch_this_step_area()->count;
        stretch_ended(st, ticks_between(st->start_count, now));
        return apply_steps(v, now);
    }
    st->unstepped = st->far = false;
    uint64_t now = pmu_arch_tsc();
    stretch_ended(st, ticks_between(st->kind_tsc, now));
    return apply_unstepped(v, ticks_between(st->unstepped_tsc, now));
}

/* Overflows among steps base+1 .. `upto` already taken (the exit path ran
 * them before this sync): sampled with the RIP the ring kept. */
static void replay(struct vcpu *v, const struct percpu_step *area, uint64_t upto)
{
    struct pmu_step_state *st = state_of(v);
    uint32_t sampled = v->pmu.sample.mask;
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

/* The TSC from which the exit stub steps the exit path of the unstepped
 * entry stretch starting now, `headroom` events from the nearest overflow
 * of a counter sampling Vertigo that counts the guest's run
 * (pmu_soft_run_headroom): a counted event takes at least one TSC tick (a
 * run in a mode a counter leaves out, or halted, takes ticks and no
 * events), so that overflow comes no sooner than `headroom` ticks from
 * now, and an exit at least the longest exit path (plus PMU_STEP_MARGIN;
 * pmu.step_ahead before one was seen) before it cannot hold it. An exit
 * the guest takes by itself just before the overflow, or a run the lead
 * stopped short of it, has its exit path stepped. A counter the run does
 * not count is as far from its overflow at the exit as the entry path
 * leaves it, and this stretch, unstepped, was further from it than an
 * entry with its exit path has lasted: no exit path needs a step for it
 * (UINT64_MAX when no counter is left). */
static uint64_t exit_step_tsc(const struct pmu_step_state *st, uint64_t headroom)
{
    if (headroom == UINT64_MAX)
        return UINT64_MAX;
    uint64_t path = st->longest_exit_path;
    uint64_t bound = path ? path + PMU_STEP_MARGIN : pmu_config.step_ahead;
    if (bound > pmu_config.step_ahead)
        bound = pmu_config.step_ahead;
    return headroom > bound ? st->unstepped_tsc + (headroom - bound) : 0;
}

/* An unstepped entry stretch: the exit stub's step point for the exit
 * path after it, from `headroom`, the distance of every counter sampling
 * Vertigo from its overflow at the stretch's start. */
static inline void set_exit_step_tsc(struct vcpu *v, const struct pmu_step_state *st,
                              struct percpu_step *area, uint64_t headroom)
{
    area->exit_tsc = exit_step_tsc(st, pmu_soft_run_headroom(v->pmu.be.self, &v->pmu.ctx,
                                                             v->pmu.entered_halted, headroom));
}

/* Whether the round from here, `headroom` events from the nearest
 * overflow of a counter sampling Vertigo, is far (pmu/soft/pmu_step.h). */
static bool round_is_far(const struct vcpu *v, uint64_t headroom)
{
    return !v->pmu.mux.on && headroom / PMU_STEP_FAR_AHEADS > pmu_config.step_ahead;
}

/* The round counted from `start`, `headroom` events from the nearest
 * overflow, is far; its stretch of `kind` began at `kind_tsc` (an exit's
 * handling, which takes in the rest after an emulated instruction too). */
static void go_far(struct pmu_step_state *st, uint64_t start, uint64_t kind_tsc, unsigned int kind,
                   uint64_t headroom)
{
    st->far = st->unstepped = true;
    st->kind = kind;
    st->unstepped_tsc = start;
    st->kind_tsc = kind_tsc;
    st->unstepped_headroom = headroom;
    st->absorbed = 0;
    st->unstepped_runs++;
    st->far_rounds++;
}

/* The stretch of Vertigo from here to the next sync point runs unstepped
 * when every counter sampling it is further from its next overflow than
 * a stretch of its kind may last (its TSC difference is then counted at
 * that sync point); otherwise it is single-stepped, and so is the exit
 * path of an entry it reaches. Every step so far is in the context
 * (st->applied is area->count), so the distance is the context's; the
 * stepper, which only a stepped stretch uses, is synced only for one. */
static void start_stretch(struct vcpu *v, struct pmu_step_state *st, struct percpu_step *area,
                          unsigned int kind)
{
    uint64_t headroom = pmu_soft_hypervisor_headroom(&v->pmu.ctx);
    st->kind = kind < PMU_STRETCH_KINDS ? kind : PMU_STRETCH_EXIT_REASONS - 1;
    st->start_count = area->count;
    st->unstepped = headroom > stretch_bound(st, st->kind);
    if (st->unstepped) {
        st->unstepped_runs++;
        st->unstepped_headroom = headroom;
        st->absorbed = 0;
        area->next = NO_STEP;
        area->step_exits = 0;
        st->unstepped_tsc = st->kind_tsc = pmu_arch_tsc();
        if (st->kind == PMU_STRETCH_ENTRY)
            set_exit_step_tsc(v, st, area, headroom);
        else if (round_is_far(v, headroom))
            go_far(st, st->unstepped_tsc, st->unstepped_tsc, st->kind, headroom);
        return;
    }
    sync_stepper(v, st->applied);
    st->stepped_runs++;
    area->next = next_absolute(st);
    area->step_exits = 1;
    pmu_arch_single_step(true);
}

/* Whether every counter sampling Vertigo (unstepped_headroom events from
 * its overflow when the stretch started) stays further from it than the
 * stretch's ticks so far, the emulated instructions it absorbed, `more`
 * and the bound of a stretch of `kind` together. */
static bool room_left(const struct pmu_step_state *st, uint64_t now, uint64_t more, unsigned int kind)
{
    uint64_t spent = ticks_between(st->unstepped_tsc, now) + st->absorbed + more;
    return st->unstepped_headroom > spent &&
           st->unstepped_headroom - spent > stretch_bound(st, kind);
}

/* The unstepped stretch goes on from `now` as one of `kind`: the part
 * before teaches its own kind, as a sync point there would have, so each
 * kind's bound stays the longest of what that kind runs. */
static void go_on_as(struct pmu_step_state *st, uint64_t now, unsigned int kind)
{
    stretch_ended(st, ticks_between(st->kind_tsc, now));
    st->kind = kind;
    st->kind_tsc = now;
}

/* The stretch goes on as the rest of an exit after an emulation. */
bool pmu_step_absorb_emulation(struct vcpu *v)
{
    struct pmu_step_state *st = state_of(v);
    if (!st->unstepped)
        return false;
    uint64_t now = pmu_arch_tsc();
    if (!st->far && !room_left(st, now, 1, PMU_STRETCH_AFTER_EMULATION))
        return false;           /* a far round's entry planning checks the room left */
    go_on_as(st, now, PMU_STRETCH_AFTER_EMULATION);
    st->absorbed++;
    return true;
}

/* The entry stretch goes on from the stretch running now (pmu_step.h). */
bool pmu_step_join_entry(struct vcpu *v)
{
    struct pmu_step_state *st = state_of(v);
    if (!st->unstepped || st->exit_path_ticks)
        return false;
    uint64_t now = pmu_arch_tsc();
    if (!room_left(st, now, 0, PMU_STRETCH_ENTRY))
        return false;
    go_on_as(st, now, PMU_STRETCH_ENTRY);
    st->joined_ticks = ticks_between(st->unstepped_tsc, now);
    st->joined++;
    return true;
}

/* The planning itself is not counted, as a sync point's instructions are
 * not: the stretch's start moves past it, and the entry stretch (whose
 * length teaches the least entry lead) starts after it. The context still
 * lacks the stretch's ticks, so its headroom is counted from the
 * stretch's start, as exit_step_tsc takes it. */
void pmu_step_entry_joined(struct vcpu *v)
{
    struct pmu_step_state *st = state_of(v);
    struct percpu_step *area = pmu_arch_this_step_area();
    uint64_t headroom = pmu_soft_hypervisor_headroom(&v->pmu.ctx);
    /* from here to the entry as after a resume's TSC read: the same lead */
    uint64_t now = pmu_arch_tsc();
    st->unstepped_tsc += ticks_between(st->kind_tsc, now);
    st->kind_tsc = now;
    set_exit_step_tsc(v, st, area, headroom);
    st->joined_ticks = 0;
}

/* Steps since the last sync (a stepped stretch's, and the exit path's
 * after its entry): overflows among them the stepper did not take are
 * replayed from the RIP ring, then the steps go to the context. After an
 * unstepped stretch there are none: its ticks went in at the sync that
 * ended it. */
static uint32_t take_steps(struct vcpu *v, struct pmu_step_state *st,
                           const struct percpu_step *area)
{
    uint64_t now = area->count;
    if (now == st->applied)
        return pmu_ctx_take_overflows(&v->pmu.ctx);
    sync_stepper(v, st->applied);
    replay(v, area, now);
    return apply_steps(v, now);
}

uint32_t pmu_step_resume(struct vcpu *v, unsigned int kind)
{
    struct percpu_step *area = pmu_arch_this_step_area();
    struct pmu_step_state *st = state_of(v);
    uint32_t overflows = 0;
    if (st->exit_path_ticks) {
        overflows = apply_unstepped(v, st->exit_path_ticks);
        st->exit_path_ticks = 0;
    }
    overflows |= take_steps(v, st, area);
    start_stretch(v, st, area, kind);
    return overflows;
}

/* The round's entry joined it (its kind is the entry's since, kind_tsc
 * after the planning), unless the round ended at a sync point before: its
 * stretch, with the exit path up to now, teaches the entry's kind, lead
 * and exit path as an unstepped one's does at pmu_step_exit_begin. */
static void far_entry_seen(struct pmu_step_state *st, uint64_t entry, uint64_t exit_path)
{
    if (st->kind != PMU_STRETCH_ENTRY)
        return;
    uint64_t before = ticks_between(st->kind_tsc, entry);
    stretch_ended(st, before + exit_path);
    entry_seen(st, before, exit_path);
}

/* The exit path is measured as pmu_step_exit_begin measures it (kept for
 * a sync point at pmu_step_far_after), and learnt from. */
uint32_t pmu_step_far_before(struct vcpu *v, uint64_t guest_ticks)
{
    struct pmu_step_state *st = state_of(v);
    uint64_t entry = pmu_arch_entry_tsc(v);
    st->exit_path_ticks = ticks_between(guest_ticks, ticks_between(entry, pmu_arch_tsc()));
    far_entry_seen(st, entry, st->exit_path_ticks);
    return apply_unstepped(v, ticks_between(st->unstepped_tsc, entry));
}

/* The next far round holds the exit path (up to pmu_step_far_before's TSC
 * read) and what runs from now, as a resume starts a stretch: the sync in
 * between (the guest's ticks, a sample written at this exit) is not
 * counted, as a near round's is not; its first stretch, the handling, is
 * measured from now. Otherwise the exit path goes in as an unstepped
 * stretch's does, and the resume starts the next stretch. */
uint32_t pmu_step_far_after(struct vcpu *v, unsigned int kind)
{
    struct pmu_step_state *st = state_of(v);
    uint64_t headroom = pmu_soft_hypervisor_headroom(&v->pmu.ctx);
    if (round_is_far(v, headroom)) {
        uint64_t now = pmu_arch_tsc();
        go_far(st, now - st->exit_path_ticks, now, kind, headroom);
        st->exit_path_ticks = 0;
        return pmu_ctx_take_overflows(&v->pmu.ctx);
    }
    st->unstepped = st->far = false;
    return pmu_step_resume(v, kind);
}

/* The #DB slow path (boot/traps.h): the step count reached step.next. */
bool step_trap_handle(struct trap_frame *frame)
{
    unsigned int cpu = pmu_arch_cpu_index();
    struct pmu_cpu *c = pmu_cpu_of(cpu);
    struct percpu_step *area = pmu_arch_this_step_area();
    struct vcpu *v = c->vcpu;
    if (!area->armed || !v)
        return false;
    struct pmu_step_state *st = &pmu_step_states[cpu % MAX_CPUS];
    if (area->count != area->next)
        return true;                /* a step the slow path was not asked for */
    uint32_t mask = pmu_soft_stepper_overflow(&st->stepper) & v->pmu.sample.mask;
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
    if (!area->count && !st->unstepped_runs)
        return;
    printk("pmu: vcpu %u: Vertigo single-stepped for :h sampling: %lu steps, %lu hypervisor "
           "samples at their step, %lu from the exit path's RIP ring, %lu missed; "
           "%lu of %lu stretches unstepped (%lu ticks counted by TSC, pmu.step_ahead=%lu; "
           "%lu entries joined the stretch before them; %lu far rounds), %lu late\n", v->id,
           area->count, st->taken, st->replayed, st->missed, st->unstepped_runs,
           st->unstepped_runs + st->stepped_runs, st->unstepped_ticks, pmu_config.step_ahead,
           st->joined, st->far_rounds, st->late);
}
