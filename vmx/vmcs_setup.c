/* VMCS initialisation (SDM Vol. 3C, 25 "Virtual Machine Control
 * Structures"; checks in 27.2-27.3 that VM entry applies to them). */
#include "vmx/vmcs_setup.h"

#include "lib/cpu.h"
#include "boot/layout.h"
#include "boot/percpu.h"
#include "boot/traps.h"
#include "lib/console.h"
#include "lib/mem.h"
#include "vmm/heap.h"
#include "lib/msr.h"
#include "vmx/vmx_cpu.h"
#include "vmx/vmx_ops.h"

extern char vmx_exit_point[];

#define GUEST_PAT_DEFAULT 0x0007040600070406ull   /* power-on PAT (SDM Vol. 3A 13.12.4) */
#define DR7_DEFAULT       0x400ull
#define RFLAGS_RESERVED1  0x2ull

static void write_controls(const struct vcpu *v)
{
    const struct vmx_controls *c = &vmx_config.ctl;
    const struct domain_vmx *d = &v->domain->vmx;

    vmcs_write(VMCS_PIN_BASED_CONTROLS, c->pin);
    vmcs_write(VMCS_PROC_BASED_CONTROLS, c->proc);
    vmcs_write(VMCS_PROC_BASED_CONTROLS2, c->proc2);
    vmcs_write(VMCS_EXIT_CONTROLS, c->exit);
    vmcs_write(VMCS_ENTRY_CONTROLS, c->entry);
    vmcs_write(VMCS_EXCEPTION_BITMAP, 0);
    vmcs_write(VMCS_PF_ERROR_CODE_MASK, 0);
    vmcs_write(VMCS_PF_ERROR_CODE_MATCH, 0);
    vmcs_write(VMCS_CR3_TARGET_COUNT, 0);
    vmcs_write(VMCS_EXIT_MSR_STORE_COUNT, 0);
    vmcs_write(VMCS_EXIT_MSR_LOAD_COUNT, 0);
    vmcs_write(VMCS_ENTRY_MSR_LOAD_COUNT, 0);
    vmcs_write(VMCS_ENTRY_INTR_INFO, 0);
    vmcs_write(VMCS_MSR_BITMAP, d->msr_bitmap_pa);
    vmcs_write(VMCS_IO_BITMAP_A, d->io_bitmap_pa);
    vmcs_write(VMCS_IO_BITMAP_B, d->io_bitmap_pa + PAGE_SIZE);
    vmcs_write(VMCS_EPT_POINTER, d->eptp);
    if (c->proc2 & PROC2_ENABLE_VPID)
        vmcs_write(VMCS_VPID, v->vmx.vpid);
    vmcs_write(VMCS_CR0_GUEST_HOST_MASK, vmx_config.cr0_guest_host_mask);
    vmcs_write(VMCS_CR4_GUEST_HOST_MASK, vmx_config.cr4_guest_host_mask);
    vmcs_write(VMCS_LINK_POINTER, ~0ull);
    vmcs_write(VMCS_TSC_OFFSET, 0);
    /* XSAVES/XRSTORS exit for any component XSS enables: none, since XSS
     * stays 0 (vmx/msr_guard.h), so this is the second fence: a
     * supervisor component could never be saved or restored unseen. */
    if (c->proc2 & PROC2_ENABLE_XSAVES)
        vmcs_write(VMCS_XSS_EXITING_BITMAP, ~0ull);
}

