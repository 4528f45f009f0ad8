/* The VCPU loop: enter the guest, take the exit, account for it, handle
 * it, enter again. Exit handling time (TSC cycles from the exit to the next
 * entry) is charged to the exit's reason. The PMU (pmu/pmu_loop.h: the
 * counting and sampling sessions) plans each entry and accounts each run
 * of the guest, which the shared preemption timer (vmx/vmx_timer.h)
 * measures. */
#include "lib/cpu.h"
#include "lib/console.h"
#include "vmm/console/console_drain.h"
#include "vmm/domain/domain.h"
#include "vmm/domain/smp_guest.h"
#include "vmm/log/log_hv.h"
#include "vmx/exit.h"
#include "lib/exit_names.h"
#include "vmx/vmx_errors.h"
#include "vmx/exit_vhw.h"
#include "vmx/mode_trap.h"
#include "vmx/vmcs_setup.h"
#include "vmx/vmx_domain.h"
#include "pmu/pmu_loop.h"
#include "vmx/vmx_ops.h"
#include "vmx/vmx_sched.h"
#include "vmx/vmx_timer.h"

/* vmx/vmx_entry.S: writes the entry's TSC to *entry_tsc. */
int vmx_enter_guest(struct guest_regs *regs, int launched, uint64_t *entry_tsc);

/* A preemption-timer exit (the software PMU's steps and overflow points,
 * the most frequent exit while it counts) has no qualification and no
 * instruction (SDM Vol. 3C 28.2.1, 28.2.4): those two fields are not read,
 * nor the RIP, which only instruction exits' handlers use (the sampler
 * reads the guest state from the VMCS itself). */
static void read_exit(struct vmx_exit *e)
{
    e->full_reason = (uint32_t)vmcs_read(VMCS_EXIT_REASON);
    e->reason = e->full_reason & EXIT_REASON_BASIC_MASK;
    if (e->reason == EXIT_REASON_PREEMPTION_TIMER) {
        e->rip = 0;
        e->qualification = 0;
        e->instruction_len = 0;
        return;
    }
    e->rip = vmcs_read(VMCS_GUEST_RIP);
    e->qualification = vmcs_read(VMCS_EXIT_QUALIFICATION);
    e->instruction_len = (uint32_t)vmcs_read(VMCS_EXIT_INSTRUCTION_LEN);
}

static void entry_failed(struct vcpu *v, int status)
{
    uint64_t err = status == 2 ? vmcs_read(VMCS_VM_INSTRUCTION_ERROR) : 0;
    printk("vmx: vcpu %u: VM entry failed (%s): VM-instruction error %lu (%s)\n",
           v->id, v->vmx.launched ? "VMRESUME" : "VMLAUNCH", err,
           vmx_instruction_error_text((uint32_t)err));
    domain_end(v->domain, GUEST_END_ERROR, "VM entry failed");
}

static void entry_failed_guest_state(struct vcpu *v, const struct vmx_exit *e)
{
    printk("vmx: vcpu %u: VM entry failed: %s (qualification %lu)\n", v->id,
           vmx_exit_reason_name(e->reason), e->qualification);
    vmx_dump_guest(v, e);
    domain_end(v->domain, GUEST_END_ERROR, "VM entry failed on guest state");
}

void vmx_vcpu_start(struct vcpu *v, const struct linux_boot_state *start)
{
    if (!vmcs_setup(v, start))
        domain_end(v->domain, GUEST_END_ERROR, "VMCS set-up failed");
    vmx_timer_init(v);
    vmx_vhw_setup(v);
    pmu_vcpu_start(v);
    vmx_sched_started(v);
    if (v->domain->id == 0 && v->id == 0)
        vcpu_aps_may_run_domains();     /* after the PMU's configuration is read */
    if (v->domain->id)
        printk("vmx: domain %u vcpu %u: entering the guest at rip %#lx\n", v->domain->id,
               v->id, start->rip);
    else
        printk("vmx: vcpu %u: entering the guest at rip %#lx\n", v->id, start->rip);
    log_hv_vcpu_online(v->domain->id, v->id, v->cpu, v->domain->vcpu_count);
}

