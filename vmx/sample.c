/* Sampling sessions: the PMI as a self-NMI, samples written from NMI
 * context, timer sampling, session control and symbol shipping (see
 * vmx/sample.h). One session per run (domain 0); each VCPU applies a
 * session change on its own CPU between an exit and the next entry. */
#include "vmx/sample.h"

#include "boot/apic.h"
#include "boot/cpu.h"
#include "boot/percpu.h"
#include "boot/platform.h"
#include "vertigo/hypercall.h"
#include "vmm/cmdline.h"
#include "vmm/console.h"
#include "vmm/guest_stack.h"
#include "vmm/hv_cmdline.h"
#include "vmm/log_emit.h"
#include "vmm/log_hv.h"
#include "vmm/mem.h"
#include "vmm/sampler.h"
#include "vmx/exit.h"
#include "vmx/guest_mem.h"
#include "vmx/vmx_ops.h"
#include "vmx/vmx_pmu.h"
#include "vmx/vmx_timer.h"

#define OPTION_MAX            64u
#define CR3_ADDR_MASK         0x000ffffffffff000ull  /* CR3 bits 51:12 (SDM Vol. 3A 4.5) */
#define WHY_MAX               128u
#define KERNEL_CPL            0u

static struct {
    uint32_t lock;
    uint32_t generation;        /* bumped at every start and stop */
    bool running;
    bool ever;                  /* a session ran during this run */
    struct vertigo_session params;
    uint64_t timer_ticks;       /* guest TSC ticks per timer sample */
    uint64_t logged;            /* samples logged by the current session */
} sess;

static struct sampler_symbols symbols;
static uint32_t symbols_lock;

/* What the NMI path costs, per CPU (written only by that CPU's exit path
 * and NMI handler), printed with the sampling statistics: TSC cycles from
 * the PMI being raised (software backend, timer samples) or the handler
 * being entered (hardware PMI) to the samples logged, and the part spent
 * writing them. One PMI in COST_EVERY is measured, so the measurement
 * (four TSC reads and its bookkeeping) stays off the other PMIs' path; the
 * averages are over the measured ones. In Bochs with clock sync=none one
 * cycle is one emulated instruction (`make bench-sample`). */
#define COST_EVERY 16u          /* a power of two */
static struct sample_cost {
    uint64_t raised_tsc;        /* vmx_sample_raise's TSC, 0 when none pending */
    uint64_t seen;              /* PMIs handled, measured or not */
    uint64_t pmis;              /* PMIs measured */
    uint64_t path_cycles;       /* raise (or handler entry) → samples logged */
    uint64_t record_cycles;     /* of which recording and logging the samples */
} sample_costs[MAX_CPUS];

/* ---- Locks (exit paths only, never NMI context) ------------------------- */

static void lock(uint32_t *l)
{
    while (__atomic_exchange_n(l, 1u, __ATOMIC_ACQUIRE))
        cpu_relax();
}

static void unlock(uint32_t *l)
{
    __atomic_store_n(l, 0u, __ATOMIC_RELEASE);
}

/* ---- The PMI: a physical-destination NMI to this CPU --------------------- */

/* The guest owns the xAPIC's ICR-high (its writes are forwarded one by one,
 * vmx/apic_guard.c): a guest between writing ICR-high and ICR-low must find
 * its destination still there. */
static void send_nmi(uint32_t dest)
{
    apic_send_ipi_shared(dest, APIC_ICR_NMI | APIC_ICR_LEVEL_ASSERT);
}

static struct sample_cost *cost_of(const struct percpu *pc)
{
    return &sample_costs[pc->cpu_index % MAX_CPUS];
}

/* True if the next PMI this CPU handles is one of the measured ones. */
static bool cost_measures_next(const struct sample_cost *cost)
{
    return (cost->seen & (COST_EVERY - 1)) == 0;
}

void vmx_sample_raise(struct vcpu *v, uint32_t mask)
{
    struct percpu *pc = this_cpu();
    struct sample_cost *cost = cost_of(pc);
    (void)v;
    if (cost_measures_next(cost) && !cost->raised_tsc)
        cost->raised_tsc = rdtsc();
    __atomic_fetch_or(&pc->sample_pending, mask, __ATOMIC_SEQ_CST);
    send_nmi(pc->apic_id);
}

