/* A VCPU started over (see vmx/vcpu_restart.h). */
#include "vmx/vcpu_restart.h"

#include "lib/cpu.h"
#include "lib/mem.h"
#include "pmu/pmu_loop.h"
#include "vmm/domain/domain.h"
#include "vmx/vcpu_debugregs.h"
#include "vmx/vcpu_fpu.h"
#include "vmx/vmx_cpu.h"
#include "vmx/vmx_domain.h"
#include "vmx/vmx_ops.h"

void vcpu_restart(struct vcpu *v)
{
    pmu_vcpu_switch_out(v);             /* its counters leave the CPU with the old boot */
    const struct vcpu_vmx old = v->vmx;
    memset(&v->vmx, 0, sizeof(v->vmx));
    v->vmx.vmcs_pa = old.vmcs_pa;       /* reused: vmcs_setup clears it */
    v->vmx.fpu_area = old.fpu_area;
    v->vmx.spec_ctrl = old.spec_ctrl;   /* the CPU's value: vmx/vcpu_spec.c switches it */
    if (!vcpu_fpu_reset(v))
        domain_end(v->domain, GUEST_END_ERROR, "no heap page for its register state");
    vcpu_debugregs_reset(v);
    write_cr2(0);
    memset(&v->regs, 0, sizeof(v->regs));
    memset(&v->stats, 0, sizeof(v->stats));
    vmx_vcpu_start(v, v->domain->vmx.boot_state);
    /* Linear and combined translations the old boot cached under its VPID. */
    if (vmx_config.ctl.proc2 & PROC2_ENABLE_VPID)
        invvpid(INVVPID_SINGLE_CONTEXT, v->vmx.vpid);
}
