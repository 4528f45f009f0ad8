/* The shared VMX-preemption timer (see vmx/vmx_timer.h). The timer counts
 * down at the TSC rate divided by 2^IA32_VMX_MISC[4:0] (SDM Vol. 3D A.6)
 * and, with the exit control "save VMX-preemption timer value", its value
 * at the exit is written back to the VMCS (SDM Vol. 3C 28.3.4). */
#include "vmx/vmx_timer.h"

#include "lib/cpu.h"
#include "lib/smp.h"
#include "boot/percpu.h"
#include "vmx/vmx_cpu.h"
#include "vmx/vmx_ops.h"

#define TIMER_VALUE_MAX  0xffffffffull

/* Timer ticks that VM entry itself takes off the loaded value before the
 * first guest instruction: Bochs starts the timer inside VMLAUNCH/VMRESUME,
 * whose own retirement is one tick (docs/pmu.md, "exactness in Bochs"). */
static unsigned int entry_ticks;

/* Where a TSC tick is one instruction (Bochs, the only caller of
 * vmx_timer_set_entry_ticks), the path from the entry's TSC read to the
 * exit's is a fixed number of instructions (vmx/vmx_run.c keeps it so): a
 * run is its TSC difference less that path, exactly, and the timer need
 * not be read back (see lazy_ok). */
static bool tsc_is_instructions;

void vmx_timer_set_entry_ticks(unsigned int ticks)
{
    entry_ticks = ticks;
    tsc_is_instructions = true;
}

/* Measured runs that must find the same path length before the timer is
 * read back no more: the path's first measurements (VMLAUNCH, a first
 * exit) may not be the steady one. */
#define ROOT_AGREED_MIN 64u

static bool timer_usable(void)
{
    return (vmx_config.pin_available & PIN_PREEMPTION_TIMER) != 0;
}

static bool value_saved(void)
{
    return (vmx_config.exit_available & EXIT_SAVE_PREEMPTION_TIMER) != 0;
}

/* Sets or clears `bit` of the control field `field`, writing only on change. */
static void set_control(uint32_t field, uint64_t bit, bool on)
{
    uint64_t v = vmcs_read(field);
    uint64_t want = on ? v | bit : v & ~bit;
    if (want != v)
        vmcs_write(field, want);
}

/* The timer's rate, IA32_VMX_MISC[4:0], read once by vmx_timer_init
 * (vmx_config holds one set of capabilities for every CPU). */
static unsigned int tsc_shift;

static unsigned int rate_shift(void)
{
    return tsc_shift;
}

/* The nearest deadline of the owners other than the PMU, searched again
 * only when their requests and cancels could not keep it
 * (vmx_timer_others_moved). */
static uint64_t others_nearest(struct vmx_timer_state *t)
{
    if (t->others_known)
        return t->others_nearest;
    uint64_t d = VMX_TIMER_NONE;
    for (unsigned int i = 0; i < VMX_TIMER_OWNERS; i++)
        if (i != VMX_TIMER_PMU && t->deadline[i] < d)
            d = t->deadline[i];
    t->others_nearest = d;
    t->others_known = true;
    return d;
}

/* Guest ticks to the nearest deadline (0 if one has passed), or VMX_TIMER_NONE. */
static uint64_t nearest_deadline(struct vmx_timer_state *t)
{
    uint64_t d = others_nearest(t);
    if (t->deadline[VMX_TIMER_PMU] < d)
        d = t->deadline[VMX_TIMER_PMU];
    if (d == VMX_TIMER_NONE)
        return VMX_TIMER_NONE;
    return d > t->clock ? d - t->clock : 0;
}

/* Timer value for `ticks` of guest time: rounded up to the timer's rate so
 * the exit is never early, plus what the entry itself consumes. */
static uint32_t timer_value(uint64_t ticks)
{
    unsigned int shift = rate_shift();
    uint64_t value = ((ticks + (1ull << shift) - 1) >> shift) + entry_ticks;
    return (uint32_t)(value > TIMER_VALUE_MAX ? TIMER_VALUE_MAX : value);
}

/* Whether the run after this entry may be measured without reading the
 * timer back: only where a TSC tick is an instruction, on one CPU (with
 * several, Bochs moves the TSC by the average of the CPUs' turns, and the
 * path's ticks vary), with single-stepping off (while stepping is armed
 * the exit stub decides at the exit whether to step its path), and
 * once that path has been measured the same ROOT_AGREED_MIN times. */
static bool lazy_ok(const struct vmx_timer_state *t)
{
    return tsc_is_instructions && !this_cpu()->step.armed && smp_cpus_online() == 1 &&
           t->root_agreed[0] >= ROOT_AGREED_MIN;
}

/* Which path this run took (VMX_TIMER_PATHS): the step area says whether
 * the stretch before the entry was stepped (step_exits, unchanged from the
 * entry to here), in which case the stub stepped the exit path (the entry
 * side, from vmx_enter_guest's TSC read on, is never stepped), and whether
 * stepping was armed; an armed unstepped one ends at the exit stub's TSC
 * read, whatever the stub then chose. */
static unsigned int exit_path(void)
{
    const struct percpu_step *step = &this_cpu()->step;
    if (step->step_exits)
        return 1;
    return step->armed ? 2 : 0;
}

static uint64_t exit_tsc(const struct vcpu *v, unsigned int path)
{
    return path == 2 ? this_cpu()->step.exit_read : v->vmx.exit_tsc;
}

/* The timer's controls: it runs (on), and the exit saves its value (save);
 * both start off (vmcs_setup writes the controls without the timer bits,
 * vmx_timer_init clears the flags) and only this function changes them,
 * so they are touched on a change. */
