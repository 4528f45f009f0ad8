/* Counting Vertigo's own instructions for the software PMU (events with
 * :h), with exact overflow points: while a counter samples the hypervisor
 * the CPU single-steps Vertigo (EFLAGS.TF) from the VM-exit stub to the
 * next VM entry (to the POPFQ in vmx_enter_guest that clears TF, before
 * the entry's TSC read: no step, and so no sample, falls in the guest's
 * run the VMX-preemption timer measures). The #DB fast path
 * (boot/isr.S) counts the steps and keeps the RIP after each in a per-CPU
 * ring; at the step where a counter overflows, the slow path
 * (step_trap_handle) writes a hypervisor sample
 * with the trap frame's RIP and call stack: for Vertigo the #DB trap is
 * the software backend's PMI. The steps are added to the VCPU's context at
 * the sync points below, never from the trap (it may interrupt the code
 * that updates the context), and the stepper that finds the overflow
 * points is re-synced from the context at each of them.
 *
 * Sync points, with stepping off while each runs (its own instructions are
 * not counted): the start of the exit handling (the steps of the previous
 * entry path come before the guest's ticks, those of this exit path after
 * them; overflows in the exit path before the sync are replayed from the
 * RIP ring), around an emulated guest instruction (unless the stretch
 * running then can take it: pmu_step_absorb_emulation), and the PMU's
 * planning of the next entry (unless the stretch running then can go on
 * through it: pmu_step_join_entry). Exact where one TSC tick is one instruction
 * (Bochs), which is the only place the software backend samples Vertigo.
 *
 * Stepping costs a #DB round trip per instruction, so only the stretches
 * that may hold an overflow are stepped: at each resume, if every counter
 * sampling Vertigo is further from its next overflow than the stretch can
 * last, the stretch up to the next sync point runs without TF (and so
 * does the exit path of an entry it reaches: the step area's step_exits)
 * and is counted by its TSC difference there (split at the VM entry:
 * Vertigo's ticks before the entry, the guest's run, the rest). How long a
 * stretch can last is learnt per kind (an exit's handling by its exit
 * reason, the rest of an exit after an emulated instruction, an entry and
 * the next exit's path): the longest of that kind so far plus
 * PMU_STEP_MARGIN, never more than pmu.step_ahead, which is also the
 * bound of a kind not seen yet. An overflow a stretch runs past unstepped
 * (one longer than any of its kind before, or than pmu.step_ahead) is
 * found at that sync point: sampled at pmu_step_late_overflow's address
 * and counted as late, never silently. */

#ifndef PMU_PMU_STEP_H
#define PMU_PMU_STEP_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/smp.h"
#include "pmu/pmu_arch.h"
#include "pmu/soft/pmu_soft.h"
#include "vmm/vcpu.h"

/* Instructions a stretch may run beyond the longest of its kind before an
 * overflow it holds is late. */
#define PMU_STEP_MARGIN 64u

/* Far rounds. Most exits find every counter sampling Vertigo far from its
 * overflow (at a period of 50,000 nearly all of them), where the sync
 * points above only measure stretches that cannot hold one. When the
 * headroom after an exit's guest ticks is more than PMU_STEP_FAR_AHEADS
 * times pmu.step_ahead (the bound of every kind), the round of Vertigo up
 * to the next entry is far: one unstepped stretch (the exit path, the
 * handling, the entry path), counted at the next exit before the guest's
 * ticks. Its exit's sync is shorter (pmu_step_far_before,
 * pmu_step_far_after) and left out of the count as a near round's is; its
 * emulated instruction is taken in without a check of the room left,
 * which its entry's planning checks (pmu_step_join_entry: the planning
 * left out of the count as there, so that the guest's next run ends at
 * the overflow point). The kinds, the entry's lead and the exit path are
 * learnt as in a near round, from TSC reads where a near round's sync
 * points are. An exit whose path the stub stepped ends a far round as it
 * ends an unstepped stretch. Not with interval multiplexing, whose rows
 * need Vertigo's ticks at the emulated instruction. */
#define PMU_STEP_FAR_AHEADS 4u

/* Kinds of stretches of Vertigo between two sync points of the stepper
 * (pmu/soft/pmu_step.h): an exit's handling, by its basic exit reason (the
 * last kind holds the larger reasons), the rest of an exit after an
 * emulated guest instruction, and an entry path with the next exit's
 * path up to its handling. */
#define PMU_STRETCH_EXIT_REASONS 80u
enum pmu_stretch_kind {
    PMU_STRETCH_AFTER_EMULATION = PMU_STRETCH_EXIT_REASONS,
    PMU_STRETCH_ENTRY,
    PMU_STRETCH_KINDS
};

