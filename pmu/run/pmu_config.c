/* Reading the run's PMU configuration (see pmu/run/pmu_config.h). */
#include "pmu/run/pmu_config.h"

#include "boot/platform.h"
#include "pmu/pmu_arch.h"
#include "pmu/backend/pmu_kind.h"
#include "pmu/backend/pmu_log_desc.h"
#include "pmu/mux/mux_part.h"
#include "pmu/mux/pmu_mux.h"
#include "pmu/backend/pmu_probe.h"
#include "pmu/vpmu/vpmu_options.h"
#include "lib/cmdline.h"
#include "lib/console.h"
#include "vmm/hv_cmdline.h"
#include "vmm/log/log_hv.h"
#include "lib/mem.h"

#define OPTION_MAX 32u
/* Bochs starts the VMX-preemption timer inside VMLAUNCH/VMRESUME and that
 * instruction's retirement is its first tick ("timer value 100000 exited
 * after 100061 ticks, entry/exit included"). */
#define BOCHS_ENTRY_TIMER_TICKS 1u

struct pmu_config pmu_config;

static enum pmu_choice read_choice(const char *cmdline)
{
    char value[OPTION_MAX];
    enum pmu_choice choice = PMU_CHOICE_AUTO;
    if (cmdline_get(cmdline, "pmu", value, sizeof(value)) && !pmu_choice_parse(value, &choice))
        printk("pmu: warning: bad option pmu=%s (auto, hw, soft, off); using auto\n", value);
    return choice;
}

static uint64_t read_u64_option(const char *cmdline, const char *key, uint64_t dflt, uint64_t min)
{
    char value[OPTION_MAX];
    uint64_t v;
    if (!cmdline_get(cmdline, key, value, sizeof(value)))
        return dflt;
    if (!cmdline_parse_u64(value, &v) || v < min) {
        printk("pmu: warning: bad option %s=%s; using %lu\n", key, value, dflt);
        return dflt;
    }
    return v;
}

/* The run's backend's kind (pmu/backend/pmu_kind.h), or NULL. */
static const struct pmu_kind *kind(void)
{
    return pmu_config.kind;
}

/* Why the run's backend offers the guest no virtual PMU (NULL: every
 * backend does; the hardware one on the counters Vertigo's session
 * leaves free). */
static const char *guest_pmu_why_not(void)
{
    return kind() ? NULL : "no PMU backend runs";
}

static void announce_backend(enum pmu_choice choice)
{
    if (kind()) {
        kind()->announce(&pmu_config);
        return;
    }
    printk("pmu: no PMU backend (%s)\n", choice == PMU_CHOICE_OFF ? "pmu=off"
           : "pmu=hw needs a PMU that counts and the load IA32_PERF_GLOBAL_CTRL controls");
}

/* The backend b needs hardware features beyond the PMU itself. */
static enum pmu_session_backend check_backend(enum pmu_session_backend b)
{
    const struct pmu_kind *k = pmu_kind_of(b);
    const char *missing = k ? k->missing() : NULL;
    if (missing) {
        printk("pmu: %s\n", missing);
        return PMU_SESSION_NONE;
    }
    return b;
}

void pmu_config_caps(struct pmu_event_caps *caps)
{
    if (kind()) {
        kind()->caps(&pmu_config, caps);
        return;
    }
    /* No backend: nothing is counted; what every caller checks first. */
    pmu_event_caps_soft(caps, pmu_config.tsc_counts_instructions);
    caps->desc.gp_counters = pmu_config.mux ? PMU_EVENT_LIST_MAX : pmu_config.soft_counters;
}

void pmu_config_session_caps(struct pmu_event_caps *caps)
{
    pmu_config_caps(caps);
    caps->unplaced = pmu_config.mux && kind() && kind()->mux->own;
}

static void parse_events(const char *cmdline)
{
    struct pmu_config *c = &pmu_config;
    char text[PMU_SESSION_EVENTS_MAX];
    struct pmu_event_caps caps;
    struct pmu_event_error err;

    if (c->backend == PMU_SESSION_NONE || !cmdline_get(cmdline, "pmu.events", text, sizeof(text)))
        return;
    pmu_config_session_caps(&caps);
    if (pmu_event_list_parse(text, &caps, &c->list, &err) != PMU_EVERR_NONE) {
        char msg[128];
        pmu_event_error_format(&err, msg, sizeof(msg));
        printk("pmu: no counting session: %s\n", msg);
        return;
    }
    if (c->mux && !pmu_mux_configure(c, cmdline))
        return;
    c->has_events = c->list.count > 0;
    memcpy(c->count_text, text, sizeof(text));
    printk("pmu: counting session: %s (%u events", text, c->list.count);
    if (kind()->announce_session)
        kind()->announce_session(c);
    if (c->period)
        printk(", period %lu", c->period);
    if (c->mux) {
        char schedule[PMU_MUX_DESCRIPTION_MAX];
        pmu_mux_describe(c, &c->mux_cfg, schedule, sizeof(schedule));
        printk("%s", schedule);
    }
    printk(")\n");
}

void pmu_config_ensure(void)
{
    struct pmu_config *c = &pmu_config;
    if (c->configured)
        return;
    const char *cmdline = hv_cmdline();
    enum pmu_choice choice = read_choice(cmdline);
    enum pmu_verdict verdict = pmu_probe_result(&c->desc);

    c->tsc_counts_instructions = platform_is_emulator();
    c->backend = check_backend(pmu_session_decide(choice, verdict));
    c->kind = pmu_kind_of(c->backend);
    c->run = c->kind ? c->kind->run : NULL;
    c->step_ticks = read_u64_option(cmdline, "pmu.step", PMU_SESSION_DEFAULT_STEP, 1);
    c->period = read_u64_option(cmdline, "pmu.period", 0, 0);
    c->step_ahead = read_u64_option(cmdline, "pmu.step_ahead", PMU_STEP_AHEAD_DEFAULT, 1);
    uint64_t counters = read_u64_option(cmdline, "pmu.soft.counters", PMU_SOFT_COUNTERS, 1);
    if (counters > PMU_EVENT_LIST_MAX) {
        printk("pmu: warning: pmu.soft.counters=%lu is more than the model has; using %u\n",
               counters, PMU_EVENT_LIST_MAX);
        counters = PMU_EVENT_LIST_MAX;
    }
    c->soft_counters = (unsigned int)counters;
    c->mux = cmdline_has(cmdline, "pmu.interval") || cmdline_has(cmdline, "pmu.subinterval");
    c->exact_modes = false;
    if (kind())
        kind()->configure(c, cmdline);
    pmu_session_set_current(c->backend);
    struct log_pmu_desc log_pmu = pmu_log_desc(verdict, &c->desc, c->backend);
    log_hv_set_pmu(&log_pmu);       /* the stream header names the backend */
    if (c->tsc_counts_instructions)
        pmu_arch_timer_entry_ticks(BOCHS_ENTRY_TIMER_TICKS);
    announce_backend(choice);
    struct vpmu_options guest = vpmu_options_read(cmdline, guest_pmu_why_not());
    c->guest_pmu = guest.on;
    c->guest_gp_counters = guest.gp_counters;
    c->guest_fixed_counters = guest.fixed_counters;
    parse_events(cmdline);
    c->configured = true;
}
