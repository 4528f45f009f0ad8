/* The arch hooks of the PMU policy (pmu/pmu_arch.h) on VT-x: the
 * guest state from the current VMCS, the shared VMX-preemption timer, the
 * VMCS IA32_PERF_GLOBAL_CTRL fields, NMIs and LVTPC through the local APIC,
 * the PMU MSRs, and the per-CPU single-step area. No policy here: each
 * operation does exactly what pmu/ asks. */
#include "pmu/pmu_arch.h"

#include "boot/apic.h"
#include "boot/cpu.h"
#include "boot/percpu.h"
#include "vmm/guest_stack.h"
#include "vmm/mem.h"
#include "vmm/msr.h"
#include "vmm/vcpu.h"
#include "vmx/apic_guard.h"
#include "vmx/exit.h"
#include "vmx/guest_mem.h"
#include "vmx/vmx_cpu.h"
#include "vmx/vmx_ops.h"
#include "vmx/vmx_timer.h"

#define CR3_ADDR_MASK     0x000ffffffffff000ull  /* CR3 bits 51:12 (SDM Vol. 3A 4.5) */
#define CPUID_1_ECX_PDCM  (1u << 15)             /* IA32_PERF_CAPABILITIES exists */

/* ---- The guest state of the last exit (the current VMCS is v's) -------- */

unsigned int pmu_arch_guest_cpl(const struct vcpu *v)
{
    (void)v;
    return vmx_guest_cpl();
}

uint64_t pmu_arch_guest_rip(const struct vcpu *v)
{
    (void)v;
    return vmcs_read(VMCS_GUEST_RIP);
}

uint64_t pmu_arch_guest_cr3(const struct vcpu *v)
{
    (void)v;
    return vmcs_read(VMCS_GUEST_CR3) & CR3_ADDR_MASK;
}

bool pmu_arch_guest_halted(const struct vcpu *v)
{
    (void)v;
    return vmcs_read(VMCS_GUEST_ACTIVITY_STATE) == VMX_ACTIVITY_HLT;
}

/* Vertigo neither intercepts nor uses LSTAR: the live MSR is the guest's. */
uint64_t pmu_arch_guest_syscall_entry(const struct vcpu *v)
{
    (void)v;
    return rdmsr(MSR_IA32_LSTAR);
}

unsigned int pmu_arch_guest_stack(struct vcpu *v, uint64_t rbp, bool kernel,
                                  unsigned int depth, uint64_t *out)
{
    struct guest_virt_cursor cursor;
    guest_virt_cursor_init(&cursor, v);
    return guest_stack_walk(rbp, kernel, depth, guest_virt_cursor_read, &cursor, out);
}

uint64_t pmu_arch_exit_tsc(const struct vcpu *v)
{
    return v->vmx.exit_tsc;
}

/* ---- The shared VMX-preemption timer ----------------------------------- */

void pmu_arch_timer_entry_ticks(unsigned int ticks)
{
    vmx_timer_set_entry_ticks(ticks);
}

static enum vmx_timer_owner owner_of(enum pmu_timer t)
{
    return t == PMU_TIMER_STEP ? VMX_TIMER_PMU : VMX_TIMER_SAMPLE;
}

void pmu_arch_timer_request(struct vcpu *v, enum pmu_timer t, uint64_t ticks)
{
    vmx_timer_request(v, owner_of(t), ticks);
}

void pmu_arch_timer_cancel(struct vcpu *v, enum pmu_timer t)
{
    vmx_timer_cancel(v, owner_of(t));
}

bool pmu_arch_timer_expired(const struct vcpu *v, enum pmu_timer t)
{
    return vmx_timer_expired(v, owner_of(t));
}

/* ---- The VM-entry PMU controls ----------------------------------------- */

/* The CPU switches IA32_PERF_GLOBAL_CTRL itself at entry and exit (SDM
 * Vol. 3C 27.3.2.1, 28.5.1); freeze-on-PMI rides in the guest DEBUGCTL. */
