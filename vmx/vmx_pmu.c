/* The counting session in the VM-exit loop (see vmx/vmx_pmu.h and
 * docs/pmu.md "Wiring"). One backend instance per physical CPU; each VCPU
 * stays on its CPU, so a VCPU's context is loaded once when it starts and
 * saved only if it ever left (save/restore on VCPU switch only). */
#include "vmx/vmx_pmu.h"

#include "boot/cpu.h"
#include "boot/percpu.h"
#include "pmu/pmu_hw.h"
#include "pmu/pmu_log_desc.h"
#include "pmu/pmu_probe.h"
#include "pmu/pmu_session.h"
#include "pmu/pmu_soft.h"
#include "vertigo/hypercall.h"
#include "vmm/cmdline.h"
#include "vmm/console.h"
#include "vmm/format.h"
#include "vmm/hv_cmdline.h"
#include "vmm/log_hv.h"
#include "vmm/mem.h"
#include "vmm/msr.h"
#include "boot/platform.h"
#include "vmx/vmx_cpu.h"
#include "vmx/vmx_ops.h"
#include "vmx/vmx_pmi.h"
#include "vmx/vmx_pmu_step.h"
#include "vmx/sample.h"
#include "vmx/vmx_timer.h"

#define OPTION_MAX          32u
#define CPUID_1_ECX_PDCM    (1u << 15)  /* IA32_PERF_CAPABILITIES exists */
/* Bochs starts the preemption timer inside VMLAUNCH/VMRESUME and that
 * instruction's retirement is its first tick (PLATFORM.md: "timer value
 * 100000 exited after 100061 ticks, entry/exit included"). */
#define BOCHS_ENTRY_TIMER_TICKS 1u

static struct {
    bool configured;
    enum pmu_session_backend backend;
    struct pmu_desc desc;
    bool tsc_counts_instructions;
    bool has_events;
    struct pmu_event_list list;
    char count_text[PMU_SESSION_EVENTS_MAX];    /* pmu.events= as given */
    uint64_t step_ticks;
    uint64_t period;
} session;

static struct pmu_soft soft_cpu[MAX_CPUS];
static struct pmu_hw hw_cpu[MAX_CPUS];

/* ---- Choosing the backend and parsing the session (once) -------------- */

static bool hw_controls_present(void)
{
    return (vmx_config.ctl.entry & ENTRY_LOAD_PERF_GLOBAL_CTRL) &&
           (vmx_config.ctl.exit & EXIT_LOAD_PERF_GLOBAL_CTRL);
}

static bool soft_timer_present(void)
{
    return (vmx_config.pin_available & PIN_PREEMPTION_TIMER) &&
           (vmx_config.exit_available & EXIT_SAVE_PREEMPTION_TIMER);
}

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

static void announce_backend(enum pmu_choice choice)
{
    switch (session.backend) {
    case PMU_SESSION_HW:
        printk("pmu: using the hardware backend (architectural PMU v%u)\n", session.desc.version);
        break;
    case PMU_SESSION_SOFT:
        printk("pmu: using the software backend (%s)\n", session.tsc_counts_instructions
               ? "exact instruction counts in Bochs" : "cycle-based events only: guest TSC time");
        break;
    case PMU_SESSION_NONE:
        printk("pmu: no PMU backend (%s)\n", choice == PMU_CHOICE_OFF ? "pmu=off"
               : "pmu=hw needs a PMU that counts and the load IA32_PERF_GLOBAL_CTRL controls");
        break;
    }
}

static enum pmu_session_backend check_backend(enum pmu_session_backend b)
{
    if (b == PMU_SESSION_HW && !hw_controls_present()) {
        printk("pmu: the VM-entry/exit \"load IA32_PERF_GLOBAL_CTRL\" controls are missing\n");
        return PMU_SESSION_NONE;
    }
    if (b == PMU_SESSION_SOFT && !soft_timer_present()) {
        printk("pmu: the software backend needs the VMX-preemption timer and its save control\n");
        return PMU_SESSION_NONE;
    }
    return b;
}

static void backend_caps(struct pmu_event_caps *caps)
{
    if (session.backend == PMU_SESSION_HW)
        pmu_event_caps_hw(caps, &session.desc);
    else
        pmu_event_caps_soft(caps, session.tsc_counts_instructions);
}

