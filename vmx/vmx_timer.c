/* The shared VMX-preemption timer (see vmx/vmx_timer.h). The timer counts
 * down at the TSC rate divided by 2^IA32_VMX_MISC[4:0] (SDM Vol. 3D A.6)
 * and, with the exit control "save VMX-preemption timer value", its value
 * at the exit is written back to the VMCS (SDM Vol. 3C 28.3.4). */
#include "vmx/vmx_timer.h"

#include "lib/cpu.h"
#include "boot/percpu.h"
#include "vmx/vmx_cpu.h"
#include "vmx/vmx_ops.h"

#define TIMER_VALUE_MAX  0xffffffffull

/* Timer ticks that VM entry itself takes off the loaded value before the
 * first guest instruction: Bochs starts the timer inside VMLAUNCH/VMRESUME,
 * whose own retirement is one tick (docs/pmu.md, "exactness in Bochs"). */
static unsigned int entry_ticks;

void vmx_timer_set_entry_ticks(unsigned int ticks)
{
    entry_ticks = ticks;
}

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

/* Guest ticks to the nearest deadline (0 if one has passed), or VMX_TIMER_NONE. */
static uint64_t nearest_deadline(const struct vmx_timer_state *t)
{
    uint64_t d = VMX_TIMER_NONE;
    for (unsigned int i = 0; i < VMX_TIMER_OWNERS; i++)
        if (t->deadline[i] < d)
            d = t->deadline[i];
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

void vmx_timer_arm(struct vcpu *v)
{
    struct vmx_timer_state *t = &v->vmx.timer;
    uint64_t deadline = nearest_deadline(t);
    bool on = deadline != VMX_TIMER_NONE && timer_usable();
    /* The controls follow t->armed: both start off (vmcs_setup writes the
     * controls without the timer bits, vmx_timer_init clears armed) and
     * only this function changes them, so they are touched on a change. */
    if (on != t->armed) {
        set_control(VMCS_PIN_BASED_CONTROLS, PIN_PREEMPTION_TIMER, on);
        /* saving the value is only valid with the timer active (SDM Vol. 3C 27.2.1.2) */
        if (value_saved())
            set_control(VMCS_EXIT_CONTROLS, EXIT_SAVE_PREEMPTION_TIMER, on);
    }
    t->armed = on;
    t->measuring = on && value_saved();
    if (on) {
        t->loaded = timer_value(deadline);
        t->loaded_run = t->loaded - entry_ticks;    /* timer_value adds entry_ticks */
        vmcs_write(VMCS_PREEMPTION_TIMER_VALUE, t->loaded);
    }
}

/* An expired timer saves 0 however late the exit came: Bochs takes the
 * expiry only where it syncs its clock (the end of a trace of straight-line
 * instructions), so a step can overshoot its deadline. The TSC difference
 * minus the entry/exit path's own ticks (learnt from exits the timer
 * measured exactly) counts those extra instructions too. A path Vertigo
 * single-stepped (the step area's step_exits, unchanged from the entry to
 * here) takes many more ticks than one it did not: each has its own.
 * Every exit of a VCPU whose timer runs comes here (the software PMU keeps
 * it running), so the usual case, a run the timer measured, is kept short:
 * the entry's ticks were taken off the loaded value when it was loaded,
 * and whether the exit saves the value was decided then too. */
static uint64_t measured_ticks(struct vcpu *v)
{
    struct vmx_timer_state *t = &v->vmx.timer;
    uint64_t tsc_ticks = v->vmx.exit_tsc - v->vmx.entry_tsc;
    if (!t->measuring)
        return tsc_ticks;
    uint64_t saved = vmcs_read(VMCS_PREEMPTION_TIMER_VALUE);
    uint64_t elapsed = saved < t->loaded_run ? (t->loaded_run - saved) << rate_shift() : 0;
    uint64_t *root_ticks = &t->root_ticks[this_cpu()->step.step_exits != 0];
    if (saved != 0) {
        if (tsc_ticks >= elapsed && tsc_ticks - elapsed < *root_ticks)
            *root_ticks = tsc_ticks - elapsed;
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

bool vmx_timer_measured(const struct vcpu *v)
{
    return v->vmx.timer.measuring;
}

void vmx_timer_init(struct vcpu *v)
{
    tsc_shift = vmx_caps_preemption_tsc_shift(&vmx_config.caps);
    for (unsigned int i = 0; i < VMX_TIMER_OWNERS; i++)
        v->vmx.timer.deadline[i] = VMX_TIMER_NONE;
    v->vmx.timer.clock = 0;
    v->vmx.timer.armed = false;
    v->vmx.timer.measuring = false;
    v->vmx.timer.root_ticks[0] = v->vmx.timer.root_ticks[1] = UINT64_MAX;
}
