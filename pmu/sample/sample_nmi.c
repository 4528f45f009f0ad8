/* Vertigo's NMIs and the samples they write (see pmu/sample/sample_nmi.h). */
#include "pmu/sample/sample_nmi.h"

#include "pmu/pmu_arch.h"
#include "pmu/run/pmu_cpu.h"
#include "pmu/run/pmu_pmi.h"
#include "pmu/run/pmu_run.h"
#include "pmu/sample/sample_freq_vcpu.h"
#include "pmu/sample/stack_cost.h"
#include "lib/console.h"
#include "lib/format.h"
#include "vmm/log/log_emit.h"
#include "vmm/log/log_hv.h"

#define KERNEL_CPL 0u

static uint64_t logged;         /* by the current session, all CPUs */
static uint64_t scope_cr3;      /* sample_scope_set: page-table root, 0: none */
static uint64_t out_of_scope;   /* PMIs of other page tables since then */

/* Bits of a guest CR3 (pmu_arch_guest_cr3: bits 51:12) that name the
 * process: page-table isolation's user half sets bit 12. */
#define SCOPE_CR3_MASK (~0xfffull & ~(1ull << 12))

void sample_scope_set(uint64_t cr3)
{
    __atomic_store_n(&out_of_scope, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&scope_cr3, cr3 & SCOPE_CR3_MASK, __ATOMIC_RELEASE);
}

uint64_t sample_out_of_scope(void)
{
    return __atomic_load_n(&out_of_scope, __ATOMIC_RELAXED);
}

/* Whether a PMI of this CPU's VCPU v (NULL: none) may write samples; if
 * not, it is counted. */
static bool in_scope(const struct vcpu *v)
{
    uint64_t scope = __atomic_load_n(&scope_cr3, __ATOMIC_ACQUIRE);
    if (!scope || (v && (pmu_arch_guest_cr3(v) & SCOPE_CR3_MASK) == scope))
        return true;
    __atomic_fetch_add(&out_of_scope, 1, __ATOMIC_RELAXED);
    return false;
}

uint64_t sample_logged(void)
{
    return __atomic_load_n(&logged, __ATOMIC_RELAXED);
}

void sample_logged_reset(void)
{
    __atomic_store_n(&logged, 0, __ATOMIC_RELAXED);
}

/* ---- Writing samples (NMI context) --------------------------------------- */

/* The per-PMI steps below are forced inline into record_measured: their
 * calls cost more than their bodies on the per-sample path. */
#define SAMPLE_INLINE static inline __attribute__((always_inline))

SAMPLE_INLINE void emit_sample(struct pmu_cpu *c, const struct log_sample *s)
{
    struct log_ring *ring = log_hv_ring();
    if (ring && log_emit_sample(ring, pmu_arch_tsc(), s)) {
        c->stats.samples_logged++;
        __atomic_fetch_add(&logged, 1, __ATOMIC_RELAXED);
    } else {
        c->stats.samples_dropped++;
    }
}

/* One sample per event of mask; in frequency mode each after the VCPU's
 * period record if its period changed (v may be NULL: no VCPU, no period). */
SAMPLE_INLINE void emit_per_event(struct pmu_cpu *c, struct vcpu *v, struct log_sample *s,
                                  uint32_t mask)
{
    for (; mask; mask &= mask - 1) {
        unsigned int bit = (unsigned int)__builtin_ctz(mask);
        s->event = (1u << bit) == PMU_PENDING_TIMER ? SAMPLE_EVENT_TIMER
                 : v ? v->pmu.ctx.log_ids[bit] : bit;   /* the run-wide id */
        if (v && v->pmu.sample.freq)
            sample_freq_log_period(v, bit);
        emit_sample(c, s);
    }
}

/* The guest's call stack into s; on a measured PMI its cost is counted. */
SAMPLE_INLINE void record_guest_stack(struct pmu_cpu *c, struct vcpu *v, struct log_sample *s,
                                      bool kernel, bool measured)
{
    uint64_t start = measured ? pmu_arch_tsc() : 0;
    s->depth = pmu_arch_guest_stack(v, s->rip, s->cr3, v->regs.rbp, kernel, v->pmu.sample.stack_depth,
                                    s->stack);
    if (measured)
        stack_cost_add(&c->cost.stack[kernel], s->depth, pmu_arch_tsc() - start);
}

