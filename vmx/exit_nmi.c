/* NMIs while the guest runs (NMI exiting + virtual NMIs, SDM Vol. 3C
 * 26.2 and 27.6.1.2). An NMI that is not Vertigo's is reflected to the
 * guest as a virtual NMI, when the guest is not already handling one
 * (else an NMI-window exit says when it can take it).
 *
 * Vertigo's own NMIs (sampling PMIs and kicks) are told apart by pmu/
 * (pmu_nmi_exit, pmu/pmu_loop.h) and never reach the guest.
 *
 * Bochs quirk (PLATFORM.md): after an NMI-caused VM exit, NMIs stay
 * blocked in root mode until the host executes an IRET, and the guest's
 * interruptibility field claims NMI blocking. So: IRET to ourselves, and
 * clear the guest's NMI-blocking bit unless we know it is in its handler. */
#include "boot/percpu.h"
#include "vmm/domain.h"
#include "pmu/pmu_loop.h"
#include "vmx/ept_guard.h"
#include "vmx/exit.h"
#include "vmx/mode_trap.h"
#include "vmx/vmx_ops.h"

#define VEC_NMI 2

static void unblock_nmis_in_root(void)
{
    __asm__ volatile(
        "mov %%ss, %%eax\n\t"
        "pushq %%rax\n\t"
        "pushq %%rsp\n\t"
        "addq $8, (%%rsp)\n\t"
        "pushfq\n\t"
        "mov %%cs, %%eax\n\t"
        "pushq %%rax\n\t"
        "leaq 1f(%%rip), %%rax\n\t"
        "pushq %%rax\n\t"
        "iretq\n"
        "1:"
        ::: "rax", "memory", "cc");
}

static void fix_guest_nmi_blocking(struct vcpu *v)
{
    uint64_t intr = vmcs_read(VMCS_GUEST_INTERRUPTIBILITY);
    if (!v->vmx.guest_in_nmi && (intr & INTERRUPTIBILITY_NMI))
        vmcs_write(VMCS_GUEST_INTERRUPTIBILITY, intr & ~(uint64_t)INTERRUPTIBILITY_NMI);
}

void handle_exception_nmi(struct vcpu *v, const struct vmx_exit *e)
{
    uint32_t info = (uint32_t)vmcs_read(VMCS_EXIT_INTR_INFO);
    uint32_t type = (info & INTR_INFO_TYPE_MASK) >> INTR_INFO_TYPE_SHIFT;

    if (type != INTR_TYPE_NMI) {
        if (vmx_mode_traps_exception(v, e, info))
            return;
        vmx_dump_guest(v, e);
        domain_end(v->domain, GUEST_END_ERROR, "unexpected exception exit");
    }
    /* Vertigo's share first, before the IRET that unblocks NMIs where
     * they are blocked after this exit (Bochs, above): a kick or a guest
     * IPI arriving then must not re-enter the PMU backend in the middle
     * of taking this PMI's overflows. */
    bool vertigo_s = pmu_nmi_exit(v);
    vmx_reinject_vectored_event();
    unblock_nmis_in_root();
    fix_guest_nmi_blocking(v);
    this_cpu()->nmi_count++;
    if (vertigo_s)
        return;             /* Vertigo's PMI (or kick): not the guest's */
    v->vmx.pending_nmis++;
    swevent_add(&v->pmu.sw, SWEVENT_NMIS_REFLECTED, 1);
}

void handle_nmi_window(struct vcpu *v, const struct vmx_exit *e)
{
    (void)v;
    (void)e;
    vmcs_write(VMCS_PROC_BASED_CONTROLS,
               vmcs_read(VMCS_PROC_BASED_CONTROLS) & ~(uint64_t)PROC_NMI_WINDOW_EXITING);
}

/* The NMI-window request may race with the exit path's own update of the
 * control and be lost; the NMI then waits for the next exit, never
 * disappears. */
void vmx_queue_root_nmi(struct vcpu *v)
{
    __atomic_fetch_add(&v->vmx.root_nmis, 1u, __ATOMIC_SEQ_CST);
    if (v->vmx.launched)
        vmcs_write(VMCS_PROC_BASED_CONTROLS,
                   vmcs_read(VMCS_PROC_BASED_CONTROLS) | PROC_NMI_WINDOW_EXITING);
}

static bool guest_can_take_nmi(void)
{
    uint64_t intr = vmcs_read(VMCS_GUEST_INTERRUPTIBILITY);
    if (intr & (INTERRUPTIBILITY_NMI | INTERRUPTIBILITY_MOV_SS))
        return false;
    return !(vmcs_read(VMCS_ENTRY_INTR_INFO) & INTR_INFO_VALID);
}

void vmx_prepare_entry(struct vcpu *v)
{
    ept_guard_before_entry(v);
    if (v->vmx.guest_in_nmi &&
        !(vmcs_read(VMCS_GUEST_INTERRUPTIBILITY) & INTERRUPTIBILITY_NMI))
        v->vmx.guest_in_nmi = false;        /* the guest executed IRET */
    uint32_t from_root = __atomic_exchange_n(&v->vmx.root_nmis, 0u, __ATOMIC_SEQ_CST);
    if (from_root) {
        v->vmx.pending_nmis += from_root;
        swevent_add(&v->pmu.sw, SWEVENT_NMIS_REFLECTED, from_root);
    }
    if (!v->vmx.pending_nmis)
        return;
    if (guest_can_take_nmi()) {
        vmcs_write(VMCS_ENTRY_INTR_INFO, INTR_INFO(VEC_NMI, INTR_TYPE_NMI));
        v->vmx.pending_nmis--;
        v->vmx.guest_in_nmi = true;
    } else {
        vmcs_write(VMCS_PROC_BASED_CONTROLS,
                   vmcs_read(VMCS_PROC_BASED_CONTROLS) | PROC_NMI_WINDOW_EXITING);
    }
}
