/* NMIs while the guest runs (NMI exiting + virtual NMIs, SDM Vol. 3C
 * 26.2 and 27.6.1.2). An NMI that is not Vertigo's is reflected to the
 * guest as a virtual NMI, when the guest is not already handling one
 * (else an NMI-window exit says when it can take it).
 *
 * Vertigo's own NMIs (sampling PMIs and kicks) are told apart by pmu/
 * (pmu_nmi_exit, pmu/pmu_loop.h) and never reach the guest.
 *
 * Bochs quirk (docs/platform-notes.md): after an NMI-caused VM exit, NMIs stay
 * blocked in root mode until the host executes an IRET, and the guest's
 * interruptibility field claims NMI blocking. So: IRET to ourselves, and
 * clear the guest's NMI-blocking bit unless we know it is in its handler. */
#include "boot/percpu.h"
#include "lib/smp.h"
#include "vmm/domain/domain.h"
#include "pmu/pmu_loop.h"
#include "vmx/ept_guard.h"
#include "vmx/exit.h"
#include "vmx/exit_vhw.h"
#include "vmx/mode_trap.h"
#include "vmx/vmx_ops.h"
#include "vmx/vmx_sched.h"

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
    if (v->domain->id) {
        vmx_sched_give_nmis(v, 1);  /* domain 0's, taken while another domain ran */
        return;
    }
    v->vmx.pending_nmis++;
    pmu_nmis_reflected(v, 1);
}

/* Per physical CPU: set from the last update of the VM-execution controls before
 * a VM entry until the VM exit (vmx_nmi_entry_commit, vmx_nmi_exit_begin).
 * Only then may the root NMI handler write the controls: the exit path
 * writes none in that stretch, so its read-modify-write and the handler's
 * cannot interleave. */
static uint32_t entry_committed[MAX_CPUS];

void handle_nmi_window(struct vcpu *v, const struct vmx_exit *e)
{
    (void)v;
    (void)e;
    vmcs_write(VMCS_PROC_BASED_CONTROLS,
               vmcs_read(VMCS_PROC_BASED_CONTROLS) & ~(uint64_t)PROC_NMI_WINDOW_EXITING);
}

static void request_nmi_window(void)
{
    vmcs_write(VMCS_PROC_BASED_CONTROLS,
               vmcs_read(VMCS_PROC_BASED_CONTROLS) | PROC_NMI_WINDOW_EXITING);
}

/* NMI context. Before the entry is committed the NMI is only counted:
 * vmx_prepare_entry or, at the latest, vmx_nmi_entry_commit takes it.
 * After that nothing else writes the controls until the VM exit, and the
 * handler requests the NMI-window exit itself, so the NMI never waits for
 * some later exit (with HLT passed through, a guest may not exit for a
 * long time). */
static void queue_nmi(struct vcpu *v, uint32_t *queue)
{
    __atomic_fetch_add(queue, 1u, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&entry_committed[v->cpu % MAX_CPUS], __ATOMIC_SEQ_CST))
        request_nmi_window();
}

void vmx_queue_root_nmi(struct vcpu *v)
{
    queue_nmi(v, &v->vmx.root_nmis);
}

void vmx_queue_vcpu_nmi(struct vcpu *v)
{
    queue_nmi(v, &v->vmx.vcpu_nmis);
}

void vmx_nmi_entry_commit(struct vcpu *v)
{
    __atomic_store_n(&entry_committed[v->cpu % MAX_CPUS], 1u, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&v->vmx.root_nmis, __ATOMIC_SEQ_CST) ||
        __atomic_load_n(&v->vmx.vcpu_nmis, __ATOMIC_SEQ_CST) ||
        vmx_sched_take_exit_wanted(v->cpu))
        request_nmi_window();
}

/* NMI context, one of Vertigo's NMIs: a kick that came after the entry
 * was committed (an interrupt posted to a VCPU of this CPU, or a domain's
 * end) would wait for some later exit; the NMI-window exit makes the
 * entry exit at once instead (SDM Vol. 3C 26.7.6). */
void vmx_nmi_root_vertigo(void)
{
    unsigned int cpu = smp_cpu_index();
    if (__atomic_load_n(&entry_committed[cpu % MAX_CPUS], __ATOMIC_SEQ_CST) &&
        vmx_sched_take_exit_wanted(cpu))
        request_nmi_window();
}

