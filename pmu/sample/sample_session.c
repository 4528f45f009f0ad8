/* Sampling sessions: starting, stopping, applying them to each VCPU, timer
 * samples and the end-of-domain statistics (see pmu/sample/sample_session.h). */
#include "pmu/sample/sample_session.h"

#include "boot/platform.h"
#include "pmu/pmu_arch.h"
#include "pmu/run/pmu_cpu.h"
#include "pmu/run/pmu_pmi.h"
#include "pmu/backend/pmu_session.h"
#include "pmu/sample/sample_apply.h"
#include "pmu/sample/sample_freq.h"
#include "pmu/sample/sample_freq_vcpu.h"
#include "pmu/sample/sample_hypercalls.h"
#include "pmu/sample/sample_nmi.h"
#include "vertigo/log_format.h"
#include "lib/cmdline.h"
#include "vmm/domain/domain_config.h"
#include "lib/console.h"
#include "vmm/hv_cmdline.h"
#include "vmm/log/log_hv.h"
#include "lib/spinlock.h"

#define OPTION_MAX 64u
#define WHY_MAX    128u

static struct {
    struct spinlock lock;       /* exit paths only, never NMI context */
    uint32_t generation;        /* bumped at every start and stop */
    bool running;
    bool ever;                  /* a session ran during this run */
    struct vertigo_session params;
    uint32_t owner;             /* a domain id, or SAMPLE_OWNER_MACHINE */
    uint64_t timer_ticks;       /* guest TSC ticks per timer sample */
} sess = { .lock = SPINLOCK_INIT };

/* sample.control=N: the one domain whose kernel controls every domain's
 * sampling (none by default; SAMPLE_OWNER_MACHINE when not given). */
static uint32_t machine_controller = SAMPLE_OWNER_MACHINE;

/* ---- Applying the session to a VCPU --------------------------------------- */

/* A session-wide event-period record (every VCPU's samples of event). */
static void log_period(uint32_t event, uint64_t period)
{
    log_hv_event_period(&(struct log_event_period){ .event = event, .period = period });
}

/* The names of v's events (every VCPU's: ids are run-wide, and one VCPU
 * may count events another does not), then, with periods (one VCPU of
 * the domain), the period of each sampled event (what one of its samples
 * stands for: events, or TSC ticks of the timer). */
static void log_event_names(const struct vcpu *v, bool periods)
{
    static const char timer_name[] = "timer";
    if (v->pmu.counting)
        pmu_log_event_names(&v->pmu.ctx);
    if (v->pmu.sample.timer_ticks)
        pmu_log_event_desc(SAMPLE_EVENT_TIMER, timer_name, sizeof(timer_name),
                           LOG_EVENT_CODE(LOG_EVENT_SRC_TIMER, 0));
    if (!periods)
        return;
    for (unsigned int i = 0; v->pmu.counting && i < v->pmu.ctx.count; i++)
        if (v->pmu.sample.mask & (1u << i))
            log_period(v->pmu.ctx.log_ids[i], v->pmu.ctx.counters[i].period);
    if (v->pmu.sample.timer_ticks)
        log_period(SAMPLE_EVENT_TIMER, v->pmu.sample.timer_ticks);
}

/* Out of line: every entry runs sample_before_entry's check, and only a
 * new session or a VCPU whose counting changed gets here. */
static __attribute__((noinline, cold)) void apply_session(struct vcpu *v)
{
    spin_lock(&sess.lock);
    v->pmu.sample.generation = sess.generation;
    v->pmu.sample.stale = false;
    bool on = sess.running && (sess.owner == SAMPLE_OWNER_MACHINE ||
                               sess.owner == v->domain->id);
    bool timer = on && (sess.params.flags & VERTIGO_SESSION_TIMER);
    const struct vertigo_session *p = &sess.params;
    uint32_t freq = (p->flags & VERTIGO_SESSION_FREQ) ? (uint32_t)p->period : 0;
    bool ok = sample_apply(v, on && !timer ? p->events : NULL, p->period, on ? freq : 0);
    v->pmu.sample.stack_depth = on && ok ? p->stack_depth : 0;
    v->pmu.sample.user_stack = on && ok && (p->flags & VERTIGO_SESSION_USER_STACK);
    v->pmu.sample.timer_ticks = timer ? sess.timer_ticks : 0;
    spin_unlock(&sess.lock);
    if (v->pmu.sample.timer_ticks)
        pmu_arch_timer_request(v, PMU_TIMER_SAMPLE, v->pmu.sample.timer_ticks);
    else
        pmu_arch_timer_cancel(v, PMU_TIMER_SAMPLE);
    if (on)
        log_event_names(v, v->id == 0);
}