/* Host state: what the CPU loads on every VM exit (SDM Vol. 3C, 25.5). */
static void write_host_state(unsigned int cpu)
{
    vmcs_write(VMCS_HOST_CR0, read_cr0());
    vmcs_write(VMCS_HOST_CR3, read_cr3());
    vmcs_write(VMCS_HOST_CR4, read_cr4());
    vmcs_write(VMCS_HOST_CS_SELECTOR, BOOT_CS64);
    vmcs_write(VMCS_HOST_SS_SELECTOR, BOOT_DS64);
    vmcs_write(VMCS_HOST_DS_SELECTOR, BOOT_DS64);
    vmcs_write(VMCS_HOST_ES_SELECTOR, BOOT_DS64);
    vmcs_write(VMCS_HOST_FS_SELECTOR, 0);
    vmcs_write(VMCS_HOST_GS_SELECTOR, 0);
    vmcs_write(VMCS_HOST_TR_SELECTOR, BOOT_TSS);
    vmcs_write(VMCS_HOST_FS_BASE, 0);
    vmcs_write(VMCS_HOST_GS_BASE, (uint64_t)percpu_of(cpu));
    vmcs_write(VMCS_HOST_TR_BASE, traps_tss_base(cpu));
    vmcs_write(VMCS_HOST_GDTR_BASE, traps_gdt_base(cpu));
    vmcs_write(VMCS_HOST_IDTR_BASE, traps_idt_base());
    vmcs_write(VMCS_HOST_IA32_SYSENTER_CS, 0);
    vmcs_write(VMCS_HOST_IA32_SYSENTER_ESP, 0);
    vmcs_write(VMCS_HOST_IA32_SYSENTER_EIP, 0);
    vmcs_write(VMCS_HOST_IA32_EFER, rdmsr(MSR_IA32_EFER));
    vmcs_write(VMCS_HOST_IA32_PAT, rdmsr(MSR_IA32_PAT));
    /* Vertigo does not count itself unless a PMU session asks to
     * (pmu/run/pmu_run.c rewrites this before each entry when one runs). */
    if (vmx_config.ctl.exit & EXIT_LOAD_PERF_GLOBAL_CTRL)
        vmcs_write(VMCS_HOST_IA32_PERF_GLOBAL_CTRL, 0);
    vmcs_write(VMCS_HOST_RIP, (uint64_t)vmx_exit_point);
}

struct segment_fields {
    uint32_t selector, base, limit, access_rights;
};

static void write_segment(const struct segment_fields *f, const struct linux_boot_segment *s)
{
    vmcs_write(f->selector, s->selector);
    vmcs_write(f->base, s->base);
    vmcs_write(f->limit, s->limit);
    vmcs_write(f->access_rights, s->access_rights);
}

void vmcs_set_guest_cr0(struct vcpu *v, uint64_t guest_value)
{
    v->vmx.cr0_shadow = guest_value;
    vmcs_write(VMCS_CR0_READ_SHADOW, guest_value);
    vmcs_write(VMCS_GUEST_CR0, vmx_caps_fix_cr0(&vmx_config.caps, guest_value, true));
}

void vmcs_set_guest_cr4(struct vcpu *v, uint64_t guest_value)
{
    v->vmx.cr4_shadow = guest_value;
    vmcs_write(VMCS_CR4_READ_SHADOW, guest_value);
    vmcs_write(VMCS_GUEST_CR4, vmx_caps_fix_cr4(&vmx_config.caps, guest_value | CR4_VMXE));
}