__attribute__((noreturn)) void vmx_vcpu_run(struct vcpu *v, const struct linux_boot_state *start)
{
    vmx_vcpu_start(v, start);
    vmx_vcpu_loop(v);
}

/* While domains' console lines wait for the UART (vmm/console/console_drain.h),
 * the VCPU exits after one FIFO's transmit time at the latest, so the
 * drain keeps the UART busy however rarely the guest exits. */
static void console_drain_timer(struct vcpu *v)
{
    uint64_t ticks = console_drain_pending() ? console_drain_wait_ticks() : 0;
    if (ticks)
        vmx_timer_request(v, VMX_TIMER_CONSOLE, ticks);
    else if (v->vmx.timer.deadline[VMX_TIMER_CONSOLE] != VMX_TIMER_NONE)
        vmx_timer_cancel(v, VMX_TIMER_CONSOLE);
}

__attribute__((noreturn)) void vmx_vcpu_loop(struct vcpu *v)
{
    struct vmx_exit e;

    for (;;) {
        /* Every event this entry delivers first: the PMU plans the run
         * in the mode it starts in, the kernel's for an injected event. */
        vmx_prepare_entry(v);
        vmx_mode_traps_inject(v);
        vmx_sched_inject(v);
        vmx_vhw_inject(v);
        pmu_before_entry(v);
        vmx_mode_traps_arm(v);
        vmx_sched_before_entry(v);
        vmx_vhw_before_entry(v);
        console_drain_timer(v);
        vmx_timer_arm(v);
        vmx_nmi_entry_commit(v);
        pmu_entry_timed(v);
        pmu_entering(v);
        /* From the entry's TSC read to the exit's the path must be the same
         * at every entry: the timer learns its length and takes it off the
         * TSC difference of a run that overshot its deadline (vmx_timer.c),
         * so any work that varies belongs before or after. The read is
         * vmx_enter_guest's, after Vertigo's single-stepping ends there. */
        uint64_t exited_at = v->vmx.exit_tsc;
        int status = vmx_enter_guest(&v->regs, v->vmx.launched, &v->vmx.entry_tsc);
        vmx_nmi_exit_begin(v);
        v->vmx.exit_tsc = rdtsc();
        exit_stats_record_entry(&v->stats, v->vmx.entry_tsc - exited_at);
        if (status)
            entry_failed(v, status);
        v->vmx.launched = true;
        v->stats.guest_cycles += v->vmx.exit_tsc - v->vmx.entry_tsc;

        uint64_t guest_ticks = vmx_timer_settle(v);

        read_exit(&e);
        v->vmx.exit_reason = e.reason;
        if (e.full_reason & EXIT_REASON_ENTRY_FAILURE)
            entry_failed_guest_state(v, &e);
        vmx_mode_traps_after_exit(v, &e);
        pmu_after_exit(v, guest_ticks);
        /* The handler emulated the instruction iff it moved RIP past it
         * (CPUID, RDMSR/WRMSR, I/O, VMCALL, XSETBV, CR access, emulated MMIO
         * stores, SYSCALL/SYSRET...): an instruction that got a fault
         * injected instead did not retire, and exits between instructions
         * (the timer, interrupts, the windows) emulate none. The handlers
         * say so themselves (vmx_skip_instruction), so no VMREAD of RIP. */
        v->vmx.rip_moved = false;
        vmx_handle_exit(v, &e);
        pmu_exit_handled(v, e.full_reason);
        if (v->vmx.rip_moved && pmu_counts_emulation(v))
            pmu_emulated_instruction(v);
        uint64_t handled_tsc = rdtsc();
        exit_stats_record(&v->stats, e.reason, handled_tsc - v->vmx.exit_tsc);
        log_hv_poll(handled_tsc);   /* bounded: at most LOG_HV_POLL_BYTES */
        if (console_drain_pending())
            console_drain_poll();   /* bounded: one UART FIFO's worth */
        v = vmx_sched_after_exit(v);
    }
}