void sample_before_entry(struct vcpu *v)
{
    uint32_t gen = __atomic_load_n(&sess.generation, __ATOMIC_ACQUIRE);
    if (v->pmu.sample.generation != gen || v->pmu.sample.stale)
        apply_session(v);
}

void sample_vcpu_counting_changed(struct vcpu *v)
{
    if (!v->pmu.sample.mask)
        return;                     /* timer sampling needs no counter */
    v->pmu.sample.mask = 0;         /* its bits named the old context's counters */
    v->pmu.sample.stale = true;
}

void sample_after_exit(struct vcpu *v)
{
    if (!v->pmu.sample.timer_ticks || !pmu_arch_timer_expired(v, PMU_TIMER_SAMPLE))
        return;
    pmu_arch_timer_request(v, PMU_TIMER_SAMPLE, v->pmu.sample.timer_ticks);
    pmu_pmi_raise(PMU_PENDING_TIMER);
}

/* ---- Starting and stopping -------------------------------------------------- */

static void describe(const struct vertigo_session *s, const char *who)
{
    if (s->flags & VERTIGO_SESSION_TIMER)
        printk("sample: session started by %s: timer at %u Hz of guest time, stack depth %u\n",
               who, s->timer_hz, s->stack_depth);
    else if (s->flags & VERTIGO_SESSION_FREQ)
        printk("sample: session started by %s: %s at %lu samples a second of guest time "
               "(periods from %lu adapting), stack depth %u%s\n", who, s->events, s->period,
               sample_freq_first_period((uint32_t)s->period), s->stack_depth,
               (s->flags & VERTIGO_SESSION_USER_STACK) ? ", user stacks copied" : "");
    else
        printk("sample: session started by %s: %s every %lu events, stack depth %u%s\n", who,
               s->events, s->period, s->stack_depth,
               (s->flags & VERTIGO_SESSION_USER_STACK) ? ", user stacks copied" : "");
    if (s->flags & VERTIGO_SESSION_PROCESS)
        printk("sample: only the process of page-table root %#lx\n", s->process_cr3);
}

/* The session's samples can be taken on this run, else why not (printed). */
static bool session_possible(const struct vertigo_session *s)
{
    char why[WHY_MAX];
    if (s->flags & VERTIGO_SESSION_TIMER) {
        if (platform_tsc_hz())
            return true;
        printk("sample: session refused: the TSC rate is unknown\n");
        return false;
    }
    if (sample_check(s->events, why, sizeof(why)))
        return true;
    printk("sample: session refused: %s\n", why);
    return false;
}

int64_t sample_session_start(const struct vertigo_session *s, const char *who,
                             uint32_t owner)
{
    bool timer = (s->flags & VERTIGO_SESSION_TIMER) != 0;
    if (!session_possible(s))
        return -VERTIGO_EINVAL;
    spin_lock(&sess.lock);
    if (sess.running) {
        spin_unlock(&sess.lock);
        return -VERTIGO_EBUSY;
    }
    sess.params = *s;
    sess.owner = owner;
    sample_scope_set((s->flags & VERTIGO_SESSION_PROCESS) ? s->process_cr3 : 0);
    sess.timer_ticks = timer ? platform_tsc_hz() / s->timer_hz : 0;
    sess.timer_ticks = sess.timer_ticks ? sess.timer_ticks : 1;
    sample_logged_reset();
    sess.running = sess.ever = true;
    __atomic_fetch_add(&sess.generation, 1u, __ATOMIC_RELEASE);
    spin_unlock(&sess.lock);
    describe(s, who);
    if (owner != SAMPLE_OWNER_MACHINE)
        printk("sample: the session samples domain %u only (sample.control= grants a domain "
               "every domain's sampling)\n", owner);
    return 0;
}