/* Makes every other running VCPU exit soon, so it applies a new session. */
static void kick_others(const struct vcpu *self)
{
    const struct domain *d = self->domain;
    for (unsigned int i = 0; i < d->vcpu_count; i++) {
        const struct vcpu *o = &d->vcpus[i];
        struct percpu *pc = percpu_of(o->cpu);
        if (o == self || !__atomic_load_n(&pc->sample_vcpu, __ATOMIC_ACQUIRE))
            continue;
        __atomic_store_n(&pc->kick, 1u, __ATOMIC_SEQ_CST);
        this_cpu()->sample_stats.kicks++;
        send_nmi(pc->apic_id);
    }
}

/* ---- Writing samples (NMI context) --------------------------------------- */

/* The per-PMI steps below are forced inline into record_measured: their
 * calls cost more than their bodies on the per-sample path. */
#define SAMPLE_INLINE static inline __attribute__((always_inline))

SAMPLE_INLINE void emit_sample(struct percpu *pc, const struct log_sample *s)
{
    struct log_ring *ring = log_hv_ring();
    if (ring && log_emit_sample(ring, rdtsc(), s)) {
        pc->sample_stats.samples_logged++;
        __atomic_fetch_add(&sess.logged, 1, __ATOMIC_RELAXED);
    } else {
        pc->sample_stats.samples_dropped++;
    }
}

SAMPLE_INLINE void emit_per_event(struct percpu *pc, struct log_sample *s, uint32_t mask)
{
    for (; mask; mask &= mask - 1) {
        unsigned int bit = (unsigned int)__builtin_ctz(mask);
        s->event = (1u << bit) == SAMPLE_PENDING_TIMER ? SAMPLE_EVENT_TIMER : bit;
        emit_sample(pc, s);
    }
}

/* The guest state the VMCS holds: where the guest stood at the last exit
 * (the software backend stops the guest exactly at the overflow point). */
SAMPLE_INLINE void record_guest(struct percpu *pc, struct vcpu *v, uint32_t mask)
{
    struct log_sample s;        /* stack[] past depth is never read: not cleared */
    s.domain = v->domain->id;
    s.vcpu = v->id;
    s.has_cr3 = true;
    s.depth = 0;
    unsigned int cpl = vmx_guest_cpl();
    s.mode = cpl == KERNEL_CPL ? LOG_MODE_GUEST_KERNEL : LOG_MODE_GUEST_USER;
    s.rip = vmcs_read(VMCS_GUEST_RIP);
    s.cr3 = vmcs_read(VMCS_GUEST_CR3) & CR3_ADDR_MASK;
    if (v->pmu.stack_depth) {
        struct guest_virt_cursor cursor;
        guest_virt_cursor_init(&cursor, v);
        s.depth = guest_stack_walk(v->regs.rbp, cpl == KERNEL_CPL, v->pmu.stack_depth,
                                   guest_virt_cursor_read, &cursor, s.stack);
    }
    emit_per_event(pc, &s, mask);
}

/* A PMI that interrupted Vertigo for a context counting the hypervisor. */
static void record_hypervisor(struct percpu *pc, const struct vcpu *v,
                              const struct trap_frame *f, uint32_t mask)
{
    struct log_sample s = { .mode = LOG_MODE_HYPERVISOR, .rip = f->rip };
    if (v) {
        s.domain = v->domain->id;
        s.vcpu = v->id;
    }
    emit_per_event(pc, &s, mask);
}

/* Vertigo's share of this NMI: a kick, pending software overflows or
 * timer samples, hardware overflows. */
static bool take_kick(struct percpu *pc)
{
    return __atomic_exchange_n(&pc->kick, 0u, __ATOMIC_SEQ_CST) != 0;
}

/* Overflows to sample; *handled: a PMI with nothing to sample was Vertigo's. */
static uint32_t take_pending(struct percpu *pc, struct vcpu *v, bool *handled)
{
    uint32_t mask = __atomic_exchange_n(&pc->sample_pending, 0u, __ATOMIC_SEQ_CST);
    *handled = false;
    return v ? mask | vmx_pmu_nmi_overflows(v, handled) : mask;
}

/* Counts this PMI; if it is a measured one, returns where its path
 * started (when it was raised, else now) and 0 otherwise. */
static uint64_t cost_start(struct percpu *pc)
{
    struct sample_cost *cost = cost_of(pc);
    bool measured = cost_measures_next(cost);
    cost->seen++;
    if (!measured)
        return 0;
    uint64_t raised = cost->raised_tsc;
    cost->raised_tsc = 0;
    return raised ? raised : rdtsc();
}