static void parse_events(const char *cmdline)
{
    char text[PMU_SESSION_EVENTS_MAX];
    struct pmu_event_caps caps;
    struct pmu_event_error err;

    if (session.backend == PMU_SESSION_NONE ||
        !cmdline_get(cmdline, "pmu.events", text, sizeof(text)))
        return;
    backend_caps(&caps);
    if (pmu_event_list_parse(text, &caps, &session.list, &err) != PMU_EVERR_NONE) {
        char msg[128];
        pmu_event_error_format(&err, msg, sizeof(msg));
        printk("pmu: no counting session: %s\n", msg);
        return;
    }
    session.has_events = session.list.count > 0;
    memcpy(session.count_text, text, sizeof(text));
    printk("pmu: counting session: %s (%u events", text, session.list.count);
    if (session.backend == PMU_SESSION_SOFT)
        printk(", step %lu ticks", session.step_ticks);
    if (session.period)
        printk(", period %lu", session.period);
    printk(")\n");
}

static void session_configure(void)
{
    const char *cmdline = hv_cmdline();
    enum pmu_choice choice = read_choice(cmdline);
    enum pmu_verdict verdict = pmu_probe_result(&session.desc);

    session.tsc_counts_instructions = platform_is_emulator();
    session.backend = check_backend(pmu_session_decide(choice, verdict));
    session.step_ticks = read_u64_option(cmdline, "pmu.step", PMU_SESSION_DEFAULT_STEP, 1);
    session.period = read_u64_option(cmdline, "pmu.period", 0, 0);
    pmu_session_set_current(session.backend);
    struct log_pmu_desc log_pmu = pmu_log_desc(verdict, &session.desc, session.backend);
    log_hv_set_pmu(&log_pmu);   /* the stream header names the backend */
    if (session.tsc_counts_instructions)
        vmx_timer_set_entry_ticks(BOCHS_ENTRY_TIMER_TICKS);
    announce_backend(choice);
    parse_events(cmdline);
    session.configured = true;
}

/* ---- Per-CPU backend instances ------------------------------------------ */

static int msr_read(void *ctx, uint32_t msr, uint64_t *value)
{
    (void)ctx;
    return rdmsr_safe(msr, value);
}

static int msr_write(void *ctx, uint32_t msr, uint64_t value)
{
    (void)ctx;
    return wrmsr_safe(msr, value);
}

static enum pmu_status hw_backend_init(unsigned int cpu, struct pmu_backend *be)
{
    static const struct pmu_msr_ops msr_ops = { msr_read, msr_write, NULL };
    uint64_t perf_cap = 0;
    if ((cpuid(1, 0).ecx & CPUID_1_ECX_PDCM) &&
        rdmsr_safe(MSR_IA32_PERF_CAPABILITIES, &perf_cap))
        perf_cap = 0;
    enum pmu_status st = pmu_hw_init(&hw_cpu[cpu], &session.desc, perf_cap, &msr_ops);
    *be = pmu_hw_backend(&hw_cpu[cpu]);
    return st;
}

static enum pmu_status soft_backend_init(unsigned int cpu, struct pmu_backend *be)
{
    struct pmu_soft_config cfg = {
        .step_ticks = session.step_ticks,
        .tsc_counts_instructions = session.tsc_counts_instructions,
    };
    enum pmu_status st = pmu_soft_init(&soft_cpu[cpu], &cfg);
    *be = pmu_soft_backend(&soft_cpu[cpu]);
    return st;
}

static enum pmu_status start_session(struct vcpu *v, const struct pmu_event_list *list,
                                     const uint64_t *periods)
{
    struct vcpu_pmu *p = &v->pmu;
    enum pmu_status st = session.backend == PMU_SESSION_HW ? hw_backend_init(v->cpu, &p->be)
                                                           : soft_backend_init(v->cpu, &p->be);
    if (st != PMU_OK)
        return st;
    pmu_ctx_init(&p->ctx, list, periods);
    st = p->be.ops->program(p->be.self, &p->ctx);
    if (st == PMU_OK)
        st = p->be.ops->load(p->be.self, &p->ctx);
    if (st == PMU_OK)
        vmx_pmi_arm(v);
    return st;
}

