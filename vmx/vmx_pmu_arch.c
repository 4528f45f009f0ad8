/* The arch hooks of the PMU policy (pmu/pmu_arch.h) that VT-x implements:
 * the guest state from the current VMCS, the shared VMX-preemption timer,
 * the VMCS IA32_PERF_GLOBAL_CTRL fields, guest NMIs taken in root mode and
 * the guest's LVTPC shadow. The CPU's own hooks are pmu/backend/pmu_arch_cpu.c. No
 * policy here: each hook does exactly what pmu/ asks. */
#include "pmu/pmu_arch.h"

#include "lib/cpu.h"
#include "vmm/guest/guest_stack.h"
#include "lib/mem.h"
#include "vmm/page_alloc.h"
#include "lib/msr.h"
#include "vmm/vcpu.h"
#include "vmx/apic_guard.h"
#include "vmx/exit_vhw.h"
#include "vmx/exit.h"
#include "vmx/guest_mem.h"
#include "vmx/mode_trap.h"
#include "vmx/vmx_cpu.h"
#include "vmx/vmx_ops.h"
#include "vmx/vmx_timer.h"

#define CR3_ADDR_MASK     0x000ffffffffff000ull  /* CR3 bits 51:12 (SDM Vol. 3A 4.5) */

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

/* RIP and CR3 come from the caller (read for the sample already): of the
 * VMCS only RSP and the paging mode's CR0 and CR4 are read here. Which
 * page to open first and the per-CPU translation cache are the stack
 * walkers' (vmm/guest/guest_stack.h, vmm/guest/guest_tlb.h). */
unsigned int pmu_arch_guest_stack(struct vcpu *v, uint64_t rip, uint64_t cr3, uint64_t rbp,
                                  bool kernel, unsigned int depth, uint64_t *out)
{
    struct guest_unwind_regs start = { .ip = rip, .sp = vmcs_read(VMCS_GUEST_RSP), .bp = rbp };
    uint64_t cr0 = vmcs_read(VMCS_GUEST_CR0), cr4 = vmcs_read(VMCS_GUEST_CR4);
    struct guest_virt_cursor cursor;
    struct guest_reader rd;
    guest_virt_cursor_setup(&cursor, v, cr0, cr3, cr4);
    guest_virt_cursor_claim_tlb(&cursor, guest_tlb_of_cpu(v->cpu));
    guest_reader_init(&rd, guest_virt_cursor_page, &cursor);
    uint64_t page;
    const uint8_t *host;
    if (guest_stack_first_page(&start, kernel, &page) &&
        (host = guest_virt_cursor_page(&cursor, page)) != NULL)
        guest_reader_start(&rd, page, host);     /* an unreadable page: the walk finds it */
    unsigned int n = guest_stack_sample(&v->domain->kernel_unwind, &start, kernel, depth, &rd,
                                        out);
    guest_virt_cursor_release_tlb(&cursor);
    return n;
}

void pmu_arch_guest_stack_cache(unsigned int cpu, uint64_t *hits, uint64_t *misses)
{
    guest_tlb_counts(cpu, hits, misses);
}

void pmu_arch_guest_user_stack(struct vcpu *v, struct log_user_stack *us, uint8_t *buf,
                               uint32_t max)
{
    const struct guest_regs *g = &v->regs;
    struct guest_virt_cursor cursor;
    uint64_t rsp = vmcs_read(VMCS_GUEST_RSP);
    uint64_t regs[LOG_UREG_COUNT] = {
        [LOG_UREG_RIP] = vmcs_read(VMCS_GUEST_RIP), [LOG_UREG_RSP] = rsp,
        [LOG_UREG_RBP] = g->rbp, [LOG_UREG_RBX] = g->rbx, [LOG_UREG_R12] = g->r12,
        [LOG_UREG_R13] = g->r13, [LOG_UREG_R14] = g->r14, [LOG_UREG_R15] = g->r15,
    };
    memcpy(us->regs, regs, sizeof(regs));
    guest_virt_cursor_init(&cursor, v);
    cursor.user = true;
    guest_virt_cursor_claim_tlb(&cursor, guest_tlb_of_cpu(v->cpu));
    uint32_t len = 0;
    while (len < max) {         /* page by page: stop at the first unreadable one */
        uint64_t at = rsp + len;
        uint32_t chunk = (uint32_t)(PAGE_SIZE - (at & (PAGE_SIZE - 1)));
        chunk = chunk < max - len ? chunk : max - len;
        if (!guest_virt_cursor_read(&cursor, at, buf + len, chunk))
            break;
        len += chunk;
    }
    guest_virt_cursor_release_tlb(&cursor);
    us->data = buf;
    us->len = len;
}

uint64_t pmu_arch_exit_tsc(const struct vcpu *v)
{
    return v->vmx.exit_tsc;
}

uint32_t pmu_arch_exit_reason(const struct vcpu *v)
{
    return v->vmx.exit_reason;
}

