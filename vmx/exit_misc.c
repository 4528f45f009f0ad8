/* The remaining exits Linux causes: XSETBV, INVD, VMCALL, VMX instructions,
 * EPT violations and misconfigurations, triple faults and INIT. */
#include "boot/cpu.h"
#include "vmm/console.h"
#include "vmm/domain.h"
#include "vmm/heap.h"
#include "vmm/hypercall.h"
#include "vmx/exit.h"
#include "vmx/guest_mem.h"
#include "vmx/vmx_ops.h"

#define EPT_REPORT_LIMIT 16

void handle_xsetbv(struct vcpu *v, const struct vmx_exit *e)
{
    uint64_t value = (v->regs.rdx << 32) | (uint32_t)v->regs.rax;
    /* The hardware validates XCR0 against what it supports; a #GP in root
     * mode becomes the guest's #GP. */
    if (vmx_guest_cpl() != 0 || xsetbv_safe((uint32_t)v->regs.rcx, value) != 0) {
        vmx_inject_gp();
        return;
    }
    vmx_skip_instruction(e);
}

void handle_invd(struct vcpu *v, const struct vmx_exit *e)
{
    (void)v;
    /* INVD would drop Vertigo's dirty lines too; write back instead. */
    __asm__ volatile("wbinvd" ::: "memory");
    vmx_skip_instruction(e);
}

void handle_vmcall(struct vcpu *v, const struct vmx_exit *e)
{
    struct hypercall_args a = {
        .nr = v->regs.rax,
        .arg = { v->regs.rbx, v->regs.rcx, v->regs.rdx, v->regs.rsi },
        .cpl = vmx_guest_cpl(),
    };
    v->regs.rax = (uint64_t)hypercall_dispatch(v->domain, &a, guest_virt_read, v);
    vmx_skip_instruction(e);
}

void handle_vmx_instruction(struct vcpu *v, const struct vmx_exit *e)
{
    (void)v;
    (void)e;
    vmx_inject_ud();    /* the guest sees no VMX */
}

static const char *access_text(uint64_t q)
{
    if (q & EPT_QUAL_FETCH)
        return "instruction fetch";
    if (q & EPT_QUAL_WRITE)
        return "write";
    return "read";
}

static bool is_vertigo_memory(uint64_t gpa)
{
    extern char __image_start[], __image_end[];
    struct phys_range heap = heap_range();
    return (gpa >= (uint64_t)__image_start && gpa < (uint64_t)__image_end) ||
           (gpa >= heap.base && gpa < heap.end);
}

/* A guest touched a guest-physical page that is not mapped for it
 * (Vertigo's memory, or nothing at all). Report it and give the guest a
 * #GP(0): in user mode the process gets SIGSEGV, in kernel mode a
 * user-access fix-up turns it into an error code. */
void handle_ept_violation(struct vcpu *v, const struct vmx_exit *e)
{
    static unsigned int reported;
    uint64_t q = e->qualification;
    uint64_t gpa = vmcs_read(VMCS_GUEST_PHYSICAL_ADDR);

    if (reported++ < EPT_REPORT_LIMIT) {
        printk("ept: vcpu %u: guest %s of GPA %#lx (%s), linear %s%#lx, rip %#lx, CPL %u: "
               "injecting #GP\n", v->id, access_text(q), gpa,
               is_vertigo_memory(gpa) ? "Vertigo's memory" : "unmapped",
               (q & EPT_QUAL_GLA_VALID) ? "" : "(none) ",
               (q & EPT_QUAL_GLA_VALID) ? vmcs_read(VMCS_GUEST_LINEAR_ADDR) : 0,
               e->rip, vmx_guest_cpl());
    }
    if (vmcs_read(VMCS_IDT_VECTORING_INFO) & INTR_INFO_VALID) {
        printk("ept: the access happened while delivering an event; stopping the guest\n");
        vmx_dump_guest(v, e);
        domain_end(v->domain, GUEST_END_ERROR, "EPT violation during event delivery");
    }
    /* Re-establish NMI blocking an IRET that faulted had lifted (SDM Vol.
     * 3C 28.2.3, "NMI unblocking due to IRET"). */
    if (q & EPT_QUAL_NMI_UNBLOCKING)
        vmcs_write(VMCS_GUEST_INTERRUPTIBILITY,
                   vmcs_read(VMCS_GUEST_INTERRUPTIBILITY) | INTERRUPTIBILITY_NMI);
    vmx_inject_gp();
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
    domain_end(v->domain, GUEST_END_TRIPLE_FAULT, "guest triple fault");
}

void handle_init_signal(struct vcpu *v, const struct vmx_exit *e)
{
    (void)e;
    domain_end(v->domain, GUEST_END_RESET, "INIT signal");
}