int64_t sample_session_stop(void)
{
    spin_lock(&sess.lock);
    if (!sess.running) {
        spin_unlock(&sess.lock);
        return -VERTIGO_EINVAL;
    }
    sess.running = false;
    __atomic_fetch_add(&sess.generation, 1u, __ATOMIC_RELEASE);
    uint64_t logged = sample_logged();
    bool process = (sess.params.flags & VERTIGO_SESSION_PROCESS) != 0;
    uint64_t others = sample_out_of_scope();
    sample_scope_set(0);
    spin_unlock(&sess.lock);
    if (process)
        printk("sample: session stopped: %lu samples logged, %lu PMIs of other processes "
               "not sampled\n", logged, others);
    else
        printk("sample: session stopped: %lu samples logged\n", logged);
    return (int64_t)(logged & (uint64_t)INT64_MAX);
}

int64_t sample_session_stop_by(uint32_t domain)
{
    spin_lock(&sess.lock);
    bool running = sess.running, own = sess.owner == domain;
    spin_unlock(&sess.lock);
    /* No message: a guest calling in a loop must not buy a console line
     * (root time on the UART) with each call. */
    if (running && !own && !sample_domain_controls_machine(domain))
        return -VERTIGO_EPERM;
    return sample_session_stop();
}

bool sample_domain_controls_machine(uint32_t domain)
{
    return domain == machine_controller;
}

/* ---- The command-line session ---------------------------------------------- */

static bool read_u64(const char *cmdline, const char *key, uint64_t *out)
{
    char value[OPTION_MAX];
    if (!cmdline_get(cmdline, key, value, sizeof(value)))
        return false;
    if (!cmdline_parse_u64(value, out)) {
        printk("sample: bad option %s=%s\n", key, value);
        *out = UINT64_MAX;      /* refused by the session check */
    }
    return true;
}