void vmx_pmu_vcpu_start(struct vcpu *v)
{
    if (!session.configured)
        session_configure();        /* VCPU 0 starts before any AP's VCPU */
    vmx_timer_init(v);
    memset(&v->pmu, 0, sizeof(v->pmu));
    swevent_add(&v->pmu.sw, SWEVENT_VCPU_SWITCHES, 1);
    if (!session.has_events)
        return;
    uint64_t periods[PMU_EVENT_LIST_MAX];
    for (unsigned int i = 0; i < PMU_EVENT_LIST_MAX; i++)
        periods[i] = session.period;
    enum pmu_status st = start_session(v, &session.list, periods);
    if (st != PMU_OK) {
        printk("pmu: vcpu %u: no counting: %s\n", v->id, pmu_status_text(st));
        v->pmu.be.ops = NULL;
        return;
    }
    v->pmu.counting = true;
    v->pmu.count_events = session.list.count;
}

/* ---- Around each VM entry and exit -------------------------------------- */

/* The backend operations that run at every VM entry and exit. The
 * software backend's entry and exit are inline (pmu/pmu_soft.h) and its
 * other operations are named through its constant table, which the
 * compiler (with LTO) resolves to direct calls; the hardware backend's go
 * through the VCPU's table. */
static bool soft_backend(void)
{
    return session.backend == PMU_SESSION_SOFT;
}

static struct pmu_soft *soft_of(struct vcpu_pmu *p)
{
    return p->be.self;
}

static uint32_t backend_exit(struct vcpu_pmu *p, uint64_t guest_ticks)
{
    if (soft_backend())
        return pmu_soft_exit(soft_of(p), &p->ctx, guest_ticks);
    return p->be.ops->exit(p->be.self, &p->ctx, guest_ticks);
}

static uint32_t backend_overflow(struct vcpu_pmu *p)
{
    if (soft_backend())
        return pmu_ctx_take_overflows(&p->ctx);     /* pmu_soft_ops.overflow */
    return p->be.ops->overflow(p->be.self, &p->ctx);
}

static void backend_emulated_instruction(struct vcpu_pmu *p)
{
    if (soft_backend())
        pmu_soft_ops.emulated_instruction(p->be.self, &p->ctx, p->exit_cpl);
    else
        p->be.ops->emulated_instruction(p->be.self, &p->ctx, p->exit_cpl);
}

/* Overflows already sampled where they happened: counted only. */
static void count_overflows(struct vcpu *v, uint32_t mask)
{
    for (; mask; mask &= mask - 1)
        v->pmu.overflows++;
}

/* Hardware: the CPU switches IA32_PERF_GLOBAL_CTRL itself at entry and
 * exit (SDM Vol. 3C 27.3.2.1, 28.5.1); freeze-on-PMI rides in the guest
 * DEBUGCTL field. */
static void hw_plan_to_vmcs(const struct pmu_entry_plan *plan)
{
    vmcs_write(VMCS_GUEST_IA32_PERF_GLOBAL_CTRL, plan->guest_global_ctrl);
    vmcs_write(VMCS_HOST_IA32_PERF_GLOBAL_CTRL, plan->host_global_ctrl);
    if (plan->guest_debugctl_set) {
        uint64_t debugctl = vmcs_read(VMCS_GUEST_IA32_DEBUGCTL);
        if ((debugctl & plan->guest_debugctl_set) != plan->guest_debugctl_set)
            vmcs_write(VMCS_GUEST_IA32_DEBUGCTL, debugctl | plan->guest_debugctl_set);
    }
}

/* Software: every entry gets a deadline, at most one step, so halted time
 * a step may contain is bounded and every run is measured by the timer. */
static void soft_plan_entry(struct vcpu *v, unsigned int cpl)
{
    struct pmu_soft *soft = soft_of(&v->pmu);
    uint64_t step = soft->config.step_ticks;
    uint64_t deadline = pmu_soft_enter(soft, &v->pmu.ctx, cpl);
    vmx_timer_request(v, VMX_TIMER_PMU, deadline < step ? deadline : step);
}

/* The step granularity the guest can change (VERTIGO_HC_PMU_STEP) applies
 * to user mode; the kernel always runs at pmu.step, so a fine user step
 * never makes the guest's interrupt handlers crawl. Without a user step
 * the backend keeps pmu.step (set at its start and by hc_set_step). */
static void soft_choose_step(struct vcpu *v, unsigned int cpl)
{
    if (!v->pmu.user_step_ticks)
        return;
    soft_of(&v->pmu)->config.step_ticks = cpl ? v->pmu.user_step_ticks : session.step_ticks;
}

