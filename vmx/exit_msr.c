/* RDMSR/WRMSR exits: owned MSRs follow vmx/msr_policy.c; MSRs that exit
 * only because the bitmap cannot cover them are accessed on the guest's
 * behalf, with a #GP from the hardware forwarded to the guest. */
#include "lib/cpu.h"
#include "vmx/exit.h"
#include "vmx/msr_policy.h"

static enum msr_access_result passthrough_read(uint32_t msr, uint64_t *value)
{
    return rdmsr_safe(msr, value) == 0 ? MSR_ACCESS_DONE : MSR_ACCESS_GP;
}

static enum msr_access_result passthrough_write(uint32_t msr, uint64_t value)
{
    return wrmsr_safe(msr, value) == 0 ? MSR_ACCESS_DONE : MSR_ACCESS_GP;
}

void handle_rdmsr(struct vcpu *v, const struct vmx_exit *e)
{
    uint32_t msr = (uint32_t)v->regs.rcx;
    uint64_t value = 0;
    const struct msr_rule *rule = msr_policy_find(msr);
    enum msr_access_result r = rule ? rule->read(v, msr, &value)
                                    : passthrough_read(msr, &value);
    if (r == MSR_ACCESS_GP) {
        vmx_inject_gp();
        return;
    }
    v->regs.rax = (uint32_t)value;
    v->regs.rdx = value >> 32;
    vmx_skip_instruction(v, e);
}

void handle_wrmsr(struct vcpu *v, const struct vmx_exit *e)
{
    uint32_t msr = (uint32_t)v->regs.rcx;
    uint64_t value = (v->regs.rdx << 32) | (uint32_t)v->regs.rax;
    const struct msr_rule *rule = msr_policy_find(msr);
    enum msr_access_result r = rule ? rule->write(v, msr, value)
                                    : passthrough_write(msr, value);
    if (r == MSR_ACCESS_GP) {
        vmx_inject_gp();
        return;
    }
    vmx_skip_instruction(v, e);
}