void pmu_arch_entry_plan(struct vcpu *v, const struct pmu_entry_plan *plan)
{
    (void)v;
    vmcs_write(VMCS_GUEST_IA32_PERF_GLOBAL_CTRL, plan->guest_global_ctrl);
    vmcs_write(VMCS_HOST_IA32_PERF_GLOBAL_CTRL, plan->host_global_ctrl);
    if (plan->guest_debugctl_set) {
        uint64_t debugctl = vmcs_read(VMCS_GUEST_IA32_DEBUGCTL);
        if ((debugctl & plan->guest_debugctl_set) != plan->guest_debugctl_set)
            vmcs_write(VMCS_GUEST_IA32_DEBUGCTL, debugctl | plan->guest_debugctl_set);
    }
}

bool pmu_arch_has_global_ctrl_switch(void)
{
    return (vmx_config.ctl.entry & ENTRY_LOAD_PERF_GLOBAL_CTRL) &&
           (vmx_config.ctl.exit & EXIT_LOAD_PERF_GLOBAL_CTRL);
}

bool pmu_arch_has_guest_timer(void)
{
    return (vmx_config.pin_available & PIN_PREEMPTION_TIMER) &&
           (vmx_config.exit_available & EXIT_SAVE_PREEMPTION_TIMER);
}

/* ---- PMU MSRs and LVTPC ------------------------------------------------- */

uint64_t pmu_arch_perf_capabilities(void)
{
    uint64_t value = 0;
    if (!(cpuid(1, 0).ecx & CPUID_1_ECX_PDCM) ||
        rdmsr_safe(MSR_IA32_PERF_CAPABILITIES, &value))
        return 0;
    return value;
}

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

const struct pmu_msr_ops *pmu_arch_msr(void)
{
    static const struct pmu_msr_ops msr_ops = { msr_read, msr_write, NULL };
    return &msr_ops;
}

static uint32_t lvtpc_read(void *ctx)
{
    (void)ctx;
    return apic_read_lvtpc();
}

static void lvtpc_write(void *ctx, uint32_t value)
{
    (void)ctx;
    apic_write_lvtpc(value);
}

const struct pmu_lvtpc_ops *pmu_arch_lvtpc(void)
{
    static const struct pmu_lvtpc_ops lvtpc_ops = { lvtpc_read, lvtpc_write, NULL };
    return &lvtpc_ops;
}

void pmu_arch_lvtpc_claim(struct vcpu *v, uint32_t value)
{
    apic_guard_lvtpc_claim(v, value);
}

bool pmu_arch_lvtpc_owned(const struct vcpu *v)
{
    return apic_guard_lvtpc_owned(v);
}

/* The guest owns the xAPIC's ICR-high (its writes are forwarded one by one,
 * vmx/apic_guard.c): the shared sender restores it around the NMI. */
void pmu_arch_send_nmi(uint32_t apic_id)
{
    apic_send_ipi_shared(apic_id, APIC_ICR_NMI | APIC_ICR_LEVEL_ASSERT);
}

void pmu_arch_queue_guest_nmi(struct vcpu *v)
{
    vmx_queue_root_nmi(v);
}

/* ---- This CPU ----------------------------------------------------------- */

unsigned int pmu_arch_cpu_index(void)
{
    return this_cpu()->cpu_index;
}

uint32_t pmu_arch_apic_id(void)
{
    return apic_id();
}

uint64_t pmu_arch_tsc(void)
{
    return rdtsc();
}

struct percpu_step *pmu_arch_this_step_area(void)
{
    return &this_cpu()->step;
}

struct percpu_step *pmu_arch_step_area(unsigned int cpu)
{
    return &percpu_of(cpu)->step;
}

void pmu_arch_single_step(bool on)
{
    uint64_t tf = 1ull << RFLAGS_TF_BIT;
    uint64_t flags = read_rflags();
    flags = on ? flags | tf : flags & ~tf;
    __asm__ volatile("pushq %0; popfq" : : "r"(flags) : "memory", "cc");
}

extern char __image_start[], __image_end[];

/* Vertigo's own memory, for walking its frame-pointer chain: only inside
 * its image (stacks are in .bss), read directly. */
static bool image_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    (void)ctx;
    uint64_t lo = (uint64_t)__image_start, hi = (uint64_t)__image_end;
    if (addr < lo || addr >= hi || len > hi - addr)
        return false;
    memcpy(buf, (const void *)addr, len);
    return true;
}

unsigned int pmu_arch_hypervisor_stack(uint64_t rbp, unsigned int depth, uint64_t *out)
{
    return guest_stack_walk(rbp, false, depth, image_read, NULL, out);
}