static void write_guest_state(struct vcpu *v, const struct linux_boot_state *st)
{
    static const struct segment_fields cs = { VMCS_GUEST_CS_SELECTOR, VMCS_GUEST_CS_BASE,
        VMCS_GUEST_CS_LIMIT, VMCS_GUEST_CS_ACCESS_RIGHTS };
    static const struct segment_fields ds = { VMCS_GUEST_DS_SELECTOR, VMCS_GUEST_DS_BASE,
        VMCS_GUEST_DS_LIMIT, VMCS_GUEST_DS_ACCESS_RIGHTS };
    static const struct segment_fields es = { VMCS_GUEST_ES_SELECTOR, VMCS_GUEST_ES_BASE,
        VMCS_GUEST_ES_LIMIT, VMCS_GUEST_ES_ACCESS_RIGHTS };
    static const struct segment_fields ss = { VMCS_GUEST_SS_SELECTOR, VMCS_GUEST_SS_BASE,
        VMCS_GUEST_SS_LIMIT, VMCS_GUEST_SS_ACCESS_RIGHTS };
    static const struct segment_fields fs = { VMCS_GUEST_FS_SELECTOR, VMCS_GUEST_FS_BASE,
        VMCS_GUEST_FS_LIMIT, VMCS_GUEST_FS_ACCESS_RIGHTS };
    static const struct segment_fields gs = { VMCS_GUEST_GS_SELECTOR, VMCS_GUEST_GS_BASE,
        VMCS_GUEST_GS_LIMIT, VMCS_GUEST_GS_ACCESS_RIGHTS };
    static const struct segment_fields tr = { VMCS_GUEST_TR_SELECTOR, VMCS_GUEST_TR_BASE,
        VMCS_GUEST_TR_LIMIT, VMCS_GUEST_TR_ACCESS_RIGHTS };
    static const struct segment_fields ldtr = { VMCS_GUEST_LDTR_SELECTOR, VMCS_GUEST_LDTR_BASE,
        VMCS_GUEST_LDTR_LIMIT, VMCS_GUEST_LDTR_ACCESS_RIGHTS };

    write_segment(&cs, &st->cs);
    write_segment(&ds, &st->ds);
    write_segment(&es, &st->es);
    write_segment(&ss, &st->ss);
    write_segment(&fs, &st->fs);
    write_segment(&gs, &st->gs);
    write_segment(&tr, &st->tr);
    write_segment(&ldtr, &st->ldtr);
    vmcs_write(VMCS_GUEST_GDTR_BASE, st->gdt_base);
    vmcs_write(VMCS_GUEST_GDTR_LIMIT, st->gdt_limit);
    vmcs_write(VMCS_GUEST_IDTR_BASE, st->idt_base);
    vmcs_write(VMCS_GUEST_IDTR_LIMIT, st->idt_limit);

    vmcs_set_guest_cr0(v, st->cr0);
    vmcs_set_guest_cr4(v, st->cr4);
    vmcs_write(VMCS_GUEST_CR3, st->cr3);
    vmcs_write(VMCS_GUEST_IA32_EFER, st->efer);
    uint32_t entry = vmx_config.ctl.entry;
    if (st->efer & EFER_LMA)
        entry |= ENTRY_IA32E_MODE_GUEST;
    else
        entry &= ~ENTRY_IA32E_MODE_GUEST;
    vmcs_write(VMCS_ENTRY_CONTROLS, entry);

    vmcs_write(VMCS_GUEST_RIP, st->rip);
    vmcs_write(VMCS_GUEST_RSP, st->rsp);
    vmcs_write(VMCS_GUEST_RFLAGS, st->rflags | RFLAGS_RESERVED1);
    vmcs_write(VMCS_GUEST_DR7, DR7_DEFAULT);
    vmcs_write(VMCS_GUEST_IA32_PAT, GUEST_PAT_DEFAULT);
    vmcs_write(VMCS_GUEST_IA32_DEBUGCTL, 0);
    /* The guest never owns the PMU: its counters are off unless a session
     * enables them for it (SDM Vol. 3C 27.3.2.1). */
    if (vmx_config.ctl.entry & ENTRY_LOAD_PERF_GLOBAL_CTRL)
        vmcs_write(VMCS_GUEST_IA32_PERF_GLOBAL_CTRL, 0);
    vmcs_write(VMCS_GUEST_IA32_SYSENTER_CS, 0);
    vmcs_write(VMCS_GUEST_IA32_SYSENTER_ESP, 0);
    vmcs_write(VMCS_GUEST_IA32_SYSENTER_EIP, 0);
    vmcs_write(VMCS_GUEST_INTERRUPTIBILITY, 0);
    vmcs_write(VMCS_GUEST_ACTIVITY_STATE, VMX_ACTIVITY_ACTIVE);
    vmcs_write(VMCS_GUEST_PENDING_DBG_EXCEPTIONS, 0);
    v->regs.rsi = st->rsi;
    v->regs.rdi = st->rdi;
    v->regs.rax = st->rax;
    v->regs.rbx = st->rbx;
}

bool vmcs_setup(struct vcpu *v, const struct linux_boot_state *st)
{
    /* A VCPU started over (vmx/vcpu_restart.h) keeps its page: cleared
     * (the CPU's copy written back), then zeroed, it is a new VMCS with
     * no field of the old boot left. */
    uint64_t vmcs = v->vmx.vmcs_pa;
    if (vmcs) {
        vmclear(vmcs);
        memset((void *)(uintptr_t)vmcs, 0, PAGE_SIZE);
    } else {
        vmcs = heap_alloc_pages(1);
    }
    if (!vmcs) {
        printk("vmx: no memory for a VMCS\n");
        return false;
    }
    *(uint32_t *)vmcs = vmx_caps_revision(&vmx_config.caps);
    v->vmx.vmcs_pa = vmcs;
    /* VPID 0 belongs to the host; each domain has its own range. */
    v->vmx.vpid = (uint16_t)(v->domain->id * MAX_CPUS + v->id + 1);
    v->vmx.last_fault_page = ~0ull;
    v->vmx.tsc_offsetting = false;      /* write_controls leaves it off */
    vmclear(vmcs);
    vmptrld(vmcs);
    write_controls(v);
    write_host_state(v->cpu);
    write_guest_state(v, st);
    return true;
}