static void plan_entry(struct vcpu *v)
{
    struct vcpu_pmu *p = &v->pmu;
    struct pmu_entry_plan plan;
    if (!p->counting) {
        /* A session that ended must not leave its expired deadline
         * behind (every entry would exit at once), nor hardware counters
         * enabled by the last GLOBAL_CTRL values in the VMCS. */
        vmx_timer_cancel(v, VMX_TIMER_PMU);
        if (session.backend == PMU_SESSION_HW) {
            struct pmu_entry_plan off = { 0 };
            hw_plan_to_vmcs(&off);
        }
        return;
    }
    unsigned int cpl = vmx_guest_cpl();
    p->entered_halted = vmcs_read(VMCS_GUEST_ACTIVITY_STATE) == VMX_ACTIVITY_HLT;
    if (soft_backend()) {
        soft_choose_step(v, cpl);
        soft_plan_entry(v, cpl);
        return;
    }
    p->be.ops->enter(p->be.self, &p->ctx, cpl, &plan);
    hw_plan_to_vmcs(&plan);
}

/* Counts Vertigo's time since the exit for counters with :h where it is
 * not single-stepped (counting only): the TSC difference. */
static void soft_hypervisor_time(struct vcpu *v)
{
    struct pmu_ctx *ctx = &v->pmu.ctx;
    if (session.backend != PMU_SESSION_SOFT || !ctx->count_hypervisor)
        return;
    pmu_soft_hypervisor_ticks(ctx, rdtsc() - v->vmx.exit_tsc);
    count_overflows(v, pmu_ctx_take_overflows(ctx));
}

void vmx_pmu_before_entry(struct vcpu *v)
{
    bool stepping = vmx_pmu_step_armed(v);
    if (stepping)
        count_overflows(v, vmx_pmu_step_pause(v));
    else if (v->pmu.counting)
        soft_hypervisor_time(v);
    plan_entry(v);
    if (stepping)
        count_overflows(v, vmx_pmu_step_resume(v));
}

/* A one-tick step that began in user mode and ended in kernel mode either
 * executed a user SYSCALL (the guest now stands at IA32_LSTAR's target) or
 * took an interrupt or fault first and then ran one kernel instruction:
 * Bochs delivers pending events at the instruction boundary before the
 * step's instruction. The tick is the kernel's in the second case. The
 * guest's LSTAR is the live MSR: Vertigo neither intercepts nor uses it. */
static void correct_step_mode(struct vcpu *v, uint64_t guest_ticks)
{
    struct pmu_ctx *ctx = &v->pmu.ctx;
    if (guest_ticks != 1 || ctx->entry_cpl == 0 || v->pmu.exit_cpl != 0)
        return;
    if (vmcs_read(VMCS_GUEST_RIP) != rdmsr(MSR_IA32_LSTAR))
        ctx->entry_cpl = 0;
}

/* Software backend: the overflow is found here, at the exact point; the
 * sampling ones go on as a PMI (self-NMI, vmx/sample.c). The hardware
 * backend's PMI comes from LVTPC and is taken in the NMI path. */
static void take_overflows(struct vcpu *v)
{
    struct vcpu_pmu *p = &v->pmu;
    uint32_t mask = backend_overflow(p);
    if (mask & p->sample_mask)
        vmx_sample_raise(v, mask & p->sample_mask);
    for (; mask; mask &= mask - 1)
        p->overflows++;
}

/* The guest's run since the entry: its ticks to the counters (software
 * backend), overflows taken. */
static void account_guest(struct vcpu *v, uint64_t guest_ticks)
{
    struct vcpu_pmu *p = &v->pmu;
    p->exit_cpl = (uint8_t)vmx_guest_cpl();
    if (!p->counting)
        return;
    if (session.backend == PMU_SESSION_SOFT) {
        if (p->entered_halted) {
            p->halted_ticks += guest_ticks;     /* idle: not guest work */
            guest_ticks = 0;
        }
        correct_step_mode(v, guest_ticks);
    }
    if (backend_exit(p, guest_ticks))
        take_overflows(v);
}

void vmx_pmu_after_exit(struct vcpu *v, const struct vmx_exit *e, uint64_t guest_ticks)
{
    (void)e;
    bool stepping = vmx_pmu_step_armed(v);
    if (stepping)
        count_overflows(v, vmx_pmu_step_exit_begin(v));
    account_guest(v, guest_ticks);
    if (stepping)
        count_overflows(v, vmx_pmu_step_resume(v));
}