static uint32_t clamp32(uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* sample.freq=F in place of sample.period= (into s): false, printed, for a
 * combination that cannot be or an F out of range. */
static bool read_freq(const char *cmdline, struct vertigo_session *s, bool events)
{
    uint64_t freq = 0;
    if (!read_u64(cmdline, "sample.freq", &freq))
        return true;
    const char *why = NULL;
    if (s->flags & VERTIGO_SESSION_TIMER)
        why = "sample.freq= sets the rate of event samples, sample.hz= of timer samples: "
              "give one";
    else if (!events)
        why = "sample.freq= needs sample.events=";
    else if (s->period)
        why = "sample.freq= and sample.period= exclude each other (adapting periods or "
              "one fixed period)";
    else if (!sample_freq_valid(freq))
        why = "sample.freq= takes 1..100000 samples a second";
    if (why) {
        printk("sample: no session: %s\n", why);
        return false;
    }
    s->flags |= VERTIGO_SESSION_FREQ;
    s->period = freq;
    return true;
}

bool sample_session_from_cmdline(const char *cmdline, struct vertigo_session *out)
{
    struct vertigo_session s = { .abi_version = VERTIGO_SESSION_ABI };
    uint64_t hz = 0, depth = 0, user_stack = 0;
    bool events = cmdline_get(cmdline, "sample.events", s.events, sizeof(s.events));
    if (read_u64(cmdline, "sample.hz", &hz))
        s.flags |= VERTIGO_SESSION_TIMER;
    read_u64(cmdline, "sample.period", &s.period);
    if (!read_freq(cmdline, &s, events))
        return false;
    if (!events && !(s.flags & VERTIGO_SESSION_TIMER))
        return false;
    read_u64(cmdline, "sample.depth", &depth);
    if (read_u64(cmdline, "sample.user_stack", &user_stack) && user_stack)
        s.flags |= VERTIGO_SESSION_USER_STACK;
    s.timer_hz = clamp32(hz);
    s.stack_depth = clamp32(depth);
    if (sample_session_check(&s)) {
        printk("sample: no session: bad sample.* options (sample.events=LIST with "
               "sample.period=128..2^48 or sample.freq=1..100000, or sample.hz=1..100000; "
               "sample.depth<=%u)\n",
               VERTIGO_STACK_MAX);
        return false;
    }
    *out = s;
    return true;
}

/* sample.cost_every=N: one PMI in N timed (a power of two up to
 * SAMPLE_COST_EVERY_MAX); anything else keeps the default and says so. */
static void cost_every_from_cmdline(const char *cmdline)
{
    uint64_t every;
    if (!read_u64(cmdline, "sample.cost_every", &every))
        return;                             /* not given */
    if (!every || every > SAMPLE_COST_EVERY_MAX || (every & (every - 1))) {
        printk("sample: sample.cost_every= takes a power of two from 1 to %u: timing 1 PMI "
               "in %u\n", SAMPLE_COST_EVERY_MAX, sample_cost_every);
        return;
    }
    sample_cost_every = (uint32_t)every;
}

/* sample.control=N (0..DOMAIN_MAX-1): domain N's kernel controls every
 * domain's sampling. */
static void control_from_cmdline(const char *cmdline)
{
    uint64_t domain;
    if (!read_u64(cmdline, "sample.control", &domain))
        return;
    if (domain >= DOMAIN_MAX) {
        printk("sample: sample.control= takes a domain number from 0 to %u: no domain "
               "controls every domain's sampling\n", DOMAIN_MAX - 1);
        return;
    }
    machine_controller = (uint32_t)domain;
    printk("sample: domain %u's kernel controls every domain's sampling\n", machine_controller);
}

static void start_from_cmdline(void)
{
    struct vertigo_session s;
    cost_every_from_cmdline(hv_cmdline());
    control_from_cmdline(hv_cmdline());
    if (sample_session_from_cmdline(hv_cmdline(), &s))
        sample_session_start(&s, "the command line", SAMPLE_OWNER_MACHINE);
}

void sample_vcpu_start(struct vcpu *v)
{
    static bool cmdline_read;
    struct pmu_cpu *c = pmu_cpu_of(v->cpu);
    if (!cmdline_read) {
        cmdline_read = true;        /* VCPU 0 starts before any AP's VCPU */
        start_from_cmdline();
    }
    c->apic_id = pmu_arch_apic_id();
    pmu_pmi_cpu_start(c);
    pmu_arch_timer_cancel(v, PMU_TIMER_SAMPLE);
    __atomic_store_n(&c->vcpu, v, __ATOMIC_RELEASE);
}

/* ---- End of the domain ------------------------------------------------------- */

static void report_cpu(unsigned int cpu)
{
    const struct pmu_cpu *c = pmu_cpu_of(cpu);
    const struct sampler_stats *st = &c->stats;
    const struct sample_cost *cost = &c->cost;
    uint64_t n = cost->pmis ? cost->pmis : 1;
    printk("sample: cpu %u: %lu PMIs, %lu samples logged, %lu dropped, %lu spurious NMIs, "
           "%lu guest NMIs reflected from root, %lu kicks, sampling path avg %lu cycles per "
           "PMI (%lu recording; 1 PMI in %u measured)\n", cpu, st->pmis,
           st->samples_logged, st->samples_dropped, st->spurious_nmis, st->reflected_nmis,
           st->kicks, cost->path_cycles / n, cost->record_cycles / n, sample_cost_every);
    sample_nmi_report(cpu);
}

void sample_report(const struct domain *d, bool run_ends)
{
    sample_symbols_report(d);
    if (!sess.ever)
        return;
    /* Other domains left: the session samples them on (a VCPU that has not
     * run yet takes it at its first entry). */
    if (sess.running && !run_ends && sess.owner != d->id)
        printk("sample: the session goes on in the other domains: %lu samples logged so far\n",
               sample_logged());
    /* The other CPUs keep their contexts (no new generation): their PMU
     * totals are reported next, and the run ends with this domain. */
    /* A domain's own session ends with it. */
    if (sess.running && sess.owner == d->id && !run_ends) {
        spin_lock(&sess.lock);
        sess.running = false;
        __atomic_fetch_add(&sess.generation, 1u, __ATOMIC_RELEASE);
        spin_unlock(&sess.lock);
        printk("sample: domain %u's session stopped at the end of the domain: %lu samples "
               "logged\n", d->id, sample_logged());
    }
    if (sess.running && run_ends) {
        spin_lock(&sess.lock);
        sess.running = false;
        spin_unlock(&sess.lock);
        printk("sample: session stopped at the end of the domain: %lu samples logged\n",
               sample_logged());
    }
    for (unsigned int i = 0; i < d->vcpu_count; i++) {
        sample_freq_vcpu_report(&d->vcpus[i]);
        report_cpu(d->vcpus[i].cpu);
    }
}
