/* Control-register exits: a guest MOV to CR0/CR4 that touches a bit in
 * the guest/host mask (SDM Vol. 3C 26.1.3). The guest's value goes to the
 * read shadow; the real register keeps the bits VMX needs (CR4.VMXE, the
 * fixed bits). Long-mode activation follows EFER.LME and CR0.PG as on
 * hardware (SDM Vol. 3A 10.8.5). */
#include "lib/cpu.h"
#include "lib/console.h"
#include "vmm/domain/domain.h"
#include "lib/msr.h"
#include "vmx/exit.h"
#include "vmx/vmcs_setup.h"
#include "vmx/vmx_cpu.h"
#include "vmx/vmx_ops.h"

#define CR0_RESERVED_HIGH 0xffffffff00000000ull
#define CR4_PCIDE (1ull << 17)

static void flush_guest_tlb(struct vcpu *v)
{
    if (vmx_config.ctl.proc2 & PROC2_ENABLE_VPID)
        invvpid(INVVPID_SINGLE_CONTEXT, v->vmx.vpid);
}

static void update_long_mode(uint64_t cr0)
{
    uint64_t efer = vmcs_read(VMCS_GUEST_IA32_EFER);
    uint64_t entry = vmcs_read(VMCS_ENTRY_CONTROLS);
    if ((cr0 & CR0_PG) && (efer & EFER_LME)) {
        efer |= EFER_LMA;
        entry |= ENTRY_IA32E_MODE_GUEST;
    } else {
        efer &= ~EFER_LMA;
        entry &= ~(uint64_t)ENTRY_IA32E_MODE_GUEST;
    }
    vmcs_write(VMCS_GUEST_IA32_EFER, efer);
    vmcs_write(VMCS_ENTRY_CONTROLS, entry);
}

static bool emulate_write_cr0(struct vcpu *v, uint64_t value)
{
    if (value & CR0_RESERVED_HIGH)
        return false;
    if ((value & CR0_PG) && !(value & CR0_PE))
        return false;
    vmcs_set_guest_cr0(v, value);
    update_long_mode(value);
    flush_guest_tlb(v);
    return true;
}

static bool emulate_write_cr4(struct vcpu *v, uint64_t value)
{
    /* The guest sees no VMX, so CR4.VMXE is reserved for it; bits the
     * CPU does not support are reserved too (FIXED1 says which). */
    uint64_t supported = vmx_config.caps.cr4_fixed1 & ~CR4_VMXE;
    if (value & ~supported)
        return false;
    vmcs_set_guest_cr4(v, value);
    flush_guest_tlb(v);
    return true;
}

void handle_cr_access(struct vcpu *v, const struct vmx_exit *e)
{
    uint64_t q = e->qualification;
    unsigned int cr = CR_QUAL_CR_NUMBER(q);
    bool ok = false;

    if (CR_QUAL_ACCESS_TYPE(q) != CR_ACCESS_MOV_TO_CR || (cr != 0 && cr != 4)) {
        printk("vmx: vcpu %u: unexpected control-register access\n", v->id);
        vmx_dump_guest(v, e);
        domain_end(v->domain, GUEST_END_ERROR, "unexpected control-register exit");
    }
    uint64_t value = vmx_gpr_read(v, CR_QUAL_GPR(q));
    ok = cr == 0 ? emulate_write_cr0(v, value) : emulate_write_cr4(v, value);
    if (!ok) {
        vmx_inject_gp();
        return;
    }
    vmx_skip_instruction(v, e);
}
