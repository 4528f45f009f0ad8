/* VM-exit handling: the information of one exit, the named handlers the
 * dispatcher (vmx/exit.c) calls, and helpers they share. */
#ifndef VMX_EXIT_H
#define VMX_EXIT_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/vcpu.h"
#include "vmx/vmx_defs.h"
#include "vmx/vmx_ops.h"

struct vmx_exit {
    uint32_t reason;            /* basic exit reason (bits 15:0) */
    uint32_t full_reason;
    uint64_t qualification;
    uint64_t rip;
    uint32_t instruction_len;
};

/* Handlers, one per exit reason Vertigo expects (vmx/exit_*.c). */
void handle_cpuid(struct vcpu *v, const struct vmx_exit *e);
void handle_rdmsr(struct vcpu *v, const struct vmx_exit *e);
void handle_wrmsr(struct vcpu *v, const struct vmx_exit *e);
void handle_io(struct vcpu *v, const struct vmx_exit *e);
void handle_cr_access(struct vcpu *v, const struct vmx_exit *e);
void handle_xsetbv(struct vcpu *v, const struct vmx_exit *e);
void handle_invd(struct vcpu *v, const struct vmx_exit *e);
void handle_rdpmc(struct vcpu *v, const struct vmx_exit *e);
void handle_vmcall(struct vcpu *v, const struct vmx_exit *e);
void handle_vmx_instruction(struct vcpu *v, const struct vmx_exit *e);
void handle_ept_violation(struct vcpu *v, const struct vmx_exit *e);
void handle_ept_misconfig(struct vcpu *v, const struct vmx_exit *e);
void handle_preemption_timer(struct vcpu *v, const struct vmx_exit *e);
void handle_exception_nmi(struct vcpu *v, const struct vmx_exit *e);
void handle_nmi_window(struct vcpu *v, const struct vmx_exit *e);
void handle_triple_fault(struct vcpu *v, const struct vmx_exit *e);
void handle_init_signal(struct vcpu *v, const struct vmx_exit *e);
/* Exits of the mode traps (vmx/mode_trap.c). */
void handle_external_interrupt(struct vcpu *v, const struct vmx_exit *e);
void handle_interrupt_window(struct vcpu *v, const struct vmx_exit *e);
void handle_hlt(struct vcpu *v, const struct vmx_exit *e);

/* Exits of domains other than domain 0 that differ from its own
 * (vmx/exit_private.c). */
void private_external_interrupt(struct vcpu *v, const struct vmx_exit *e);
void private_hlt(struct vcpu *v, const struct vmx_exit *e);
void private_io(struct vcpu *v, const struct vmx_exit *e);
void private_rdmsr(struct vcpu *v, const struct vmx_exit *e);
void private_wrmsr(struct vcpu *v, const struct vmx_exit *e);
void private_ept_violation(struct vcpu *v, const struct vmx_exit *e);
void private_cr_access(struct vcpu *v, const struct vmx_exit *e);
void private_cpuid(struct vcpu *v, const struct vmx_exit *e);
void private_preemption_timer(struct vcpu *v, const struct vmx_exit *e);

/* Dispatches one exit to its handler; unknown reasons dump and stop. */
void vmx_handle_exit(struct vcpu *v, const struct vmx_exit *e);

/* Before each VM entry: invalidate this CPU's EPT translations if the
 * EPT changed (vmx/ept_guard.h), inject pending virtual NMIs when the
 * guest can take them, else ask for an NMI-window exit. */
void vmx_prepare_entry(struct vcpu *v);

/* The stretch in which the root NMI handler may write v's VM-execution
 * controls: from vmx_nmi_entry_commit, after the last update of the
 * controls before a VM entry, to vmx_nmi_exit_begin, right after the VM
 * exit. Commit also requests the NMI-window exit for guest NMIs that
 * arrived since vmx_prepare_entry. */
void vmx_nmi_entry_commit(struct vcpu *v);
void vmx_nmi_exit_begin(struct vcpu *v);

/* NMI context: a guest NMI arrived while Vertigo ran on v's CPU. It is
 * queued for v (vmx_prepare_entry moves it to the pending NMIs) and, once
 * the entry is committed, NMI-window exiting is requested, so an NMI
 * arriving after vmx_prepare_entry looked is not held until a later exit. */
void vmx_queue_root_nmi(struct vcpu *v);
/* The same for an NMI of v's own virtual hardware (its virtual PMU's):
 * always v's, where a root NMI taken while a domain other than 0 runs is
 * domain 0's. */
void vmx_queue_vcpu_nmi(struct vcpu *v);

/* Advances the guest RIP past the instruction that exited, as its
 * execution would: ends STI / MOV-SS blocking and, when the guest
 * single-steps (RFLAGS.TF), makes the single-step #DB pending; returns
 * whether it did (a HLT then does not halt: the #DB would wake it). The
 * exit counts as one emulated instruction of v (v->vmx.rip_moved). */
bool vmx_skip_instruction(struct vcpu *v, const struct vmx_exit *e);

/* An exit in the middle of delivering an event to the guest (one Vertigo
 * injected, or the guest's own interrupt or exception) leaves that event in
 * the IDT-vectoring information: it was not delivered and is injected again
 * at the next entry, or it would be lost (SDM Vol. 3C 28.2.4, 29.2.4).
 * For exits that leave the event to the next entry (NMIs, interrupts). */
void vmx_reinject_vectored_event(void);

/* Queues a hardware exception for delivery at the next VM entry. */
void vmx_inject_exception(unsigned int vector, bool has_error_code, uint32_t error_code);
#define VEC_UD 6
#define VEC_GP 13
static inline void vmx_inject_gp(void) { vmx_inject_exception(VEC_GP, true, 0); }
static inline void vmx_inject_ud(void) { vmx_inject_exception(VEC_UD, false, 0); }

/* Current privilege level of the guest (SS.DPL, SDM Vol. 3C 25.4.1).
 * Inline: the PMU asks at every exit and entry. */
static inline unsigned int vmx_guest_cpl(void)
{
    return (unsigned int)(vmcs_read(VMCS_GUEST_SS_ACCESS_RIGHTS) >> 5) & 3;
}

/* General-purpose register by its SDM encoding (0 = RAX ... 15 = R15;
 * 4 = RSP lives in the VMCS). */
uint64_t vmx_gpr_read(struct vcpu *v, unsigned int index);
void vmx_gpr_write(struct vcpu *v, unsigned int index, uint64_t value);

/* Prints exit reason, qualification and the guest state. */
void vmx_dump_guest(struct vcpu *v, const struct vmx_exit *e);

#endif