uint64_t pmu_arch_entry_tsc(const struct vcpu *v)
{
    return v->vmx.entry_tsc;
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

/* Each owner named as a constant: the PMU's step, asked at almost every
 * entry, is then a store, without the bookkeeping of the other owners'
 * nearest deadline (vmx_timer_others_moved). */
void pmu_arch_timer_request(struct vcpu *v, enum pmu_timer t, uint64_t ticks)
{
    if (t == PMU_TIMER_STEP)
        vmx_timer_request(v, VMX_TIMER_PMU, ticks);
    else
        vmx_timer_request(v, VMX_TIMER_SAMPLE, ticks);
}

void pmu_arch_timer_cancel(struct vcpu *v, enum pmu_timer t)
{
    if (t == PMU_TIMER_STEP)
        vmx_timer_cancel(v, VMX_TIMER_PMU);
    else
        vmx_timer_cancel(v, VMX_TIMER_SAMPLE);
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

/* ---- The mode traps ------------------------------------------------------ */

unsigned int pmu_arch_entry_cpl(const struct vcpu *v)
{
    (void)v;
    return vmx_mode_traps_entry_cpl();
}

bool pmu_arch_has_mode_traps(void)
{
    return vmx_mode_traps_available();
}

void pmu_arch_mode_traps(struct vcpu *v, bool on)
{
    vmx_mode_traps_set(v, on);
}

void pmu_arch_halt_traps(struct vcpu *v, bool on)
{
    vmx_halt_traps_set(v, on);
}

void pmu_arch_mode_traps_report(const struct vcpu *v)
{
    vmx_mode_traps_report(v);
}

/* ---- NMIs and LVTPC ownership --------------------------------------------- */

void pmu_arch_queue_guest_nmi(struct vcpu *v)
{
    vmx_queue_root_nmi(v);
}

void pmu_arch_queue_vcpu_nmi(struct vcpu *v)
{
    vmx_queue_vcpu_nmi(v);
}

void pmu_arch_lvtpc_claim(struct vcpu *v, uint32_t value)
{
    apic_guard_lvtpc_claim(v, value);
}

bool pmu_arch_lvtpc_owned(const struct vcpu *v)
{
    return apic_guard_lvtpc_owned(v);
}

uint32_t pmu_arch_guest_lvtpc(const struct vcpu *v)
{
    if (v->domain->vhw)
        return vhw_lvtpc(v);
    return apic_guard_lvtpc_shadow(v);
}

void pmu_arch_guest_lvtpc_write(struct vcpu *v, uint32_t value)
{
    if (v->domain->vhw)
        vhw_lvtpc_write(v, value);
    else
        apic_guard_lvtpc_guest_set(v, value);
}

bool pmu_arch_guest_pmi_vector(struct vcpu *v)
{
    return v->domain->vhw && vhw_pmi_vector(v);
}

/* ---- The guest's virtual PMU ---- */

void pmu_arch_rdpmc_exiting(struct vcpu *v, bool on)
{
    (void)v;
    uint64_t proc = vmcs_read(VMCS_PROC_BASED_CONTROLS);
    vmcs_write(VMCS_PROC_BASED_CONTROLS, on ? proc | PROC_RDPMC_EXITING
                                            : proc & ~(uint64_t)PROC_RDPMC_EXITING);
}

bool pmu_arch_guest_cr4_pce(const struct vcpu *v)
{
    (void)v;
    return (vmcs_read(VMCS_GUEST_CR4) & CR4_PCE) != 0;
}

uint64_t pmu_arch_guest_nmi_handler(const struct vcpu *v)
{
    return v->vmx.guest_in_nmi ? v->vmx.nmis_injected : 0;
}

/* RDTSC, RDTSCP and IA32_TSC reads in the guest add the TSC offset (SDM
 * Vol. 3C 26.6.5) while "use TSC offsetting" is on. The offset is shared:
 * a domain's own (its writes to its virtual IA32_TSC or TSC_ADJUST,
 * vmx/exit_vhw_msr.c) less the ticks its NMI handler is held behind; the
 * control is switched on at the first use of either and stays on. The
 * first use is out of line, so the loop's entries inside a handler write
 * the offset inline. */
static __attribute__((noinline)) bool first_tsc_behind(struct vcpu *v, uint64_t behind)
{
    if (!vhw_tsc_offsetting())
        return false;
    vhw_tsc_offset_load(v, behind);
    return true;
}

bool pmu_arch_guest_tsc_behind(struct vcpu *v, uint64_t behind)
{
    if (!v->vmx.tsc_offsetting)
        return first_tsc_behind(v, behind);
    vmcs_write(VMCS_TSC_OFFSET, vhw_tsc_offset(v) - behind);
    return true;
}

/* ---- The guest's paravirtual counter page ---- */

enum guest_access pmu_arch_guest_ram_page(struct vcpu *v, uint64_t gpa, void **host)
{
    return guest_phys_ram_page(v, gpa, host);
}
