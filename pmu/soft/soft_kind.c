/* The software backend's kind (pmu/backend/pmu_kind.h). It counts every
 * event of a session all along, so an interval multiplexing session
 * rotates its sets over the VCPU's own context (pmu/mux/pmu_mux.c) over
 * the pmu.soft.counters it offers; the paravirtual counters are what the
 * exit loop measures (no part of its own); it samples Vertigo by
 * single-stepping it (pmu/soft/pmu_step.h) where a TSC tick is an
 * instruction, and measures each overflow's skid. */
#include "pmu/backend/pmu_kind.h"
#include "pmu/soft/soft_run.h"

#include "lib/cmdline.h"
#include "lib/console.h"
#include "lib/mem.h"
#include "lib/smp.h"
#include "pmu/mux/mux_part.h"
#include "pmu/pmu_arch.h"
#include "pmu/run/pmu_config.h"
#include "pmu/run/pmu_run.h"
#include "pmu/sample/sample_nmi.h"
#include "pmu/sample/sample_part.h"
#include "pmu/soft/pmu_soft.h"
#include "pmu/soft/pmu_step.h"

static const char *missing(void)
{
    return pmu_arch_has_guest_timer() ? NULL
           : "the software backend needs the VMX-preemption timer and its save control";
}

/* pmu.traps=on|off: trap every change of mode (on: exact per-mode counts)
 * or attribute each step to the mode it began in (off). */
static bool read_traps(const char *cmdline)
{
    char value[32];
    if (!cmdline_get(cmdline, "pmu.traps", value, sizeof(value)) || strcmp(value, "on") == 0)
        return true;
    if (strcmp(value, "off") != 0)
        printk("pmu: warning: bad option pmu.traps=%s (on, off); using on\n", value);
    return strcmp(value, "off") != 0;
}

/* Its options, and who writes the samples of Vertigo's steps. */
static void configure(struct pmu_config *c, const char *cmdline)
{
    c->exact_modes = read_traps(cmdline) && pmu_arch_has_mode_traps();
    pmu_step_set_sampler(sample_hypervisor_step);
}

/* Each CPU's instance; pmu_soft_init sets what a run's start needs. */
struct pmu_soft pmu_soft_cpus[MAX_CPUS];

static enum pmu_status init_cpu(unsigned int cpu, struct pmu_backend *be)
{
    struct pmu_soft *soft = &pmu_soft_cpus[cpu % MAX_CPUS];
    struct pmu_soft_config cfg = {
        .step_ticks = pmu_config.step_ticks,
        .tsc_counts_instructions = pmu_config.tsc_counts_instructions,
    };
    enum pmu_status st = pmu_soft_init(soft, &cfg);
    *be = pmu_soft_backend(soft);
    return st;
}

static void announce(const struct pmu_config *c)
{
    printk("pmu: using the software backend (%s; %s)\n", c->tsc_counts_instructions
           ? "exact instruction counts in Bochs" : "cycle-based events only: guest TSC time",
           c->exact_modes ? "every user/kernel change exits while a counter "
           "filters by mode" : "user/kernel by pmu.step");
}

/* pmu.soft.counters counters offered to a session; its model counts every
 * event of a multiplexed one (the exact counts the rows' extrapolation is
 * compared with), the schedule decides which are read. */
static void caps(const struct pmu_config *c, struct pmu_event_caps *caps)
{
    pmu_event_caps_soft(caps, c->tsc_counts_instructions);
    caps->desc.gp_counters = c->mux ? PMU_EVENT_LIST_MAX : c->soft_counters;
}

/* With the traps a run needs no step (pmu/run/pmu_run.c). */
static void announce_session(const struct pmu_config *c)
{
    if (!c->exact_modes)
        printk(", step %lu ticks", c->step_ticks);
}

/* Single-stepping Vertigo belongs to the CPU: the outgoing VCPU's steps
 * go to its counts and stepping stops until a VCPU that samples Vertigo
 * comes in (the switch itself is nobody's Vertigo time). */
static void switch_out(struct vcpu *from)
{
    from->pmu.sw_state.stepping = pmu_step_armed(from);
    if (!from->pmu.sw_state.stepping)
        return;
    pmu_run_count_overflows(from, pmu_step_pause(from));
    pmu_step_arm(from, false);
}

/* The backend's per-CPU state follows the context: its masks (load),
 * whether every mode change exits, and the kernel's step (a user step of
 * the guest's own is chosen again at each entry); then stepping again if
 * the VCPU samples Vertigo. */
static void switch_in(struct vcpu *to, bool loaded)
{
    if (loaded) {
        struct pmu_soft *soft = to->pmu.be.self;
        soft->mode_exits = to->pmu.modes_trapped;
        soft->config.step_ticks = pmu_config.step_ticks;
    }
    if (to->pmu.sw_state.stepping)
        pmu_step_arm(to, true);
}

static struct mux_counters counters(const struct pmu_config *c)
{
    return (struct mux_counters){ c->soft_counters, 0 };
}

static const struct mux_part mux = { .counters = counters, .own = NULL };

static const char *hypervisor_refusal(void)
{
    return pmu_config.tsc_counts_instructions ? NULL
           : "the software PMU samples the hypervisor (:h) only where a TSC tick is an "
             "instruction (Bochs)";
}

static void session_ending(struct vcpu *v)
{
    if (pmu_step_armed(v)) {
        pmu_run_count_overflows(v, pmu_step_pause(v));  /* its steps into the old counts */
        pmu_step_arm(v, false);
    }
}

static void session_started(struct vcpu *v)
{
    if (pmu_soft_samples_hypervisor(&v->pmu.ctx))
        pmu_step_arm(v, true);
}

static const struct sample_part sample = {
    .hypervisor_refusal = hypervisor_refusal,
    .session_ending = session_ending,
    .session_started = session_started,
    .measures_skid = true,
};

const struct pmu_kind pmu_kind_soft = {
    .missing = missing,
    .configure = configure,
    .init_cpu = init_cpu,
    .run = &pmu_soft_run_part,
    .announce = announce,
    .caps = caps,
    .announce_session = announce_session,
    .switch_out = switch_out,
    .switch_in = switch_in,
    .mux = &mux,
    .pv = NULL,
    .sample = &sample,
};