/* The handler emulated the instruction iff it moved RIP past it (CPUID,
 * RDMSR/WRMSR, I/O, VMCALL, XSETBV, CR access, emulated MMIO stores...);
 * an instruction that got a fault injected instead did not retire. Exits
 * between instructions (the timer, the interrupt and NMI windows, an
 * external interrupt) emulate none: no VMREAD of RIP for them. */
static bool instruction_emulated(const struct vmx_exit *e)
{
    switch (e->reason) {
    case EXIT_REASON_PREEMPTION_TIMER:
    case EXIT_REASON_EXTERNAL_INTERRUPT:
    case EXIT_REASON_INTERRUPT_WINDOW:
    case EXIT_REASON_NMI_WINDOW:
    case EXIT_REASON_INIT_SIGNAL:
    case EXIT_REASON_SIPI:
        return false;
    default:
        return vmcs_read(VMCS_GUEST_RIP) != e->rip;
    }
}

void vmx_pmu_after_handler(struct vcpu *v, const struct vmx_exit *e)
{
    struct vcpu_pmu *p = &v->pmu;
    swevent_count_exit(&p->sw, e->full_reason);
    if (!p->counting || !instruction_emulated(e))
        return;
    bool stepping = vmx_pmu_step_armed(v);
    if (stepping)
        count_overflows(v, vmx_pmu_step_pause(v));
    backend_emulated_instruction(p);
    if (p->ctx.overflow_pending)
        take_overflows(v);
    if (stepping)
        count_overflows(v, vmx_pmu_step_resume(v));
}

/* ---- Sampling sessions ------------------------------------------------------ */

/* "COUNTING,SAMPLING" (either may be empty) into out. */
static void join_events(const char *sampling, char *out, size_t size)
{
    size_t n = strnlen(session.count_text, size - 1);
    memcpy(out, session.count_text, n);
    if (sampling && sampling[0]) {
        if (n && n + 1 < size)
            out[n++] = ',';
        size_t m = strnlen(sampling, size - 1 - n);
        memcpy(out + n, sampling, m);
        n += m;
    }
    out[n] = '\0';
}

static bool parse_joined(const char *sampling, struct pmu_event_list *list, char *why,
                         unsigned int why_size)
{
    char text[2 * PMU_SESSION_EVENTS_MAX];
    struct pmu_event_caps caps;
    struct pmu_event_error err;
    if (session.backend == PMU_SESSION_NONE) {
        fmt_snprintf(why, why_size, "no PMU backend");
        return false;
    }
    join_events(sampling, text, sizeof(text));
    backend_caps(&caps);
    if (pmu_event_list_parse(text, &caps, list, &err) != PMU_EVERR_NONE) {
        err.index -= err.index >= session.list.count ? session.list.count : 0;
        pmu_event_error_format(&err, why, why_size);
        return false;
    }
    for (unsigned int i = session.list.count; i < list->count; i++) {
        if (list->events[i].source != PMU_EVENT_HW) {
            fmt_snprintf(why, why_size, "event %u \"%s\": a software event cannot sample",
                         i - session.list.count, list->events[i].name);
            return false;
        }
        if (list->events[i].hypervisor && session.backend == PMU_SESSION_SOFT &&
            !session.tsc_counts_instructions) {
            fmt_snprintf(why, why_size, "event %u \"%s\": the software PMU samples the "
                         "hypervisor (:h) only where a TSC tick is an instruction (Bochs)",
                         i - session.list.count, list->events[i].name);
            return false;
        }
    }
    return true;
}

bool vmx_pmu_sample_check(const char *events, char *why, unsigned int why_size)
{
    struct pmu_event_list list;
    if (!session.configured)
        session_configure();
    return parse_joined(events, &list, why, why_size);
}

/* Carries the counting session's counts across the re-programming. */
static void save_counts(const struct vcpu *v, uint64_t *counts)
{
    const struct vcpu_pmu *p = &v->pmu;
    for (unsigned int i = 0; i < p->count_events; i++)
        counts[i] = p->counting ? pmu_read_event(&p->be, &p->ctx, &p->sw, i) : 0;
}

static void restore_counts(struct vcpu *v, const uint64_t *counts)
{
    struct pmu_ctx *ctx = &v->pmu.ctx;
    for (unsigned int i = 0; i < v->pmu.count_events; i++)
        if (ctx->counters[i].event.source == PMU_EVENT_HW)
            ctx->counters[i].accum += counts[i];
}