/* Single-stepping Vertigo on one CPU. Steps are absolute per-CPU
 * numbers (the step area's count); the stepper's step 1 is step base + 1. */
struct pmu_step_state {
    struct pmu_soft_stepper stepper;
    uint64_t base;              /* step count at the last sync */
    uint64_t applied;           /* steps added to the context */
    uint64_t taken;             /* hypervisor samples taken at their step */
    uint64_t replayed;          /* taken from the RIP ring at a sync */
    uint64_t missed;            /* the ring no longer held the step's RIP */
    /* Stretches of Vertigo far from an overflow run unstepped and are
     * counted by their TSC difference (above). */
    bool unstepped;             /* the stretch since the last resume */
    uint64_t unstepped_tsc;     /* TSC at that resume */
    uint64_t kind_tsc;          /* TSC where the stretch's kind began: that resume,
                                 * or the emulated instruction it took last */
    uint64_t unstepped_headroom;/* events from there to the nearest overflow of a
                                 * counter sampling Vertigo */
    uint64_t absorbed;          /* emulated instructions counted in the stretch
                                 * without a sync (pmu_step_absorb_emulation) */
    uint64_t joined_ticks;      /* while an entry that joined the stretch is planned
                                 * (pmu_step_join_entry): the stretch's ticks before
                                 * it, not yet in the context; 0 otherwise */
    uint64_t exit_path_ticks;   /* the exit path's, added at the next resume */
    uint64_t unstepped_ticks;   /* figures: Vertigo's ticks counted by TSC */
    uint64_t unstepped_runs;    /* stretches counted by TSC */
    uint64_t stepped_runs;      /* stretches single-stepped */
    uint64_t late;              /* overflows an unstepped stretch ran past */
    bool far;                   /* the stretch since the last resume is a far round */
    uint64_t far_rounds;        /* figures: far rounds */
    uint64_t joined;            /* entries planned inside the stretch before them */
    /* Vertigo's ticks from an entry stretch's start to the entry's TSC
     * read, the least seen in an unstepped one (0: none yet): they come
     * before the guest's run, whose deadline leaves them room
     * (pmu_step_entry_lead). */
    uint64_t entry_lead;
    /* The longest exit path seen (from the entry's TSC read, the guest's
     * run left out, to the start of the exit's handling; 0: none yet): an
     * unstepped entry has its exit path stepped by the stub when the run
     * ends closer than that to an overflow (the step area's exit_tsc). */
    uint32_t longest_exit_path;
    /* The longest stretch of each kind seen so far, in Vertigo's
     * instructions (steps, or TSC ticks unstepped; 0: none yet): a
     * stretch is stepped only when an overflow may fall inside it. */
    uint32_t kind;              /* of the stretch since the last resume
                                 * (PMU_STRETCH_KINDS: none, just armed) */
    uint64_t start_count;       /* the step count at that resume */
    uint32_t longest[PMU_STRETCH_KINDS];
};

/* Each CPU's; zero before the first arm. */
extern struct pmu_step_state pmu_step_states[MAX_CPUS];

/* Who takes the overflows the stepper finds inside Vertigo: writes a
 * hypervisor sample for the counters in mask at Vertigo's rip, with its
 * call stack from frame pointer rbp (0: none). Trap and NMI context. */
typedef void (*pmu_step_sample_fn)(uint64_t rip, uint64_t rbp, uint32_t mask);

/* Sets the sampler that takes the stepper's overflows (once, at start). */
void pmu_step_set_sampler(pmu_step_sample_fn fn);

/* Arms (on) or disarms single-stepping on this CPU for v, whose context
 * must then sample the hypervisor. Call between an exit and an entry. */
void pmu_step_arm(struct vcpu *v, bool on);

/* True if this CPU single-steps Vertigo for v. Inline: every VM exit asks. */
static inline bool pmu_step_armed(const struct vcpu *v)
{
    (void)v;
    return pmu_arch_this_step_area()->armed != 0;
}

/* Exit handling starts after a run of guest_ticks: stepping off; the
 * previous entry path's steps (or unstepped ticks) go to the context.
 * Returns the overflows they noted (counted, sampled). */
uint32_t pmu_step_exit_begin(struct vcpu *v, uint64_t guest_ticks);

/* Stepping off; the steps since the last sync go to the context. Returns
 * the overflows they noted (already sampled by the stepper). */
uint32_t pmu_step_pause(struct vcpu *v);

/* Whether this exit ends a far round (above) whose exit path the stub did
 * not step: its sync is then pmu_step_far_before and pmu_step_far_after
 * around the guest's ticks, instead of pmu_step_exit_begin and
 * pmu_step_resume. Inline: every exit while stepping is armed asks. */