static void cost_add(struct percpu *pc, uint64_t start_tsc, uint64_t record_tsc)
{
    struct sample_cost *cost = cost_of(pc);
    uint64_t now = rdtsc();
    cost->pmis++;
    cost->path_cycles += now - start_tsc;
    cost->record_cycles += now - record_tsc;
}

/* Writes the samples of mask, measuring the path if this PMI is measured. */
static void record_measured(struct percpu *pc, uint64_t start_tsc, struct vcpu *v,
                            const struct trap_frame *f, uint32_t mask)
{
    uint64_t record_tsc = start_tsc ? rdtsc() : 0;
    pc->sample_stats.pmis++;
    if (v && (!f || !vmx_pmu_root_pmi_is_hypervisor(v)))
        record_guest(pc, v, mask);      /* counters stop at VM exit */
    else
        record_hypervisor(pc, v, f, mask);
    if (start_tsc)
        cost_add(pc, start_tsc, record_tsc);
}

bool vmx_sample_nmi_exit(struct vcpu *v)
{
    struct percpu *pc = this_cpu();
    bool kicked = take_kick(pc);
    bool handled;
    uint32_t mask = take_pending(pc, v, &handled);
    if (!mask)
        return kicked || handled;
    record_measured(pc, cost_start(pc), v, NULL, mask);
    return true;
}

/* A guest NMI that arrived while Vertigo ran: queued for the entry path,
 * which cannot miss it (NMI-window exiting if it already passed). The
 * window request may race with the exit path's own update of the control
 * and be lost; the NMI then waits for the next exit, never disappears. */
static void reflect_from_root(struct percpu *pc, struct vcpu *v)
{
    __atomic_fetch_add(&v->vmx.root_nmis, 1u, __ATOMIC_SEQ_CST);
    pc->sample_stats.reflected_nmis++;
    if (v->vmx.launched)
        vmcs_write(VMCS_PROC_BASED_CONTROLS,
                   vmcs_read(VMCS_PROC_BASED_CONTROLS) | PROC_NMI_WINDOW_EXITING);
}

bool vmx_sample_nmi_root(const struct trap_frame *frame)
{
    struct percpu *pc = this_cpu();
    struct vcpu *v = pc->sample_vcpu;
    bool kicked = take_kick(pc);
    bool handled;
    uint32_t mask = take_pending(pc, v, &handled);
    if (mask) {
        record_measured(pc, cost_start(pc), v, frame, mask);
        return true;
    }
    if (kicked || handled)
        return true;
    if (v) {
        reflect_from_root(pc, v);
        return true;
    }
    pc->sample_stats.spurious_nmis++;
    return false;
}

/* ---- Sessions --------------------------------------------------------------- */

static void log_event_names(const struct vcpu *v)
{
    const struct pmu_ctx *ctx = &v->pmu.ctx;
    for (unsigned int i = 0; v->pmu.counting && i < ctx->count; i++) {
        const struct pmu_event *ev = &ctx->counters[i].event;
        struct log_event_desc ed = {
            .event = i, .code = ((uint64_t)ev->umask << 8) | ev->event_select,
            .name = ev->name, .len = (uint32_t)strnlen(ev->name, sizeof(ev->name)),
        };
        log_hv_event_desc(&ed);
    }
    if (v->pmu.timer_ticks) {
        static const char timer_name[] = "timer";
        struct log_event_desc ed = { .event = SAMPLE_EVENT_TIMER, .name = timer_name,
                                     .len = sizeof(timer_name) - 1 };
        log_hv_event_desc(&ed);
    }
}

static void apply_session(struct vcpu *v)
{
    uint32_t gen = __atomic_load_n(&sess.generation, __ATOMIC_ACQUIRE);
    if (v->pmu.sample_generation == gen)
        return;
    lock(&sess.lock);
    v->pmu.sample_generation = sess.generation;
    bool on = sess.running;
    bool timer = on && (sess.params.flags & VERTIGO_SESSION_TIMER);
    const struct vertigo_session *p = &sess.params;
    bool ok = vmx_pmu_sampling_apply(v, on && !timer ? p->events : NULL, p->period);
    v->pmu.stack_depth = on && ok ? p->stack_depth : 0;
    v->pmu.timer_ticks = timer ? sess.timer_ticks : 0;
    unlock(&sess.lock);
    if (v->pmu.timer_ticks)
        vmx_timer_request(v, VMX_TIMER_SAMPLE, v->pmu.timer_ticks);
    else
        vmx_timer_cancel(v, VMX_TIMER_SAMPLE);
    if (on && v->id == 0)
        log_event_names(v);
}

