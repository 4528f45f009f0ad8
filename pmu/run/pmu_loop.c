/* The PMU in the VM-exit loop (pmu/pmu_loop.h) and the core's hooks
 * (vmm/pmu_hooks.h): each call runs the sampling layer and the counting
 * session's run-time wiring in their order. */
#include "pmu/pmu_loop.h"

#include "pmu/vpmu/pmu_guest.h"
#include "pmu/vpmu/pmu_guest_log.h"
#include "pmu/run/pmu_pmi.h"
#include "pmu/run/pmu_run.h"
#include "pmu/backend/pmu_session.h"
#include "pmu/sample/sample_nmi.h"
#include "pmu/sample/sample_session.h"
#include "vmm/pmu_hooks.h"
#include "lib/exit_names.h"

void pmu_vcpu_start(struct vcpu *v)
{
    pmu_run_vcpu_start(v);
    sample_vcpu_start(v);
}

void pmu_before_entry(struct vcpu *v)
{
    sample_before_entry(v);
    pmu_run_before_entry(v);
    pmu_guest_nmi_time_before_entry(v);
}

void pmu_after_exit(struct vcpu *v, uint64_t guest_ticks)
{
    pmu_guest_nmi_time_after_exit(v, guest_ticks);
    pmu_run_after_exit(v, guest_ticks);
    sample_after_exit(v);
}

void pmu_exit_handled(struct vcpu *v, uint32_t exit_reason)
{
    swevent_count_exit(&v->pmu.sw, exit_reason);
    /* A hypercall may change what the VCPU counts (a session, paravirtual
     * counters, multiplexing): the VM-exit loop decides again at the next
     * entry, and counts the call's own instruction as before it. */
    if ((exit_reason & EXIT_REASON_BASIC_MASK) == EXIT_REASON_VMCALL)
        v->pmu.guest_alone = false;
}

void pmu_emulated_instruction(struct vcpu *v)
{
    pmu_run_emulated_instruction(v);
}

void pmu_exit_cpuid_leaf_0a(const struct vcpu *v, uint32_t regs[4])
{
    pmu_guest_cpuid_leaf(v, regs);
}

bool pmu_exit_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value)
{
    return pmu_guest_rdmsr(v, msr, value);
}

/* A write may start or stop a counter of one mode: the mode traps follow
 * when whether the guest's PMU needs them changed (the backend's decision
 * depends on nothing else the write can change; GLOBAL_CTRL, which Linux
 * clears and sets at every PMI, seldom changes it). One that changes
 * nothing (a register written with the value it holds) skips all of it:
 * the counters need not be brought up to date, their PMI points stay, and
 * there is no new programming to log. A counter's value or an
 * acknowledgement (most of a guest's PMI handler) changes no mode and no
 * programming, GLOBAL_CTRL no programming. */
bool pmu_exit_wrmsr(struct vcpu *v, uint32_t msr, uint64_t value)
{
    struct vpmu_reg reg = pmu_guest_reg(v, msr);
    if (pmu_guest_write_changes_nothing(v, reg, value))
        return true;
    bool needed_modes = pmu_guest_needs_modes(v);
    if (!pmu_guest_write(v, reg, value))
        return false;
    enum vpmu_msr_role role = vpmu_reg_role(reg);
    if (role != VPMU_MSR_COUNT && pmu_guest_needs_modes(v) != needed_modes)
        pmu_run_modes_changed(v);
    if (role == VPMU_MSR_PROGRAM)
        pmu_guest_log_programming(v);
    return true;
}

/* A paravirtual counter's index reads it, with RDPMC's rule (CPL 0, or
 * CR4.PCE); any other is the guest's virtual PMU's. */
bool pmu_exit_rdpmc(struct vcpu *v, uint32_t ecx, uint64_t *value)
{
    bool allowed = pmu_arch_guest_cpl(v) == 0 || pmu_arch_guest_cr4_pce(v);
    if (allowed && pmu_pv_rdpmc(&v->pmu.pv, ecx, value))
        return true;
    return pmu_guest_rdpmc(v, ecx, value);
}

bool pmu_nmi_exit(struct vcpu *v)
{
    return sample_nmi_exit(v);
}

void pmu_nmi_before_entry(struct vcpu *v)
{
    sample_nmi_before_entry(v);
}

void pmu_kick_others(const struct vcpu *self)
{
    pmu_pmi_kick_others(self);
}

void pmu_kick_cpu(unsigned int cpu)
{
    pmu_pmi_kick_cpu(cpu);
}

bool pmu_nmi_root(const struct trap_frame *frame)
{
    return sample_nmi_root(frame);
}

void pmu_domain_stopping(const struct domain *d)
{
    pmu_run_domain_end(d);
    for (unsigned int i = 0; i < d->vcpu_count; i++)
        pmu_guest_log_domain_end(&d->vcpus[i]);
}

void pmu_domain_report(const struct domain *d, bool run_ends)
{
    sample_report(d, run_ends);
    pmu_session_report(d);
}
