/* Exits of a private domain (every domain but domain 0): it owns no device
 * and reaches no memory but its own RAM, so what domain 0's handlers pass
 * through to the machine is refused or emulated as absent here. These are
 * the dispatch points a domain's virtual hardware plugs into (a virtual
 * UART's ports, a virtual x2APIC's MSRs). */
#include "lib/cpu.h"
#include "lib/console.h"
#include "vmm/domain/domain.h"
#include "lib/msr.h"
#include "vmm/vhw/msr_check.h"
#include "vmx/exit.h"
#include "vmx/exit_vhw.h"
#include "vmx/vmx_ops.h"
#include "vmx/vmx_sched.h"

/* Domain 0's interrupt, taken while this domain ran. */
void private_external_interrupt(struct vcpu *v, const struct vmx_exit *e)
{
    (void)e;
    vmx_sched_forward_interrupt(v);
}

/* A Linux domain sleeps until its virtual timer; a unikernel has no
 * interrupt source: a HLT would never end. */
void private_hlt(struct vcpu *v, const struct vmx_exit *e)
{
    if (v->domain->vhw) {
        vhw_hlt(v, e);
        return;
    }
    printk("vmx: domain %u (%s): HLT at rip %#lx: nothing can ever wake it\n",
           v->domain->id, v->domain->name, e->rip);
    domain_end(v->domain, GUEST_END_ERROR, "halted with no interrupt source");
}

/* Ports: none exists. IN reads all ones and OUT is dropped, as for an
 * absent device; string I/O gets #GP. */
void private_io(struct vcpu *v, const struct vmx_exit *e)
{
    uint64_t q = e->qualification;
    if (v->domain->vhw && vhw_io(v, e))
        return;
    if (q & IO_QUAL_STRING) {
        vmx_inject_gp();
        return;
    }
    if (q & IO_QUAL_IN) {
        unsigned int bits = IO_QUAL_SIZE(q) * 8;
        uint64_t ones = bits == 32 ? 0xffffffffull : (1ull << bits) - 1;
        v->regs.rax = bits == 32 ? ones : (v->regs.rax & ~ones) | ones;
    }
    vmx_skip_instruction(v, e);
}

/* MSRs: the segment bases the VMCS holds and the swapped GS base (switched
 * with the VCPU); anything else gets #GP. */
static bool msr_field(uint32_t msr, uint32_t *field)
{
    switch (msr) {
    case MSR_IA32_FS_BASE: *field = VMCS_GUEST_FS_BASE; return true;
    case MSR_IA32_GS_BASE: *field = VMCS_GUEST_GS_BASE; return true;
    case MSR_IA32_EFER: *field = VMCS_GUEST_IA32_EFER; return true;
    default: return false;
    }
}

void private_rdmsr(struct vcpu *v, const struct vmx_exit *e)
{
    uint32_t msr = (uint32_t)v->regs.rcx, field;
    uint64_t value;
    enum msr_access_result r = MSR_ACCESS_DONE;
    if (msr_field(msr, &field))
        value = vmcs_read(field);
    else if (msr == MSR_IA32_KERNEL_GS_BASE)
        value = rdmsr(msr);
    else if (!v->domain->vhw || (vhw_rdmsr(v, msr, &value, &r) && r == MSR_ACCESS_GP)) {
        vmx_inject_gp();
        return;
    }
    v->regs.rax = (uint32_t)value;
    v->regs.rdx = value >> 32;
    vmx_skip_instruction(v, e);
}

void private_wrmsr(struct vcpu *v, const struct vmx_exit *e)
{
    uint32_t msr = (uint32_t)v->regs.rcx, field;
    uint64_t value = (v->regs.rdx << 32) | (uint32_t)v->regs.rax;
    bool base = msr == MSR_IA32_FS_BASE || msr == MSR_IA32_GS_BASE ||
                msr == MSR_IA32_KERNEL_GS_BASE;
    enum msr_access_result r;
    if (!base && v->domain->vhw && vhw_wrmsr(v, msr, value, &r)) {
        if (r == MSR_ACCESS_GP)
            vmx_inject_gp();
        else
            vmx_skip_instruction(v, e);
        return;
    }
    if (!base || !msr_check_write(msr, value)) {
        vmx_inject_gp();    /* EFER too: the domain keeps its entry mode */
        return;
    }
    if (msr_field(msr, &field))
        vmcs_write(field, value);
    else
        wrmsr(msr, value);
    vmx_skip_instruction(v, e);
}

/* CR8 is the virtual x2APIC's TPR; CR0 and CR4 as for domain 0. */
void private_cr_access(struct vcpu *v, const struct vmx_exit *e)
{
    if (v->domain->vhw && CR_QUAL_CR_NUMBER(e->qualification) == 8)
        vhw_cr8(v, e);
    else
        handle_cr_access(v, e);
}

/* Domain 0's view of the CPU, then the domain's own topology, APIC and
 * TSC leaves. */
void private_cpuid(struct vcpu *v, const struct vmx_exit *e)
{
    uint32_t leaf = (uint32_t)v->regs.rax, subleaf = (uint32_t)v->regs.rcx;
    handle_cpuid(v, e);
    if (v->domain->vhw)
        vhw_cpuid(v, leaf, subleaf);
}

/* Any guest-physical access outside the domain's RAM. */
void private_ept_violation(struct vcpu *v, const struct vmx_exit *e)
{
    if (v->domain->vhw && vhw_ept_violation(v, e))
        return;
    uint64_t q = e->qualification;
    const char *access = (q & EPT_QUAL_FETCH) ? "fetch" : (q & EPT_QUAL_WRITE) ? "write" : "read";
    printk("ept: domain %u (%s): %s of guest-physical %#lx at rip %#lx, outside its %lu MiB "
           "of RAM: violated isolation\n", v->domain->id, v->domain->name, access,
           vmcs_read(VMCS_GUEST_PHYSICAL_ADDR), e->rip, v->domain->vmx.ram_bytes >> 20);
    domain_end(v->domain, GUEST_END_ISOLATION, "violated isolation");
}

/* The slice's end and the PMU's deadlines are looked at after every exit. */
void private_preemption_timer(struct vcpu *v, const struct vmx_exit *e)
{
    (void)v;
    (void)e;
}