void vmx_sample_before_entry(struct vcpu *v)
{
    apply_session(v);
}

void vmx_sample_after_exit(struct vcpu *v)
{
    if (!v->pmu.timer_ticks || !vmx_timer_expired(v, VMX_TIMER_SAMPLE))
        return;
    vmx_timer_request(v, VMX_TIMER_SAMPLE, v->pmu.timer_ticks);
    vmx_sample_raise(v, SAMPLE_PENDING_TIMER);
}

static void describe(const struct vertigo_session *s, const char *who)
{
    if (s->flags & VERTIGO_SESSION_TIMER)
        printk("sample: session started by %s: timer at %u Hz of guest time, stack depth %u\n",
               who, s->timer_hz, s->stack_depth);
    else
        printk("sample: session started by %s: %s every %lu events, stack depth %u\n", who,
               s->events, s->period, s->stack_depth);
}

/* Validated session s (hypercall_session_check) → running, or why not. */
static int64_t session_start(const struct vertigo_session *s, const char *who)
{
    char why[WHY_MAX];
    bool timer = (s->flags & VERTIGO_SESSION_TIMER) != 0;
    if (timer && !platform_tsc_hz()) {
        printk("sample: session refused: the TSC rate is unknown\n");
        return -VERTIGO_EINVAL;
    }
    if (!timer && !vmx_pmu_sample_check(s->events, why, sizeof(why))) {
        printk("sample: session refused: %s\n", why);
        return -VERTIGO_EINVAL;
    }
    lock(&sess.lock);
    if (sess.running) {
        unlock(&sess.lock);
        return -VERTIGO_EBUSY;
    }
    sess.params = *s;
    sess.timer_ticks = timer ? platform_tsc_hz() / s->timer_hz : 0;
    sess.timer_ticks = sess.timer_ticks ? sess.timer_ticks : 1;
    sess.logged = 0;
    sess.running = sess.ever = true;
    __atomic_fetch_add(&sess.generation, 1u, __ATOMIC_RELEASE);
    unlock(&sess.lock);
    describe(s, who);
    return 0;
}