bool vmx_pmu_sampling_apply(struct vcpu *v, const char *events, uint64_t period)
{
    struct vcpu_pmu *p = &v->pmu;
    struct pmu_event_list list;
    uint64_t periods[PMU_EVENT_LIST_MAX], counts[PMU_EVENT_LIST_MAX];
    char why[128];

    if (vmx_pmu_step_armed(v)) {
        count_overflows(v, vmx_pmu_step_pause(v));  /* its steps into the old counts */
        vmx_pmu_step_arm(v, false);
    }
    p->sample_mask = 0;
    if (!session.configured || session.backend == PMU_SESSION_NONE)
        return !events || !events[0];
    if (!session.has_events && (!events || !events[0])) {
        p->counting = false;
        return true;
    }
    if (!parse_joined(events, &list, why, sizeof(why))) {
        printk("pmu: vcpu %u: no sampling: %s\n", v->id, why);
        return false;
    }
    save_counts(v, counts);
    for (unsigned int i = 0; i < PMU_EVENT_LIST_MAX; i++)
        periods[i] = i < session.list.count ? session.period : period;
    enum pmu_status st = start_session(v, &list, periods);
    if (st != PMU_OK) {
        printk("pmu: vcpu %u: no sampling: %s\n", v->id, pmu_status_text(st));
        p->be.ops = NULL;
        p->counting = false;
        return false;
    }
    p->count_events = session.list.count;
    restore_counts(v, counts);
    p->counting = true;
    for (unsigned int i = session.list.count; i < list.count; i++)
        p->sample_mask |= 1u << i;
    if (session.backend == PMU_SESSION_SOFT && pmu_soft_samples_hypervisor(&p->ctx))
        vmx_pmu_step_arm(v, true);
    return true;
}

bool vmx_pmu_root_pmi_is_hypervisor(const struct vcpu *v)
{
    return session.backend == PMU_SESSION_HW && v->pmu.counting && v->pmu.ctx.count_hypervisor;
}

void vmx_pmu_step_finish(const struct domain *d)
{
    struct vcpu *self = this_cpu()->sample_vcpu;
    if (self && vmx_pmu_step_armed(self)) {
        count_overflows(self, vmx_pmu_step_pause(self));
        vmx_pmu_step_arm(self, false);
    }
    for (unsigned int i = 0; i < d->vcpu_count; i++)
        vmx_pmu_step_report(&d->vcpus[i]);
}

uint32_t vmx_pmu_nmi_overflows(struct vcpu *v, bool *handled)
{
    struct vcpu_pmu *p = &v->pmu;
    *handled = false;
    if (!p->counting || session.backend != PMU_SESSION_HW)
        return 0;
    uint32_t mask = p->be.ops->overflow(p->be.self, &p->ctx);
    mask |= vmx_pmi_rearm(v);
    *handled = mask != 0;
    for (uint32_t m = mask; m; m &= m - 1)
        p->overflows++;
    return mask & p->sample_mask;
}

/* ---- Hypercalls ------------------------------------------------------------ */

static int64_t hc_read(void *ctx, uint64_t index)
{
    struct vcpu *v = ctx;
    unsigned int n = v->pmu.counting ? v->pmu.ctx.count : 0;
    if (index == VERTIGO_PMU_EVENT_COUNT)
        return n;
    if (index >= n)
        return -VERTIGO_EINVAL;
    return (int64_t)(pmu_read_event(&v->pmu.be, &v->pmu.ctx, &v->pmu.sw, (unsigned int)index) &
                     (uint64_t)INT64_MAX);
}

static int64_t hc_set_step(void *ctx, uint64_t ticks)
{
    struct vcpu *v = ctx;
    if (!v->pmu.counting || session.backend != PMU_SESSION_SOFT)
        return -VERTIGO_EINVAL;
    uint64_t previous = v->pmu.user_step_ticks ? v->pmu.user_step_ticks : session.step_ticks;
    v->pmu.user_step_ticks = ticks;
    soft_of(&v->pmu)->config.step_ticks = session.step_ticks;  /* the next entry chooses */
    return (int64_t)(previous & (uint64_t)INT64_MAX);
}

const struct hypercall_pmu *vmx_pmu_hypercalls(struct vcpu *v)
{
    static struct hypercall_pmu calls[MAX_CPUS];
    struct hypercall_pmu *c = &calls[v->cpu % MAX_CPUS];
    c->read = hc_read;
    c->set_step = hc_set_step;
    c->ctx = v;
    c->sampling = vmx_sample_hypercalls(v);
    return c;
}
