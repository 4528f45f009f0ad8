/* Time-sharing a CPU between VCPUs (see vmx/vmx_sched.h). Everything here
 * runs on the CPU whose list it touches: a CPU's list, its pending vectors
 * and its flag are never shared with another CPU, except that a domain's
 * end marks its VCPUs ended on every CPU and raises their flags. */
#include "vmx/vmx_sched.h"

#include "lib/cpu.h"
#include "pmu/pmu_loop.h"
#include "lib/console.h"
#include "vmm/console/console_drain.h"
#include "vmm/domain/irq_pending.h"
#include "vmm/domain/smp_guest.h"
#include "vmm/log/log_hv.h"
#include "lib/msr.h"
#include "vmm/panic.h"
#include "vmm/domain/sched.h"
#include "vmx/exit.h"
#include "vmx/exit_vhw.h"
#include "vmx/mode_trap.h"
#include "vmx/vcpu_debugregs.h"
#include "vmx/vcpu_spec.h"
#include "vmx/vcpu_fpu.h"
#include "vmx/vcpu_restart.h"
#include "vmx/vmx_domain.h"
#include "vmx/vmx_ops.h"
#include "vmx/vmx_timer.h"

static struct sched_cpu cpus[MAX_CPUS];
static struct irq_pending for_domain0[MAX_CPUS];   /* vectors taken for domain 0 */
static struct vcpu *domain0_vcpu[MAX_CPUS];
/* Per CPU: anything to do after an exit (VCPUs share the CPU, vectors
 * wait, a domain ended). False on a CPU with one VCPU: the fast path. */
static bool work[MAX_CPUS];
/* Per CPU: exit at once and look at the VCPUs (set by any CPU: an
 * interrupt posted to one of them, a domain's end; cleared by the owner). */
static uint32_t exit_wanted[MAX_CPUS];
static uint64_t dropped_vectors;        /* below FIRST_EXTERNAL_VECTOR, never given */

#define FIRST_EXTERNAL_VECTOR 32        /* 0-31 are exceptions (SDM Vol. 3A 6.3) */

static const uint32_t syscall_msrs[6] = {
    MSR_IA32_STAR, MSR_IA32_LSTAR, MSR_IA32_CSTAR, MSR_IA32_FMASK,
    MSR_IA32_KERNEL_GS_BASE, MSR_IA32_TSC_AUX,
};

static void set_control(uint32_t field, uint64_t bit, bool on)
{
    uint64_t value = vmcs_read(field);
    uint64_t want = on ? value | bit : value & ~bit;
    if (want != value)
        vmcs_write(field, want);
}

static void update_work(unsigned int cpu)
{
    work[cpu] = sched_shared(&cpus[cpu]) || irq_pending_any(&for_domain0[cpu]);
}

/* update_work for v, the VCPU this CPU runs next, with what a CPU left alone
 * must not keep. A deadline stays until withdrawn (vmx/vmx_timer.h) and
 * with work false no exit looks at it again, so the slice and wake-up
 * deadlines go with the flag: one left armed and past makes every entry
 * exit at once, for ever. The flag is read across CPUs: a domain ending on
 * another CPU marks its VCPUs ended, then raises this flag, then kicks; if
 * that lands between vmx_sched_after_exit's look at the list and here,
 * this store would clear its flag, so after a clear the state is looked
 * at again, and the flag raised again if this VCPU's domain has ended. */
