/* The one VM-exit switch: reason -> small named handler. An exit Vertigo
 * does not expect dumps the guest state and stops the guest. */
#include "vmx/exit.h"

#include "lib/console.h"
#include "vmm/domain/domain.h"
#include "lib/exit_names.h"
#include "vmx/vmx_ops.h"

typedef void (*exit_handler)(struct vcpu *v, const struct vmx_exit *e);

/* The exits every domain handles alike. */
#define SHARED_EXIT_HANDLERS                                    \
    [EXIT_REASON_EXCEPTION_NMI] = handle_exception_nmi,         \
    [EXIT_REASON_INTERRUPT_WINDOW] = handle_interrupt_window,   \
    [EXIT_REASON_TRIPLE_FAULT] = handle_triple_fault,           \
    [EXIT_REASON_NMI_WINDOW] = handle_nmi_window,               \
    [EXIT_REASON_GETSEC] = handle_vmx_instruction,              \
    [EXIT_REASON_INVD] = handle_invd,                           \
    [EXIT_REASON_RDPMC] = handle_rdpmc,                         \
    [EXIT_REASON_VMCALL] = handle_vmcall,                       \
    [EXIT_REASON_VMCLEAR] = handle_vmx_instruction,             \
    [EXIT_REASON_VMLAUNCH] = handle_vmx_instruction,            \
    [EXIT_REASON_VMPTRLD] = handle_vmx_instruction,             \
    [EXIT_REASON_VMPTRST] = handle_vmx_instruction,             \
    [EXIT_REASON_VMREAD] = handle_vmx_instruction,              \
    [EXIT_REASON_VMRESUME] = handle_vmx_instruction,            \
    [EXIT_REASON_VMWRITE] = handle_vmx_instruction,             \
    [EXIT_REASON_VMXOFF] = handle_vmx_instruction,              \
    [EXIT_REASON_VMXON] = handle_vmx_instruction,               \
    [EXIT_REASON_INVEPT] = handle_vmx_instruction,              \
    [EXIT_REASON_INVVPID] = handle_vmx_instruction,             \
    [EXIT_REASON_VMFUNC] = handle_vmx_instruction,              \
    [EXIT_REASON_EPT_MISCONFIG] = handle_ept_misconfig,         \
    [EXIT_REASON_XSETBV] = handle_xsetbv

/* Domain 0's exits. */
static const exit_handler exit_handlers[EXIT_REASON_COUNT] = {
    SHARED_EXIT_HANDLERS,
    [EXIT_REASON_EXTERNAL_INTERRUPT] = handle_external_interrupt,
    [EXIT_REASON_HLT] = handle_hlt,
    [EXIT_REASON_INIT_SIGNAL] = handle_init_signal,
    [EXIT_REASON_CPUID] = handle_cpuid,
    [EXIT_REASON_CR_ACCESS] = handle_cr_access,
    [EXIT_REASON_IO_INSTRUCTION] = handle_io,
    [EXIT_REASON_RDMSR] = handle_rdmsr,
    [EXIT_REASON_WRMSR] = handle_wrmsr,
    [EXIT_REASON_EPT_VIOLATION] = handle_ept_violation,
    [EXIT_REASON_PREEMPTION_TIMER] = handle_preemption_timer,
};

/* Every other domain's exits (vmx/exit_private.c for the ones that
 * differ from domain 0's; no INIT signal: it is an unexpected exit). */
static const exit_handler private_exit_handlers[EXIT_REASON_COUNT] = {
    SHARED_EXIT_HANDLERS,
    [EXIT_REASON_EXTERNAL_INTERRUPT] = private_external_interrupt,
    [EXIT_REASON_HLT] = private_hlt,
    [EXIT_REASON_CPUID] = private_cpuid,
    [EXIT_REASON_CR_ACCESS] = private_cr_access,
    [EXIT_REASON_IO_INSTRUCTION] = private_io,
    [EXIT_REASON_RDMSR] = private_rdmsr,
    [EXIT_REASON_WRMSR] = private_wrmsr,
    [EXIT_REASON_EPT_VIOLATION] = private_ept_violation,
    [EXIT_REASON_PREEMPTION_TIMER] = private_preemption_timer,
};

void vmx_handle_exit(struct vcpu *v, const struct vmx_exit *e)
{
    const exit_handler *table = v->domain->id ? private_exit_handlers : exit_handlers;
    exit_handler h = e->reason < EXIT_REASON_COUNT ? table[e->reason] : NULL;
    if (h) {
        h(v, e);
        return;
    }
    printk("vmx: vcpu %u: unexpected VM exit %u (%s)\n", v->id, e->reason,
           vmx_exit_reason_name(e->reason));
    vmx_dump_guest(v, e);
    domain_end(v->domain, GUEST_END_ERROR, "unexpected VM exit");
}

#define RFLAGS_TF       (1ull << 8)
#define PENDING_DBG_BS  (1ull << 14)    /* single step (SDM Vol. 3C 25.4.2) */

bool vmx_skip_instruction(struct vcpu *v, const struct vmx_exit *e)
{
    vmcs_write(VMCS_GUEST_RIP, e->rip + e->instruction_len);
    v->vmx.rip_moved = true;
    /* Emulating the instruction ends any STI / MOV-SS blocking it had
     * (SDM Vol. 3C 25.4.2, interruptibility state). */
    uint64_t intr = vmcs_read(VMCS_GUEST_INTERRUPTIBILITY);
    if (intr & (INTERRUPTIBILITY_STI | INTERRUPTIBILITY_MOV_SS))
        vmcs_write(VMCS_GUEST_INTERRUPTIBILITY,
                   intr & ~(uint64_t)(INTERRUPTIBILITY_STI | INTERRUPTIBILITY_MOV_SS));
    /* An instruction executed with RFLAGS.TF set is followed by a
     * single-step #DB (SDM Vol. 3A 17.3.1.4). The VM exit took the
     * instruction's place, so the emulation owes the guest that trap: the
     * BS bit of the guest's pending debug exceptions, which the processor
     * delivers after the next VM entry as a #DB with DR6.BS set (SDM Vol.
     * 3C 27.7.3, delivery of pending debug exceptions after VM entry). */
    if (!(vmcs_read(VMCS_GUEST_RFLAGS) & RFLAGS_TF))
        return false;
    vmcs_write(VMCS_GUEST_PENDING_DBG_EXCEPTIONS,
               vmcs_read(VMCS_GUEST_PENDING_DBG_EXCEPTIONS) | PENDING_DBG_BS);
    return true;
}