/* With a user-mode sample of a session copying user stacks: the user
 * registers and stack bytes, written before the sample records they
 * belong to (include/vertigo/log_format.h, LOG_REC_USER_STACK). */
static void record_user_stack(struct pmu_cpu *c, struct vcpu *v)
{
    static uint8_t bytes[MAX_CPUS][LOG_USER_STACK_MAX];
    struct log_user_stack us = { .domain = v->domain->id, .vcpu = v->id };
    struct log_ring *ring = log_hv_ring();
    pmu_arch_guest_user_stack(v, &us, bytes[v->cpu % MAX_CPUS], LOG_USER_STACK_MAX);
    if (ring && log_emit_user_stack(ring, pmu_arch_tsc(), &us))
        c->stats.user_stacks++;
    else
        c->stats.samples_dropped++;
}

/* The guest state of the last exit: where the guest stood (the software
 * backend stops the guest exactly at the overflow point). */
SAMPLE_INLINE void record_guest(struct pmu_cpu *c, struct vcpu *v, uint32_t mask, bool measured)
{
    struct log_sample s;        /* stack[] past depth is never read: not cleared */
    s.domain = v->domain->id;
    s.vcpu = v->id;
    s.has_cr3 = true;
    s.depth = 0;
    unsigned int cpl = pmu_arch_guest_cpl(v);
    s.mode = cpl == KERNEL_CPL ? LOG_MODE_GUEST_KERNEL : LOG_MODE_GUEST_USER;
    s.rip = pmu_arch_guest_rip(v);
    s.cr3 = pmu_arch_guest_cr3(v);
    if (v->pmu.sample.stack_depth)
        record_guest_stack(c, v, &s, cpl == KERNEL_CPL, measured);
    if (v->pmu.sample.user_stack && cpl != KERNEL_CPL)
        record_user_stack(c, v);
    emit_per_event(c, v, &s, mask);
}

/* A hypervisor sample taken while Vertigo handled an exit of v: after
 * Vertigo's own frames, the guest's context at that exit, so the sample
 * stands on the guest stack it served. Its CR3 is the guest's; its stack
 * goes on with LOG_EXIT_CONTEXT_MARK, the guest's RIP at the exit and the
 * guest's callers (kernel frames, then the user frames of the process the
 * kernel served), as many as fit (include/vertigo/log_format.h). */
static void add_exit_context(struct pmu_cpu *c, struct vcpu *v, struct log_sample *s)
{
    if (!v->pmu.sample.stack_depth || s->depth + 2 > LOG_STACK_MAX)
        return;
    struct log_sample g;
    unsigned int cpl = pmu_arch_guest_cpl(v);
    g.rip = pmu_arch_guest_rip(v);
    g.cr3 = pmu_arch_guest_cr3(v);
    record_guest_stack(c, v, &g, cpl == KERNEL_CPL, false);
    s->has_cr3 = true;
    s->cr3 = g.cr3;
    s->stack[s->depth++] = LOG_EXIT_CONTEXT_MARK;
    s->stack[s->depth++] = g.rip;
    for (uint32_t i = 0; i < g.depth && s->depth < LOG_STACK_MAX; i++)
        s->stack[s->depth++] = g.stack[i];
}

/* A PMI that interrupted Vertigo for a context counting the hypervisor. */
static void record_hypervisor(struct pmu_cpu *c, struct vcpu *v,
                              const struct trap_frame *f, uint32_t mask)
{
    struct log_sample s = { .mode = LOG_MODE_HYPERVISOR, .rip = f->rip };
    if (v) {
        s.domain = v->domain->id;
        s.vcpu = v->id;
        add_exit_context(c, v, &s);
    }
    emit_per_event(c, v, &s, mask);
}

/* ---- The cost of the NMI path, on one PMI in sample_cost_every ---------- */

uint32_t sample_cost_every = SAMPLE_COST_EVERY;

