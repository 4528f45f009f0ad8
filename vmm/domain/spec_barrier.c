/* Speculative-execution barriers between domains (see vmm/domain/spec_barrier.h). */
#include "vmm/domain/spec_barrier.h"

#include "lib/msr.h"

struct spec_plan spec_plan(uint32_t edx, uint64_t arch_caps)
{
    struct spec_plan p = { 0 };
    if (!(edx & SPEC_CPUID7_ARCH_CAPS))
        arch_caps = 0;                  /* no such MSR: affected by everything */
    p.pred_cmd = p.ibpb = (edx & SPEC_CPUID7_IBRS_IBPB) != 0;
    p.flush_cmd = (edx & SPEC_CPUID7_L1D_FLUSH) != 0;
    p.l1d_flush = p.flush_cmd &&
                  !(arch_caps & (SPEC_ARCH_RDCL_NO | SPEC_ARCH_SKIP_L1DFL_VMENTRY));
    p.verw = (edx & SPEC_CPUID7_MD_CLEAR) && !(arch_caps & SPEC_ARCH_MDS_NO) && !p.l1d_flush;
    if (edx & SPEC_CPUID7_IBRS_IBPB)
        p.spec_ctrl_valid |= SPEC_CTRL_IBRS;
    if (edx & SPEC_CPUID7_STIBP)
        p.spec_ctrl_valid |= SPEC_CTRL_STIBP;
    if (edx & SPEC_CPUID7_SSBD)
        p.spec_ctrl_valid |= SPEC_CTRL_SSBD;
    p.spec_ctrl = p.spec_ctrl_valid != 0;
    return p;
}

void spec_switch(const struct spec_plan *p, const struct spec_ops *ops,
                 uint64_t *from_spec_ctrl, uint64_t to_spec_ctrl, bool other_domain)
{
    if (p->spec_ctrl) {
        *from_spec_ctrl = ops->rdmsr(MSR_IA32_SPEC_CTRL);
        if (to_spec_ctrl != *from_spec_ctrl)
            ops->wrmsr(MSR_IA32_SPEC_CTRL, to_spec_ctrl);
    }
    if (!other_domain)
        return;
    if (p->ibpb)
        ops->wrmsr(MSR_IA32_PRED_CMD, SPEC_CMD_BIT);
    if (p->l1d_flush)
        ops->wrmsr(MSR_IA32_FLUSH_CMD, SPEC_CMD_BIT);
    else if (p->verw)
        ops->verw();
}

/* SDM Vol. 4 table 2-2: SPEC_CTRL bits 63:3 reserved (and a bit the CPU
 * does not enumerate); PRED_CMD and FLUSH_CMD bits 63:1 reserved. */
bool spec_msr_write_valid(const struct spec_plan *p, uint32_t msr, uint64_t value)
{
    switch (msr) {
    case MSR_IA32_SPEC_CTRL:
        return p->spec_ctrl && !(value & ~p->spec_ctrl_valid);
    case MSR_IA32_PRED_CMD:
        return p->pred_cmd && value <= SPEC_CMD_BIT;
    case MSR_IA32_FLUSH_CMD:
        return p->flush_cmd && value <= SPEC_CMD_BIT;
    default:
        return false;
    }
}