void vmx_reinject_vectored_event(void)
{
    uint32_t idt = (uint32_t)vmcs_read(VMCS_IDT_VECTORING_INFO);
    if (!(idt & INTR_INFO_VALID))
        return;
    uint32_t type = (idt & INTR_INFO_TYPE_MASK) >> INTR_INFO_TYPE_SHIFT;
    if (idt & INTR_INFO_ERROR_CODE_VALID)
        vmcs_write(VMCS_ENTRY_EXCEPTION_ERROR_CODE, vmcs_read(VMCS_IDT_VECTORING_ERROR_CODE));
    if (type == INTR_TYPE_SW_INTERRUPT || type == INTR_TYPE_SW_EXCEPTION ||
        type == INTR_TYPE_PRIV_SW_EXCEPTION)
        vmcs_write(VMCS_ENTRY_INSTRUCTION_LEN, vmcs_read(VMCS_EXIT_INSTRUCTION_LEN));
    vmcs_write(VMCS_ENTRY_INTR_INFO, idt & (INTR_INFO_VALID | INTR_INFO_TYPE_MASK |
                                            INTR_INFO_VECTOR_MASK | INTR_INFO_ERROR_CODE_VALID));
}

#define RFLAGS_RF (1ull << 16)

/* Exceptions of the fault class: all but #DB, #BP, #OF (traps), #DF and
 * #MC (aborts) (SDM Vol. 3A 6.15, the exception reference). */
static bool is_fault(unsigned int vector)
{
    return vector < 32 && vector != 1 && vector != 3 && vector != 4 && vector != 8 &&
           vector != 18;
}

/* A fault's handler sees RF set in the RFLAGS it was pushed (SDM Vol. 3A
 * 17.3.1.1), so the instruction, restarted by IRET, does not trigger its
 * own instruction breakpoint again. An injected event pushes the VMCS's
 * guest RFLAGS, so RF goes there (KVM does the same); delivery clears it
 * in the live RFLAGS. */
void vmx_inject_exception(unsigned int vector, bool has_error_code, uint32_t error_code)
{
    uint32_t info = INTR_INFO(vector, INTR_TYPE_HW_EXCEPTION);
    if (is_fault(vector))
        vmcs_write(VMCS_GUEST_RFLAGS, vmcs_read(VMCS_GUEST_RFLAGS) | RFLAGS_RF);
    if (has_error_code) {
        info |= INTR_INFO_ERROR_CODE_VALID;
        vmcs_write(VMCS_ENTRY_EXCEPTION_ERROR_CODE, error_code);
    }
    vmcs_write(VMCS_ENTRY_INTR_INFO, info);
}

uint64_t vmx_gpr_read(struct vcpu *v, unsigned int index)
{
    if (index == 4)
        return vmcs_read(VMCS_GUEST_RSP);
    return ((const uint64_t *)&v->regs)[index & 15];
}

void vmx_gpr_write(struct vcpu *v, unsigned int index, uint64_t value)
{
    if (index == 4)
        vmcs_write(VMCS_GUEST_RSP, value);
    else
        ((uint64_t *)&v->regs)[index & 15] = value;
}

void vmx_dump_guest(struct vcpu *v, const struct vmx_exit *e)
{
    const struct guest_regs *r = &v->regs;
    printk("  exit reason %#x (%s), qualification %#lx, instruction length %u\n",
           e->full_reason, vmx_exit_reason_name(e->reason), e->qualification,
           e->instruction_len);
    printk("  rip=%#018lx rsp=%#018lx rflags=%#lx cs=%#lx cpl=%u\n", vmcs_read(VMCS_GUEST_RIP),
           vmcs_read(VMCS_GUEST_RSP), vmcs_read(VMCS_GUEST_RFLAGS),
           vmcs_read(VMCS_GUEST_CS_SELECTOR), vmx_guest_cpl());
    printk("  rax=%#018lx rbx=%#018lx rcx=%#018lx rdx=%#018lx\n", r->rax, r->rbx, r->rcx, r->rdx);
    printk("  rsi=%#018lx rdi=%#018lx rbp=%#018lx\n", r->rsi, r->rdi, r->rbp);
    printk("  cr0=%#lx (shadow %#lx) cr3=%#lx cr4=%#lx (shadow %#lx) efer=%#lx\n",
           vmcs_read(VMCS_GUEST_CR0), v->vmx.cr0_shadow, vmcs_read(VMCS_GUEST_CR3),
           vmcs_read(VMCS_GUEST_CR4), v->vmx.cr4_shadow, vmcs_read(VMCS_GUEST_IA32_EFER));
    printk("  interruptibility=%#lx activity=%lu idt-vectoring=%#lx entry-intr=%#lx\n",
           vmcs_read(VMCS_GUEST_INTERRUPTIBILITY), vmcs_read(VMCS_GUEST_ACTIVITY_STATE),
           vmcs_read(VMCS_IDT_VECTORING_INFO), vmcs_read(VMCS_ENTRY_INTR_INFO));
}