/* Counts this PMI; if it is a measured one, returns where its path
 * started (when it was raised, else now) and 0 otherwise. */
static uint64_t cost_start(struct pmu_cpu *c)
{
    struct sample_cost *cost = &c->cost;
    bool measured = sample_cost_measures_next(cost);
    cost->seen++;
    if (!measured)
        return 0;
    uint64_t raised = cost->raised_tsc;
    cost->raised_tsc = 0;
    return raised ? raised : pmu_arch_tsc();
}

static void cost_add(struct pmu_cpu *c, uint64_t start_tsc, uint64_t record_tsc)
{
    struct sample_cost *cost = &c->cost;
    uint64_t now = pmu_arch_tsc();
    cost->pmis++;
    cost->path_cycles += now - start_tsc;
    cost->record_cycles += now - record_tsc;
}

/* Writes the samples of mask, measuring the path if this PMI is measured. */
static void record_measured(struct pmu_cpu *c, uint64_t start_tsc, struct vcpu *v,
                            const struct trap_frame *f, uint32_t mask)
{
    uint64_t record_tsc = start_tsc ? pmu_arch_tsc() : 0;
    c->stats.pmis++;
    if (v && v->pmu.sample.freq)
        sample_freq_overflows(v, mask);     /* every overflow, sampled or out of scope */
    if (!in_scope(v))
        return;
    if (v && (!f || !pmu_run_root_pmi_is_hypervisor(v)))
        record_guest(c, v, mask, start_tsc != 0);       /* counters stop at VM exit */
    else
        record_hypervisor(c, v, f, mask);
    if (start_tsc)
        cost_add(c, start_tsc, record_tsc);
}

/* ---- Samples found at a VM exit ------------------------------------------ */

/* Out of line: a sample is rare beside the exits that call in, and
 * make bench-exit counts the recording apart from the exit by its name. */
__attribute__((noinline)) void sample_record_at_exit(struct vcpu *v, uint32_t mask)
{
    struct pmu_cpu *c = pmu_cpu_of(v->cpu);
    record_measured(c, cost_start(c), v, NULL, mask);
}

/* ---- Whose NMI is it (pmu/run/pmu_pmi.h) ------------------------------------- */

bool sample_nmi_exit(struct vcpu *v)
{
    struct pmu_cpu *c = pmu_cpu_of(v->cpu);
    bool ours = pmu_pmi_receive_exit(c);
    if (ours)
        pmu_pmi_take_kick(c);
    bool pmi;
    uint32_t mask = pmu_pmi_take(c, v, ours, &pmi);
    if (mask)
        record_measured(c, cost_start(c), v, NULL, mask);
    return ours || pmi;
}

/* Where the hardware PMIs noted in root mode interrupted Vertigo (per CPU;
 * the overflows are taken before the next entry). */
static uint64_t noted_rip[MAX_CPUS];

bool sample_nmi_root(const struct trap_frame *frame)
{
    struct pmu_cpu *c = pmu_this_cpu();
    struct vcpu *v = c->vcpu;
    bool ours = pmu_pmi_receive(c);
    if (ours)
        pmu_pmi_take_kick(c);
    uint32_t mask = ours ? __atomic_exchange_n(&c->pending, 0u, __ATOMIC_SEQ_CST) : 0;
    bool pmi = pmu_pmi_hw_note(c, v);
    if (pmi)
        noted_rip[(unsigned int)(c - pmu_cpus) % MAX_CPUS] = frame->rip;
    if (mask)
        record_measured(c, cost_start(c), v, frame, mask);
    if (ours || pmi)
        return true;
    if (v) {
        /* A guest NMI that arrived while Vertigo ran: the entry path
         * delivers it. */
        pmu_arch_queue_guest_nmi(v);
        c->stats.reflected_nmis++;
        return true;
    }
    c->stats.spurious_nmis++;
    return false;
}

void sample_nmi_before_entry(struct vcpu *v)
{
    struct pmu_cpu *c = pmu_cpu_of(v->cpu);
    pmu_pmi_entry(c);
    uint32_t mask = pmu_pmi_hw_take_noted(c, v);
    if (mask) {
        struct trap_frame f = { .rip = noted_rip[v->cpu % MAX_CPUS] };
        record_measured(c, cost_start(c), v, &f, mask);
    }
}