static void set_controls(struct vmx_timer_state *t, bool on, bool save)
{
    if (on != t->armed)
        set_control(VMCS_PIN_BASED_CONTROLS, PIN_PREEMPTION_TIMER, on);
    /* saving the value is only valid with the timer active (SDM Vol. 3C 27.2.1.2) */
    if (save != t->measuring)
        set_control(VMCS_EXIT_CONTROLS, EXIT_SAVE_PREEMPTION_TIMER, save);
    t->armed = on;
    t->measuring = save;
}

static void load(struct vmx_timer_state *t, uint64_t ticks)
{
    t->loaded = timer_value(ticks);
    t->loaded_run = t->loaded - entry_ticks;    /* timer_value adds entry_ticks */
    vmcs_write(VMCS_PREEMPTION_TIMER_VALUE, t->loaded);
}

/* Lazily: without "save VMX-preemption timer value" the exit leaves the
 * VMCS field as it was and each entry loads the timer from it again (SDM
 * Vol. 3C 26.5.1, 28.3.4), so a value loaded once serves every entry whose
 * nearest deadline is as far as when it was loaded: a deadline asked for
 * again at every entry as the same distance (the bound on a run while the
 * guest's next PMI is far) is written once. Any other deadline is loaded
 * as it is, as vmx_timer_arm does, so the exits come where they did; no
 * exit reads the value back. */
static void arm_lazy(struct vmx_timer_state *t, uint64_t deadline)
{
    if (t->lazy_loaded && t->lazy_deadline == deadline)
        return;
    load(t, deadline);
    t->lazy_loaded = true;
    t->lazy_deadline = deadline;
}

void vmx_timer_arm(struct vcpu *v)
{
    struct vmx_timer_state *t = &v->vmx.timer;
    uint64_t deadline = nearest_deadline(t);
    bool on = deadline != VMX_TIMER_NONE && timer_usable();
    bool lazy = on && lazy_ok(t);
    set_controls(t, on, on && !lazy && value_saved());
    t->lazy = lazy;
    if (lazy) {
        arm_lazy(t, deadline);
        return;
    }
    t->lazy_loaded = false;     /* the field no longer holds a lazy value */
    if (on)
        load(t, deadline);
}

/* An expired timer saves 0 however late the exit came: Bochs takes the
 * expiry only where it syncs its clock (the end of a trace of straight-line
 * instructions), so a step can overshoot its deadline. The TSC difference
 * minus the entry/exit path's own ticks (learnt from exits the timer
 * measured exactly) counts those extra instructions too. A path Vertigo
 * single-stepped takes many more ticks than one it did not, and one with
 * stepping armed ends at the stub's own TSC read (exit_path): each has its
 * own length.
 * Every exit of a VCPU whose timer runs comes here (the software PMU keeps
 * it running), so the usual case is kept short: in Bochs, once the path
 * is known, a lazy run (never single-stepped) is the TSC difference less
 * it, with no VMREAD; a
 * run the timer measured had the entry's ticks taken off the loaded value
 * when it was loaded, and whether the exit saves the value was decided
 * then too. Each measured run checks the path's length again: a shorter
 * one starts the count of agreeing runs lazy_ok waits for anew. */
static uint64_t measured_ticks(struct vcpu *v)
{
    struct vmx_timer_state *t = &v->vmx.timer;
    if (t->lazy) {
        uint64_t tsc_ticks = v->vmx.exit_tsc - v->vmx.entry_tsc;
        return tsc_ticks > t->root_ticks[0] ? tsc_ticks - t->root_ticks[0] : 0;
    }
    if (!t->measuring)
        return v->vmx.exit_tsc - v->vmx.entry_tsc;
    unsigned int path = exit_path();
    uint64_t tsc_ticks = exit_tsc(v, path) - v->vmx.entry_tsc;
    uint64_t saved = vmcs_read(VMCS_PREEMPTION_TIMER_VALUE);
    uint64_t elapsed = saved < t->loaded_run ? (t->loaded_run - saved) << rate_shift() : 0;
    uint64_t *root_ticks = &t->root_ticks[path];
    if (saved != 0) {
        if (tsc_ticks >= elapsed && tsc_ticks - elapsed < *root_ticks) {
            *root_ticks = tsc_ticks - elapsed;
            t->root_agreed[path] = 0;
        } else if (tsc_ticks - elapsed == *root_ticks && t->root_agreed[path] < ROOT_AGREED_MIN) {
            t->root_agreed[path]++;
        }
        return elapsed;
    }
    if (*root_ticks != UINT64_MAX && tsc_ticks > *root_ticks && tsc_ticks - *root_ticks > elapsed)
        return tsc_ticks - *root_ticks;
    return elapsed;
}

uint64_t vmx_timer_settle(struct vcpu *v)
{
    uint64_t ticks = measured_ticks(v);
    v->vmx.timer.clock += ticks;
    return ticks;
}

void vmx_timer_init(struct vcpu *v)
{
    tsc_shift = vmx_caps_preemption_tsc_shift(&vmx_config.caps);
    for (unsigned int i = 0; i < VMX_TIMER_OWNERS; i++)
        v->vmx.timer.deadline[i] = VMX_TIMER_NONE;
    v->vmx.timer.others_known = false;
    v->vmx.timer.clock = 0;
    v->vmx.timer.armed = false;
    v->vmx.timer.measuring = false;
    v->vmx.timer.lazy = false;
    v->vmx.timer.lazy_loaded = false;
    for (unsigned int i = 0; i < VMX_TIMER_PATHS; i++) {
        v->vmx.timer.root_ticks[i] = UINT64_MAX;
        v->vmx.timer.root_agreed[i] = 0;
    }
}