void vmx_nmi_exit_begin(struct vcpu *v)
{
    __atomic_store_n(&entry_committed[v->cpu % MAX_CPUS], 0u, __ATOMIC_SEQ_CST);
}

/* With virtual NMIs the guest's NMI blocking is only what Vertigo gave it
 * (SDM Vol. 3C 25.3.1.5): an NMI it injected and the guest has not yet
 * IRETed from (guest_in_nmi), or the IRET watch's own blocking, which
 * vmx_mode_traps_after_exit removes. So guest_in_nmi, not the
 * interruptibility field, says whether the guest can take an NMI: Bochs
 * 2.7's VM entry sets virtual-NMI blocking when the field says blocked but
 * never clears it when the field says not blocked (fixed in later Bochs),
 * so blocking the IRET watch once set stays in Bochs, and shows in the
 * field at every exit, until the guest's next IRET, which in user code
 * that makes system calls may be tens of thousands of instructions later.
 * An injection is delivered whatever that stale blocking says. */
static bool guest_can_take_nmi(const struct vcpu *v)
{
    uint64_t intr = vmcs_read(VMCS_GUEST_INTERRUPTIBILITY);
    if (v->vmx.guest_in_nmi || (intr & INTERRUPTIBILITY_MOV_SS))
        return false;
    return !(vmcs_read(VMCS_ENTRY_INTR_INFO) & INTR_INFO_VALID);
}

/* VM entry refuses an NMI injection with blocking by NMI set (SDM Vol. 3C
 * 26.3.1.5), stale or not. */
static void inject_nmi(struct vcpu *v)
{
    uint64_t intr = vmcs_read(VMCS_GUEST_INTERRUPTIBILITY);
    if (intr & INTERRUPTIBILITY_NMI)
        vmcs_write(VMCS_GUEST_INTERRUPTIBILITY, intr & ~(uint64_t)INTERRUPTIBILITY_NMI);
    vmcs_write(VMCS_ENTRY_INTR_INFO, INTR_INFO(VEC_NMI, INTR_TYPE_NMI));
    v->vmx.pending_nmis--;
    v->vmx.guest_in_nmi = true;
    v->vmx.nmis_injected++;
}

/* Guest NMIs the root NMI handler queued become pending: v's own virtual
 * PMU's are v's, the machine's are domain 0's; so do the NMI IPIs another
 * VCPU of v's domain sent it. */
static void take_root_nmis(struct vcpu *v)
{
    if (__atomic_load_n(&v->vmx.ipi_nmis, __ATOMIC_SEQ_CST))   /* one load in the usual case */
        vhw_nmi_ipis(v, __atomic_exchange_n(&v->vmx.ipi_nmis, 0u, __ATOMIC_SEQ_CST));
    uint32_t own = __atomic_exchange_n(&v->vmx.vcpu_nmis, 0u, __ATOMIC_SEQ_CST);
    if (own) {
        v->vmx.pending_nmis += own;
        pmu_nmis_reflected(v, own);
    }
    uint32_t from_root = __atomic_exchange_n(&v->vmx.root_nmis, 0u, __ATOMIC_SEQ_CST);
    if (from_root && v->domain->id) {
        vmx_sched_give_nmis(v, from_root);
        return;
    }
    if (from_root) {
        v->vmx.pending_nmis += from_root;
        pmu_nmis_reflected(v, from_root);
    }
}

void vmx_prepare_entry(struct vcpu *v)
{
    ept_guard_before_entry(v);
    pmu_nmi_before_entry(v);
    if (v->vmx.guest_in_nmi &&
        !(vmcs_read(VMCS_GUEST_INTERRUPTIBILITY) & INTERRUPTIBILITY_NMI))
        v->vmx.guest_in_nmi = false;        /* the guest executed IRET */
    take_root_nmis(v);
    if (!v->vmx.pending_nmis)
        return;
    if (guest_can_take_nmi(v))
        inject_nmi(v);
    /* The rest when the guest can take one again (after its IRET: virtual-
     * NMI blocking, SDM Vol. 3C 25.3.1.5). */
    if (v->vmx.pending_nmis)
        request_nmi_window();
}