/* "sample: cpu N: MODE call stacks by depth: D:W/C ..." for each depth
 * walked: W walks averaging C cycles (the last depth counts deeper ones). */
static void report_by_depth(unsigned int cpu, const char *mode, const struct stack_cost *sc)
{
    char line[STACK_COST_DEPTHS * 28];
    size_t n = 0;
    for (unsigned int d = 0; d < STACK_COST_DEPTHS && n < sizeof(line); d++)
        if (sc->walks_at[d])
            n += (size_t)fmt_snprintf(line + n, sizeof(line) - n, " %u:%lu/%lu", d,
                                      sc->walks_at[d], sc->cycles_at[d] / sc->walks_at[d]);
    printk("sample: cpu %u: %s call stacks by depth (walks/avg cycles):%s\n", cpu, mode, line);
}

/* "sample: cpu N: MODE call stacks: ..." for the measured PMIs' walks,
 * then how often the walks' new stack pages were in the translation
 * cache. */
static void report_stack_cost(unsigned int cpu)
{
    static const char *const mode[2] = { "user", "kernel" };
    const struct sample_cost *cost = &pmu_cpu_of(cpu)->cost;
    for (unsigned int m = SAMPLE_COST_USER; m <= SAMPLE_COST_KERNEL; m++) {
        const struct stack_cost *sc = &cost->stack[m];
        int64_t fixed, tenths;
        if (!sc->walks)
            continue;
        printk("sample: cpu %u: %s call stacks: %lu walks measured, %lu frames, avg %lu "
               "cycles per walk, %lu per frame\n", cpu, mode[m], sc->walks, sc->frames,
               sc->cycles / sc->walks, sc->frames ? sc->cycles / sc->frames : 0);
        report_by_depth(cpu, mode[m], sc);
        if (!stack_cost_fit(sc, &fixed, &tenths))
            continue;
        uint64_t per_frame = (uint64_t)(tenths < 0 ? -tenths : tenths);
        printk("sample: cpu %u: %s call stacks: least squares over the walks' depths: "
               "%ld cycles per walk %s %lu.%lu per frame\n", cpu, mode[m], fixed,
               tenths < 0 ? "-" : "+", per_frame / 10, per_frame % 10);
    }
    uint64_t hits, misses;
    pmu_arch_guest_stack_cache(cpu, &hits, &misses);
    if (hits + misses)
        printk("sample: cpu %u: stack page translations: %lu cached, %lu walked\n", cpu, hits,
               misses);
}

void sample_nmi_report(unsigned int cpu)
{
    const struct pmu_nmi_stats *n = pmu_pmi_stats(cpu);
    printk("nmi: cpu %u: Vertigo's NMIs %lu sent, %lu taken, %lu reasons merged into one in "
           "flight; %lu exit NMIs the guest's though a PMI was raised first; %lu hardware "
           "PMIs in root taken before the entry\n", cpu, n->sent, n->received, n->merged,
           n->guest_before_raise, n->hw_deferred);
    report_stack_cost(cpu);
}

/* ---- Hypervisor samples found by single-stepping (pmu/soft/pmu_step.c) -------- */

void sample_hypervisor_step(uint64_t rip, uint64_t rbp, uint32_t mask)
{
    struct pmu_cpu *c = pmu_this_cpu();
    struct vcpu *v = c->vcpu;
    if (!v)
        return;
    struct log_sample s = { .mode = LOG_MODE_HYPERVISOR, .rip = rip,
                            .domain = v->domain->id, .vcpu = v->id };
    c->stats.pmis++;
    if (v->pmu.sample.freq)
        sample_freq_overflows(v, mask);
    if (!in_scope(v))
        return;
    if (v->pmu.sample.stack_depth && rbp)
        s.depth = pmu_arch_hypervisor_stack(rbp, v->pmu.sample.stack_depth, s.stack);
    add_exit_context(c, v, &s);
    emit_per_event(c, v, &s, mask);
}