static inline bool pmu_step_far_round(const struct vcpu *v)
{
    return pmu_step_states[v->cpu % MAX_CPUS].far && !pmu_arch_this_step_area()->exit_stepped;
}

/* The far round's ticks, up to the entry's TSC read, go to the context
 * before the guest's. Returns the overflows they noted (counted; an
 * overflow among them is late, as an unstepped stretch's). */
uint32_t pmu_step_far_before(struct vcpu *v, uint64_t guest_ticks);

/* After the guest's ticks of a far round's exit: the next round is far
 * too if the headroom allows (the exit path its first ticks), or the exit
 * is a sync point as pmu_step_exit_begin and pmu_step_resume make it,
 * starting a stretch of `kind`. Returns the overflows noted (counted). */
uint32_t pmu_step_far_after(struct vcpu *v, unsigned int kind);

/* Re-syncs the stepper from the context (overflows among the exit path's
 * steps not yet synced are sampled from the RIP ring, then the steps go
 * to the context) and starts the next stretch, of `kind` (enum
 * pmu_stretch_kind, or an exit's basic reason), stepped or not (see
 * above). Returns the overflows of the replayed steps (counted, sampled). */
uint32_t pmu_step_resume(struct vcpu *v, unsigned int kind);

/* An emulated guest instruction inside the unstepped stretch running now:
 * true when the stretch can take it and the rest of the exit without a
 * sync point, as every counter sampling Vertigo is further from its
 * overflow than the stretch's ticks so far, the instructions it took so,
 * this one and the longest rest of an exit after an emulation (plus
 * PMU_STEP_MARGIN) together. The caller then counts the instruction
 * without pausing; its ticks before and after it go in together at the
 * next sync, which changes no count and no overflow point: none falls in
 * between. False (a stepped stretch, or one too near): pause and resume
 * around it. */
bool pmu_step_absorb_emulation(struct vcpu *v);

/* The planning of the next entry inside the unstepped stretch running
 * now: true when the stretch can go on through the entry path and the
 * next exit's path without a sync point, as every counter sampling
 * Vertigo is further from its overflow than the stretch's ticks so far,
 * the instructions it absorbed and the longest entry stretch (plus
 * PMU_STEP_MARGIN) together. The part before teaches its own kind and the
 * rest, after the planning, is an entry stretch; the ticks so far go to the
 * context at the next exit, before the guest's, with the rest of the entry
 * path's, and the planned run leaves them room (pmu_step_entry_lead). The
 * caller then plans the entry without a pause and finishes with
 * pmu_step_entry_joined instead of a resume; the planning is not counted,
 * as a sync point's instructions are not, so no count and no overflow
 * point changes. False (a stepped stretch, or one too near): pause and
 * resume around the planning. */
bool pmu_step_join_entry(struct vcpu *v);

/* After the planning of an entry that joined the stretch: the exit stub's
 * step point for the next exit path, as a resume would set it. */
void pmu_step_entry_joined(struct vcpu *v);

/* Vertigo's ticks that come before the guest's first instruction after
 * the next entry (the rest of the entry path, and a joined stretch's
 * ticks before it), as far as learnt: a counter that counts Vertigo
 * reaches its overflow that much earlier in the guest's run
 * (pmu_soft_deadline_after). Until this session's first unstepped entry
 * has taught it, UINT64_MAX: a run towards an overflow is then one tick,
 * so none can run past the overflow point unseen. */
static inline uint64_t pmu_step_entry_lead(const struct vcpu *v)
{
    const struct pmu_step_state *st = &pmu_step_states[v->cpu % MAX_CPUS];
    return st->entry_lead ? st->entry_lead + st->joined_ticks : UINT64_MAX;
}

/* Whether the next run's timer deadline is an overflow of a counter that
 * samples Vertigo (its planned end, the lead left out): a run that ends
 * there took the overflow itself, and the exit stub need not step the
 * exit path after it (the step area's to_overflow). */
static inline void pmu_step_run_to_overflow(const struct vcpu *v, bool to_overflow)
{
    (void)v;
    pmu_arch_this_step_area()->to_overflow = to_overflow;
}

/* The address of the samples of late overflows (above): a function that
 * never runs, so a profile names them apart from Vertigo's real code,
 * the sync points' own steps included. */
void pmu_step_late_overflow(void);

/* Per-CPU figures for the end-of-run report: steps, hypervisor samples
 * taken at a step, replayed from the ring, and missed (the ring no longer
 * held the step's RIP); stretches run unstepped and their ticks, and
 * late overflows. */
void pmu_step_report(const struct vcpu *v);

#endif
