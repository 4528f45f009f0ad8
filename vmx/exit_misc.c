/* The remaining exits Linux causes: XSETBV, INVD, VMCALL, VMX instructions,
 * EPT misconfigurations, triple faults and INIT. */
#include "lib/cpu.h"
#include "pmu/pmu_loop.h"
#include "lib/console.h"
#include "vmm/domain/domain.h"
#include "vertigo/hypercall.h"
#include "vmm/hypercall.h"
#include "vmx/exit.h"
#include "vmx/guest_mem.h"
#include "vmx/vmx_ops.h"

void handle_xsetbv(struct vcpu *v, const struct vmx_exit *e)
{
    uint64_t value = (v->regs.rdx << 32) | (uint32_t)v->regs.rax;
    /* The hardware validates XCR0 against what it supports; a #GP in root
     * mode becomes the guest's #GP. */
    if (vmx_guest_cpl() != 0 || xsetbv_safe((uint32_t)v->regs.rcx, value) != 0) {
        vmx_inject_gp();
        return;
    }
    vmx_skip_instruction(v, e);
}

/* RDPMC exits except in runs that pass the VCPU's own paravirtual
 * counters through: the virtual PMU's and paravirtual counters, or #GP as
 * RDPMC gives for a bad index or CPL > 0 without CR4.PCE (and for every
 * index when the guest has no virtual PMU). */
void handle_rdpmc(struct vcpu *v, const struct vmx_exit *e)
{
    uint64_t value;
    if (!pmu_exit_rdpmc(v, (uint32_t)v->regs.rcx, &value)) {
        vmx_inject_gp();
        return;
    }
    v->regs.rax = (uint32_t)value;
    v->regs.rdx = value >> 32;
    vmx_skip_instruction(v, e);
}

void handle_invd(struct vcpu *v, const struct vmx_exit *e)
{
    (void)v;
    /* INVD would drop Vertigo's dirty lines too; write back instead. */
    __asm__ volatile("wbinvd" ::: "memory");
    vmx_skip_instruction(v, e);
}

/* HC_CONSOLE_WRITE's copy of the guest's text, one per physical CPU. */
static char console_text[MAX_CPUS][VERTIGO_CONSOLE_WRITE_MAX];

/* Guest pointers are read with the caller's rights: a user-mode caller
 * cannot make Vertigo read a supervisor-only page for it. */
void handle_vmcall(struct vcpu *v, const struct vmx_exit *e)
{
    struct hypercall_domain domain_calls = {
        v->domain->id ? domain_console_output : NULL, domain_power_off, v->domain,
        console_text[v->cpu],
    };
    struct hypercall_args a = {
        .nr = v->regs.rax,
        .arg = { v->regs.rbx, v->regs.rcx, v->regs.rdx, v->regs.rsi },
        .cpl = vmx_guest_cpl(),
        .vcpu = v,
        .domain = &domain_calls,
    };
    struct guest_virt_cursor cursor;
    guest_virt_cursor_init(&cursor, v);
    cursor.user = a.cpl == 3;
    v->regs.rax = (uint64_t)hypercall_dispatch(v->domain, &a, guest_virt_cursor_copy, &cursor);
    vmx_skip_instruction(v, e);
}

void handle_vmx_instruction(struct vcpu *v, const struct vmx_exit *e)
{
    (void)v;
    (void)e;
    vmx_inject_ud();    /* the guest sees no VMX */
}

void handle_ept_misconfig(struct vcpu *v, const struct vmx_exit *e)
{
    printk("ept: misconfigured entry for GPA %#lx (a Vertigo bug)\n",
           vmcs_read(VMCS_GUEST_PHYSICAL_ADDR));
    vmx_dump_guest(v, e);
    domain_end(v->domain, GUEST_END_ERROR, "EPT misconfiguration");
}

void handle_triple_fault(struct vcpu *v, const struct vmx_exit *e)
{
    printk("vmx: vcpu %u: guest triple fault\n", v->id);
    vmx_dump_guest(v, e);
    /* A PC resets after a triple fault (Linux's reboot=triple): a domain
     * with dom.N.on_reboot=restart starts over, any other ends. */
    domain_reset(v->domain, GUEST_END_TRIPLE_FAULT, "guest triple fault");
}

void handle_init_signal(struct vcpu *v, const struct vmx_exit *e)
{
    (void)e;
    domain_reset(v->domain, GUEST_END_RESET, "INIT signal");
}