static void update_work_for(struct vcpu *v)
{
    unsigned int cpu = v->cpu;
    bool shared = sched_shared(&cpus[cpu]);
    if (!shared) {
        vmx_timer_cancel(v, VMX_TIMER_SLICE);
        vmx_timer_cancel(v, VMX_TIMER_WAKE);
    }
    bool busy = shared || irq_pending_any(&for_domain0[cpu]);
    __atomic_store_n(&work[cpu], busy, __ATOMIC_RELEASE);   /* raising it loses nothing */
    if (busy)
        return;
    /* A clear, then a load of the state: a load may pass an earlier store
     * to another location (SDM Vol. 3A, "Loads May Be Reordered with
     * Earlier Stores to Different Locations"), so a full fence between. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (sched_state_of(&cpus[cpu], v) == SCHED_ENDED)
        __atomic_store_n(&work[cpu], true, __ATOMIC_SEQ_CST);
}

bool vmx_sched_add(struct vcpu *v)
{
    if (!sched_add(&cpus[v->cpu], v))
        return false;
    if (v->domain->id == 0)
        domain0_vcpu[v->cpu] = v;
    if (v->waits_for_sipi)
        sched_set_state(&cpus[v->cpu], v, SCHED_HALTED);
    update_work(v->cpu);
    return true;
}

void vmx_sched_started(struct vcpu *v)
{
    int i = sched_index(&cpus[v->cpu], v);
    if (i >= 0)
        cpus[v->cpu].current = (unsigned int)i;
    sched_set_state(&cpus[v->cpu], v, SCHED_RUNNABLE);
}

/* ---- APs (vmm/domain/smp_guest.h) --------------------------------------------- */

/* Runnable unless it is an AP whose SIPI has not come. */
static void wake(struct sched_cpu *s, struct vcpu *v)
{
    if (!v->waits_for_sipi)
        sched_set_state(s, v, SCHED_RUNNABLE);
}

/* The APs of this CPU (domain 0's and other domains') that wait for their
 * SIPI while other VCPUs run here: runnable once it came (their first
 * entry from vcpu_ap_start_state). */
static void take_sipis(struct sched_cpu *s)
{
    for (unsigned int i = 0; i < s->count; i++)
        if (s->state[i] != SCHED_ENDED && vcpu_sipi_take(s->vcpus[i]))
            sched_set_state(s, s->vcpus[i], SCHED_RUNNABLE);    /* never over an end */
}

static const struct linux_boot_state *start_state(const struct vcpu *v)
{
    return v->id ? vcpu_ap_start_state(v) : v->domain->vmx.boot_state;
}

void vmx_sched_set_slice(uint64_t ticks)
{
    for (unsigned int i = 0; i < MAX_CPUS; i++)
        cpus[i].slice_ticks = ticks;
}

/* ---- Domain 0's interrupts ---------------------------------------------- */

void vmx_sched_forward_interrupt(struct vcpu *v)
{
    uint32_t info = (uint32_t)vmcs_read(VMCS_EXIT_INTR_INFO);
    if (!(info & INTR_INFO_VALID))
        return;             /* not acknowledged: it stays pending in the APIC */
    vmx_reinject_vectored_event();      /* the event it interrupted in v's guest */
    uint8_t vector = (uint8_t)(info & INTR_INFO_VECTOR_MASK);
    if (vector < FIRST_EXTERNAL_VECTOR) {
        /* The firmware's 8259 mapping (IRQ 0 at vector 8) before domain 0
         * set the PIC up: as that vector it would be an exception in
         * domain 0, and domain 0's PIC set-up clears it anyway. */
        if (!dropped_vectors++)
            printk("sched: cpu %u: vector %u acknowledged while domain %u ran is an "
                   "exception vector (a PIC not yet set up): not given to domain 0\n",
                   v->cpu, vector, v->domain->id);
        return;
    }
    if (!domain0_vcpu[v->cpu])
        return;         /* no domain 0 on this CPU: the machine's interrupt goes nowhere */
    irq_pending_add(&for_domain0[v->cpu], vector);
    wake(&cpus[v->cpu], domain0_vcpu[v->cpu]);
    work[v->cpu] = true;
}

void vmx_sched_give_nmis(struct vcpu *v, uint32_t count)
{
    struct vcpu *d0 = domain0_vcpu[v->cpu];
    if (!d0)
        return;
    d0->vmx.pending_nmis += count;
    wake(&cpus[v->cpu], d0);
}

/* ---- Interrupts between a domain's VCPUs ------------------------------------- */

static void want_exit(unsigned int cpu)
{
    __atomic_store_n(&exit_wanted[cpu % MAX_CPUS], 1u, __ATOMIC_SEQ_CST);
    if (cpu != smp_cpu_index())
        pmu_kick_cpu(cpu);
}

void vmx_sched_ipi_posted(const struct vcpu *t)
{
    want_exit(t->cpu);
}

bool vmx_sched_take_exit_wanted(unsigned int cpu)
{
    uint32_t *flag = &exit_wanted[cpu % MAX_CPUS];
    if (!__atomic_load_n(flag, __ATOMIC_SEQ_CST))
        return false;       /* the usual case: one load */
    __atomic_store_n(flag, 0u, __ATOMIC_SEQ_CST);
    return true;
}

/* ---- Timed sleep ------------------------------------------------------------ */

void vmx_sched_sleep(struct vcpu *v, uint64_t wake_tsc)
{
    v->vmx.asleep = true;
    v->vmx.wake_tsc = wake_tsc;
    work[v->cpu] = true;
}

/* Every VCPU of the CPU whose wake-up time has come, or which another
 * VCPU of its domain sent an interrupt (vhw_ipi_posted), is runnable again. */
static void wake_sleepers(struct sched_cpu *s, uint64_t now)
{
    for (unsigned int i = 0; i < s->count; i++) {
        struct vcpu *w = s->vcpus[i];
        if (!w->vmx.asleep || (w->vmx.wake_tsc > now && !vhw_ipi_posted(w)))
            continue;
        w->vmx.asleep = false;
        sched_set_state(s, w, SCHED_RUNNABLE);  /* halted or runnable; never over an end */
    }
}

/* The running VCPU exits when the first other sleeper of its CPU wakes,
 * so a halted CPU does not sleep past it. */
static void arm_wake(struct vcpu *v, const struct sched_cpu *s)
{
    uint64_t first = UINT64_MAX;
    for (unsigned int i = 0; i < s->count; i++) {
        const struct vcpu *w = s->vcpus[i];
        if (w != v && w->vmx.asleep && s->state[i] != SCHED_ENDED && w->vmx.wake_tsc < first)
            first = w->vmx.wake_tsc;
    }
    if (first == UINT64_MAX) {
        vmx_timer_cancel(v, VMX_TIMER_WAKE);
        return;
    }
    uint64_t now = rdtsc();
    vmx_timer_request(v, VMX_TIMER_WAKE, first > now ? first - now : 1);
}

/* One waiting vector into domain 0 if it can take it now, else an
 * interrupt-window exit for it; another window for the next one. */
static void inject_waiting(struct vcpu *v, struct irq_pending *p)
{
    bool busy = v->vmx.traps.pending_intr ||
                (vmcs_read(VMCS_ENTRY_INTR_INFO) & INTR_INFO_VALID) ||
                !vmx_guest_takes_interrupts();
    if (!busy) {
        int vector = irq_pending_take(p);
        vmcs_write(VMCS_ENTRY_INTR_INFO, INTR_INFO(vector, INTR_TYPE_EXTERNAL));
        /* Delivery wakes a halted guest (SDM Vol. 3C 27.6.4); Bochs needs
         * the entry to say so (vmx/mode_trap.c). */
        if (vmcs_read(VMCS_GUEST_ACTIVITY_STATE) == VMX_ACTIVITY_HLT)
            vmcs_write(VMCS_GUEST_ACTIVITY_STATE, VMX_ACTIVITY_ACTIVE);
    }
    if (irq_pending_any(p))
        set_control(VMCS_PROC_BASED_CONTROLS, PROC_INTR_WINDOW_EXITING, true);
}

void vmx_sched_inject(struct vcpu *v)
{
    unsigned int cpu = v->cpu;
    if (work[cpu] && v->domain->id == 0 && irq_pending_any(&for_domain0[cpu]))
        inject_waiting(v, &for_domain0[cpu]);
}

void vmx_sched_before_entry(struct vcpu *v)
{
    unsigned int cpu = v->cpu;
    if (v->domain->id != 0) {
        /* The machine's interrupts (domain 0's) must never reach another
         * domain's IDT, whatever the mode traps did to these controls,
         * also when that domain runs alone on its CPU. */
        set_control(VMCS_PIN_BASED_CONTROLS, PIN_EXTERNAL_INTR_EXITING, true);
        set_control(VMCS_EXIT_CONTROLS, EXIT_ACK_INTR_ON_EXIT, true);
    }
    if (!work[cpu])
        return;
    if (v->domain->id == 0 && sched_shared(&cpus[cpu]))
        set_control(VMCS_PROC_BASED_CONTROLS, PROC_HLT_EXITING, true);
    if (sched_shared(&cpus[cpu]) && v->vmx.timer.deadline[VMX_TIMER_SLICE] == VMX_TIMER_NONE)
        vmx_timer_request(v, VMX_TIMER_SLICE, cpus[cpu].slice_ticks);
    arm_wake(v, &cpus[cpu]);
    update_work_for(v);
}

/* ---- The switch --------------------------------------------------------- */

static void save_syscall_msrs(struct vcpu *from)
{
    for (unsigned int i = 0; i < 6; i++)
        from->vmx.syscall_msrs[i] = rdmsr(syscall_msrs[i]);
}

/* The CPU holds from's values: only the ones to's differ in are written. */
static void load_syscall_msrs(const struct vcpu *from, const struct vcpu *to)
{
    for (unsigned int i = 0; i < 6; i++)
        if (to->vmx.syscall_msrs[i] != from->vmx.syscall_msrs[i])
            wrmsr(syscall_msrs[i], to->vmx.syscall_msrs[i]);
}

/* CR2 is guest state no VMCS field holds (the guest-register state has
 * CR0, CR3, CR4 and DR7, not CR2: SDM Vol. 3C, "Guest Register State"),
 * so it stays in the CPU across exits: a page fault's address, set by the
 * fault or by Vertigo re-injecting it, must survive the other VCPUs' runs
 * until the guest's handler reads it. DR0-DR3 and DR6 are in the same
 * case (vmx/vcpu_debugregs.h). */
static void switch_cr2(struct vcpu *from, struct vcpu *to)
{
    from->vmx.cr2 = read_cr2();
    if (to->vmx.cr2 != from->vmx.cr2)
        write_cr2(to->vmx.cr2);
}

static void switch_vcpu(struct sched_cpu *s, struct vcpu *from, struct vcpu *to)
{
    uint64_t start = rdtsc();
    vmx_timer_cancel(from, VMX_TIMER_SLICE);
    pmu_vcpu_switch_out(from);
    exit_stats_switched_out(&from->stats);
    save_syscall_msrs(from);
    switch_cr2(from, to);
    vcpu_debugregs_switch(from, to);
    if (!vcpu_fpu_switch(from, to))
        panic("sched: no heap page for a VCPU's register state");
    if (!to->vmx.vmcs_pa) {
        vmx_vcpu_start(to, start_state(to));     /* its first entry */
    } else {
        vmptrld(to->vmx.vmcs_pa);
        pmu_vcpu_switch_in(to);
    }
    load_syscall_msrs(from, to);
    vcpu_spec_switch(from, to);         /* last: nearest the entry */
    /* A slice only while the CPU is shared: an expired deadline nobody
     * cancels would make every entry exit at once. */
    if (sched_shared(s))
        vmx_timer_request(to, VMX_TIMER_SLICE, s->slice_ticks);
    to->stats.switches_in++;
    to->stats.switch_cycles += rdtsc() - start;
}

/* ---- A domain's restart ------------------------------------------------- */

void vmx_vcpu_restart(struct vcpu *v)
{
    v->vmx.restart = true;
    work[v->cpu] = true;
}

/* The syscall MSRs the CPU holds for v get a VCPU's that never ran (0). */
static void clear_syscall_msrs(struct vcpu *v)
{
    for (unsigned int i = 0; i < 6; i++) {
        if (rdmsr(syscall_msrs[i]))
            wrmsr(syscall_msrs[i], 0);
        v->vmx.syscall_msrs[i] = 0;
    }
}

static void restart(struct sched_cpu *s, struct vcpu *v)
{
    clear_syscall_msrs(v);
    vcpu_restart(v);
    sched_set_state(s, v, SCHED_RUNNABLE);
    update_work_for(v);
}

/* Domain 0 resumed in its HLT with nothing to deliver is idle. */
static bool domain0_idle(const struct vcpu *v)
{
    return v->domain->id == 0 && !irq_pending_any(&for_domain0[v->cpu]) &&
           !v->vmx.traps.pending_intr &&
           vmcs_read(VMCS_GUEST_ACTIVITY_STATE) == VMX_ACTIVITY_HLT;
}

struct vcpu *vmx_sched_after_exit(struct vcpu *v)
{
    unsigned int cpu = v->cpu;
    struct sched_cpu *s = &cpus[cpu];
    if (!work[cpu])
        return v;       /* one VCPU alive here: it takes its posted IPIs itself */
    __atomic_store_n(&exit_wanted[cpu], 0u, __ATOMIC_SEQ_CST);   /* looked at below */
    if (sched_state_of(s, v) == SCHED_ENDED)
        vmx_sched_domain_ended(v->domain);      /* ended on another CPU */
    if (v->vmx.restart)
        restart(s, v);
    if (!sched_shared(s)) {
        vmx_timer_cancel(v, VMX_TIMER_SLICE);
        vmx_timer_cancel(v, VMX_TIMER_WAKE);    /* no sleeper left beside it */
        return v;
    }
    wake_sleepers(s, rdtsc());
    take_sipis(s);
    bool idle = domain0_idle(v) || v->vmx.asleep;
    if (!idle && !vmx_timer_expired(v, VMX_TIMER_SLICE))
        return v;
    if (idle)
        sched_set_state(s, v, SCHED_HALTED);
    struct vcpu *next = sched_pick(s);
    if (!next) {                /* every VCPU halted: the CPU idles in v's HLT */
        sched_set_state(s, v, SCHED_RUNNABLE);
        next = v;
    }
    if (next == v) {
        vmx_timer_request(v, VMX_TIMER_SLICE, s->slice_ticks);
        return v;
    }
    switch_vcpu(s, v, next);
    return next;
}

/* ---- A domain's end ------------------------------------------------------ */

/* Nothing left to run on this CPU: it waits (draining the log) for the
 * run to end on another CPU. */
__attribute__((noreturn)) static void park(unsigned int cpu)
{
    printk("sched: cpu %u: no VCPU left to run\n", cpu);
    for (;;) {
        log_hv_poll(rdtsc());
        console_drain_poll();
        __asm__ volatile("pause");
    }
}

static struct vcpu *first_halted(const struct sched_cpu *s)
{
    for (unsigned int i = 0; i < s->count; i++)
        if (s->state[i] == SCHED_HALTED && !s->vcpus[i]->waits_for_sipi)
            return s->vcpus[i];
    return NULL;
}

/* Nothing else left on this CPU but APs that wait for their SIPI: the
 * CPU waits for the first SIPI (draining the log), or parks if their
 * domains end first. */
static struct vcpu *wait_for_sipi(struct sched_cpu *s, unsigned int cpu)
{
    printk("sched: cpu %u: waiting for a SIPI\n", cpu);
    for (;;) {
        bool alive = false;
        for (unsigned int i = 0; i < s->count; i++) {
            if (s->state[i] == SCHED_ENDED)
                continue;
            alive = true;
            if (vcpu_sipi_take(s->vcpus[i]))
                return s->vcpus[i];
        }
        if (!alive)
            park(cpu);
        log_hv_poll(rdtsc());
        console_drain_poll();
        __asm__ volatile("pause");
    }
}

static bool any_waits_for_sipi(const struct sched_cpu *s)
{
    for (unsigned int i = 0; i < s->count; i++)
        if (s->state[i] != SCHED_ENDED && s->vcpus[i]->waits_for_sipi)
            return true;
    return false;
}

/* The domain's VCPUs on other CPUs notice its end at their next exit:
 * a kick makes that now (a VCPU halted with interrupts off, as Linux
 * stops its CPUs, would never exit otherwise). */
static void kick_other_cpus(const struct domain *d, unsigned int cpu)
{
    for (unsigned int i = 0; i < d->vcpu_count; i++)
        if (d->vcpus[i].cpu != cpu)
            want_exit(d->vcpus[i].cpu);
}

__attribute__((noreturn)) void vmx_sched_domain_ended(struct domain *d)
{
    unsigned int cpu = smp_cpu_index();
    struct sched_cpu *s = &cpus[cpu];
    struct vcpu *from = sched_current(s);

    for (unsigned int i = 0; i < d->vcpu_count; i++) {
        struct vcpu *v = &d->vcpus[i];
        sched_set_state(&cpus[v->cpu], v, SCHED_ENDED);
        __atomic_store_n(&work[v->cpu], true, __ATOMIC_RELEASE);
    }
    kick_other_cpus(d, cpu);
    struct vcpu *next = sched_pick(s);
    if (!next) {
        /* Domain 0 halted is still alive: it idles the CPU; without it,
         * a sleeping VCPU does, in its HLT. */
        next = domain0_vcpu[cpu];
        if (!next || sched_state_of(s, next) == SCHED_ENDED || next->waits_for_sipi)
            next = first_halted(s);
        if (!next && any_waits_for_sipi(s))
            next = wait_for_sipi(s, cpu);
        if (!next)
            park(cpu);
        sched_set_state(s, next, SCHED_RUNNABLE);
        s->current = (unsigned int)sched_index(s, next);
    }
    switch_vcpu(s, from, next);
    /* next may still hold a wake-up deadline it was given for a sleeper
     * of the ended domain (arm_wake). Deadlines stay until withdrawn
     * (vmx/vmx_timer.h), and once this CPU is no longer shared no entry
     * looks at them again: a past one would make every entry exit at
     * once, before a guest instruction or interrupt, for ever. */
    arm_wake(next, s);
    update_work_for(next);
    vmx_vcpu_loop(next);
}