static int64_t session_stop(void)
{
    lock(&sess.lock);
    if (!sess.running) {
        unlock(&sess.lock);
        return -VERTIGO_EINVAL;
    }
    sess.running = false;
    __atomic_fetch_add(&sess.generation, 1u, __ATOMIC_RELEASE);
    uint64_t logged = __atomic_load_n(&sess.logged, __ATOMIC_RELAXED);
    unlock(&sess.lock);
    printk("sample: session stopped: %lu samples logged\n", logged);
    return (int64_t)(logged & (uint64_t)INT64_MAX);
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

static void start_from_cmdline(void)
{
    const char *cmdline = hv_cmdline();
    struct vertigo_session s = { .abi_version = VERTIGO_SESSION_ABI };
    uint64_t hz = 0, depth = 0;
    bool events = cmdline_get(cmdline, "sample.events", s.events, sizeof(s.events));
    if (read_u64(cmdline, "sample.hz", &hz))
        s.flags |= VERTIGO_SESSION_TIMER;
    if (!events && !(s.flags & VERTIGO_SESSION_TIMER))
        return;
    read_u64(cmdline, "sample.period", &s.period);
    read_u64(cmdline, "sample.depth", &depth);
    s.timer_hz = clamp32(hz);
    s.stack_depth = clamp32(depth);
    if (hypercall_session_check(&s)) {
        printk("sample: no session: bad sample.* options (sample.events=LIST with "
               "sample.period=1..2^48, or sample.hz=1..100000; sample.depth<=%u)\n",
               VERTIGO_STACK_MAX);
        return;
    }
    session_start(&s, "the command line");
}

void vmx_sample_vcpu_start(struct vcpu *v)
{
    static bool cmdline_read;
    struct percpu *pc = this_cpu();
    if (!cmdline_read) {
        cmdline_read = true;        /* VCPU 0 starts before any AP's VCPU */
        start_from_cmdline();
    }
    pc->apic_id = apic_id();
    vmx_timer_cancel(v, VMX_TIMER_SAMPLE);
    __atomic_store_n(&pc->sample_vcpu, (void *)v, __ATOMIC_RELEASE);
}

/* ---- Hypercalls --------------------------------------------------------------- */

static int64_t hc_start(void *ctx, const struct vertigo_session *s)
{
    struct vcpu *v = ctx;
    int64_t r = session_start(s, "the guest");
    if (r == 0)
        kick_others(v);
    return r;
}

static int64_t hc_stop(void *ctx)
{
    struct vcpu *v = ctx;
    int64_t r = session_stop();
    if (r >= 0)
        kick_others(v);
    return r;
}

static bool emit_symbols(void *ctx, const struct log_symbols *rec)
{
    (void)ctx;
    struct log_ring *ring = log_hv_ring();
    return ring && log_emit_symbols(ring, rdtsc(), rec);
}

static int64_t hc_symbols(void *ctx, const struct vertigo_symbols_chunk *c, const uint8_t *data)
{
    struct vcpu *v = ctx;
    uint32_t dropped = 0;
    lock(&symbols_lock);
    int64_t r = sampler_symbols_ship(&symbols, v->domain->id, c, data, emit_symbols, NULL,
                                     &dropped);
    unlock(&symbols_lock);
    if (dropped)
        printk("sample: %u symbol records dropped (log full or off)\n", dropped);
    return r;
}

const struct hypercall_sampling *vmx_sample_hypercalls(struct vcpu *v)
{
    static struct hypercall_sampling calls[MAX_CPUS];
    static uint8_t buffers[MAX_CPUS][VERTIGO_SYMBOLS_CHUNK_MAX];
    unsigned int cpu = v->cpu % MAX_CPUS;
    struct hypercall_sampling *c = &calls[cpu];
    c->start = hc_start;
    c->stop = hc_stop;
    c->symbols = hc_symbols;
    c->ctx = v;
    c->buffer = buffers[cpu];
    return c;
}

/* ---- End of the domain ------------------------------------------------------- */

void vmx_sample_report(const struct domain *d)
{
    if (!sess.ever)
        return;
    /* The other CPUs keep their contexts (no new generation): their PMU
     * totals are reported next, and the run ends with this domain. */
    if (sess.running) {
        lock(&sess.lock);
        sess.running = false;
        unlock(&sess.lock);
        printk("sample: session stopped at the end of the domain: %lu samples logged\n",
               __atomic_load_n(&sess.logged, __ATOMIC_RELAXED));
    }
    for (unsigned int i = 0; i < d->vcpu_count; i++) {
        const struct percpu *pc = percpu_of(d->vcpus[i].cpu);
        const struct sampler_stats *st = &pc->sample_stats;
        const struct sample_cost *cost = cost_of(pc);
        uint64_t n = cost->pmis ? cost->pmis : 1;
        printk("sample: cpu %u: %lu PMIs, %lu samples logged, %lu dropped, %lu spurious NMIs, "
               "%lu guest NMIs reflected from root, %lu kicks, NMI path avg %lu cycles per "
               "PMI (%lu recording; 1 PMI in %u measured)\n", d->vcpus[i].cpu, st->pmis,
               st->samples_logged, st->samples_dropped, st->spurious_nmis, st->reflected_nmis,
               st->kicks, cost->path_cycles / n, cost->record_cycles / n, COST_EVERY);
    }
}

/* ---- Hypervisor samples found by single-stepping (vmx/vmx_pmu_step.c) ---- */

extern char __image_start[], __image_end[];

/* Vertigo's own memory, for walking its frame-pointer chain: only inside
 * its image (stacks are in .bss), read directly. */
static bool hv_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    (void)ctx;
    uint64_t lo = (uint64_t)__image_start, hi = (uint64_t)__image_end;
    if (addr < lo || addr >= hi || len > hi - addr)
        return false;
    memcpy(buf, (const void *)addr, len);
    return true;
}

void vmx_sample_hypervisor_step(uint64_t rip, uint64_t rbp, uint32_t mask)
{
    struct percpu *pc = this_cpu();
    struct vcpu *v = pc->sample_vcpu;
    if (!v)
        return;
    struct log_sample s = { .mode = LOG_MODE_HYPERVISOR, .rip = rip,
                            .domain = v->domain->id, .vcpu = v->id };
    if (v->pmu.stack_depth && rbp)
        s.depth = guest_stack_walk(rbp, false, v->pmu.stack_depth, hv_read, NULL, s.stack);
    pc->sample_stats.pmis++;
    emit_per_event(pc, &s, mask);
}
