/* Trapping the guest's changes of privilege level (see vmx/mode_trap.h):
 * turning the traps on and off, arming them per entry, the interrupts and
 * HLTs they make exit, and the EFER.SCE shadow. The emulation of SYSCALL,
 * SYSRET and the exceptions' return to the guest are vmx/mode_trap_emul.c. */
#include "vmx/mode_trap.h"

#include "lib/console.h"
#include "lib/msr.h"
#include "vmx/vmx_cpu.h"
#include "vmx/vmx_ops.h"

/* Exceptions user mode can raise: #DE #DB #BP #OF #BR #UD #NM #TS #NP #SS
 * #GP #PF #MF #AC #XM #CP (SDM Vol. 3A 6.15). */
#define VEC(n)              (1u << (n))
#define TRAPPED_EXCEPTIONS  (VEC(0) | VEC(1) | VEC(3) | VEC(4) | VEC(5) | VEC(6) | VEC(7) | \
                             VEC(10) | VEC(11) | VEC(12) | VEC(13) | VEC(14) | VEC(16) | \
                             VEC(17) | VEC(19) | VEC(21))
/* Page faults exit only when error-code bit 2 (U/S) is set: the access
 * came from user mode (SDM Vol. 3C 26.2, "page faults"). */
#define PFEC_USER           (1u << 2)
#define EFER_WRITABLE       (EFER_SCE | EFER_LME | EFER_NXE)
#define RFLAGS_IF           (1ull << 9)

static void set_bit(uint32_t field, uint64_t bit, bool on)
{
    uint64_t value = vmcs_read(field);
    uint64_t want = on ? value | bit : value & ~bit;
    if (want != value)
        vmcs_write(field, want);
}

bool vmx_mode_traps_available(void)
{
    return (vmx_config.pin_available & PIN_EXTERNAL_INTR_EXITING) &&
           (vmx_config.exit_available & EXIT_ACK_INTR_ON_EXIT) &&
           (vmx_config.proc_available & PROC_HLT_EXITING) &&
           (vmx_config.proc_available & PROC_INTR_WINDOW_EXITING);
}

/* ---- The EFER.SCE shadow --------------------------------------------------- */

/* The guest's EFER as the VMCS must hold it: SCE hidden while trapping. */
static void load_guest_sce(struct vcpu *v)
{
    set_bit(VMCS_GUEST_IA32_EFER, EFER_SCE, v->vmx.traps.guest_sce && !v->vmx.traps.on);
}

enum msr_access_result vmx_efer_read(struct vcpu *v, uint32_t msr, uint64_t *value)
{
    (void)msr;
    uint64_t efer = vmcs_read(VMCS_GUEST_IA32_EFER) & ~EFER_SCE;
    *value = efer | (v->vmx.traps.guest_sce ? EFER_SCE : 0);
    return MSR_ACCESS_DONE;
}

/* Bits beyond SCE, LME, LMA and NXE are reserved (SDM Vol. 4, table 2-2);
 * LMA is read-only (the processor sets it) and LME cannot change while
 * paging is on (SDM Vol. 3A 9.8.5). */
enum msr_access_result vmx_efer_write(struct vcpu *v, uint32_t msr, uint64_t value)
{
    (void)msr;
    uint64_t old = vmcs_read(VMCS_GUEST_IA32_EFER);
    bool paging = (vmcs_read(VMCS_GUEST_CR0) & (1ull << 31)) != 0;
    if (value & ~(EFER_WRITABLE | EFER_LMA))
        return MSR_ACCESS_GP;
    if (paging && ((value ^ old) & EFER_LME))
        return MSR_ACCESS_GP;
    v->vmx.traps.guest_sce = (value & EFER_SCE) != 0;
    vmcs_write(VMCS_GUEST_IA32_EFER, (value & EFER_WRITABLE) | (old & EFER_LMA));
    load_guest_sce(v);
    return MSR_ACCESS_DONE;
}

/* ---- On and off ------------------------------------------------------------ */

static void disarm(struct vmx_mode_traps *t)
{
    set_bit(VMCS_PIN_BASED_CONTROLS, PIN_EXTERNAL_INTR_EXITING, false);
    set_bit(VMCS_EXIT_CONTROLS, EXIT_ACK_INTR_ON_EXIT, false);
    set_bit(VMCS_PROC_BASED_CONTROLS, PROC_HLT_EXITING, false);
    t->interrupts_exit = t->hlt_exits = false;
}

void vmx_mode_traps_set(struct vcpu *v, bool on)
{
    struct vmx_mode_traps *t = &v->vmx.traps;
    if (t->on == on)
        return;
    t->on = on;
    vmcs_write(VMCS_EXCEPTION_BITMAP, on ? TRAPPED_EXCEPTIONS : 0);
    vmcs_write(VMCS_PF_ERROR_CODE_MASK, on ? PFEC_USER : 0);
    vmcs_write(VMCS_PF_ERROR_CODE_MATCH, on ? PFEC_USER : 0);
    load_guest_sce(v);
    if (!on && !t->halts)
        disarm(t);
}

void vmx_halt_traps_set(struct vcpu *v, bool on)
{
    struct vmx_mode_traps *t = &v->vmx.traps;
    t->halts = on;
    if (!on && !t->on)
        disarm(t);
}

unsigned int vmx_mode_traps_entry_cpl(void)
{
    if (vmcs_read(VMCS_ENTRY_INTR_INFO) & INTR_INFO_VALID)
        return 0;
    return vmx_guest_cpl();
}

/* ---- Interrupts taken at an exit ----------------------------------------- */

bool vmx_guest_takes_interrupts(void)
{
    uint64_t intr = vmcs_read(VMCS_GUEST_INTERRUPTIBILITY);
    return (vmcs_read(VMCS_GUEST_RFLAGS) & RFLAGS_IF) &&
           !(intr & (INTERRUPTIBILITY_STI | INTERRUPTIBILITY_MOV_SS)) &&
           !(vmcs_read(VMCS_ENTRY_INTR_INFO) & INTR_INFO_VALID);
}

static void inject_pending(struct vmx_mode_traps *t)
{
    if (!vmx_guest_takes_interrupts()) {
        set_bit(VMCS_PROC_BASED_CONTROLS, PROC_INTR_WINDOW_EXITING, true);
        return;
    }
    vmcs_write(VMCS_ENTRY_INTR_INFO, t->pending_intr);
    t->pending_intr = 0;
}

/* An event injected into a halted guest wakes it (SDM Vol. 3C 27.6.4:
 * delivery makes the processor active); Bochs would deliver it and stay
 * halted until the next interrupt, so the entry says active itself, as
 * KVM does. */
static void wake_for_injection(void)
{
    if ((vmcs_read(VMCS_ENTRY_INTR_INFO) & INTR_INFO_VALID) &&
        vmcs_read(VMCS_GUEST_ACTIVITY_STATE) == VMX_ACTIVITY_HLT)
        vmcs_write(VMCS_GUEST_ACTIVITY_STATE, VMX_ACTIVITY_ACTIVE);
}

void vmx_mode_traps_inject(struct vcpu *v)
{
    struct vmx_mode_traps *t = &v->vmx.traps;
    if (t->pending_intr)
        inject_pending(t);
    if (t->on || t->halts)
        wake_for_injection();
}

/* With acknowledge-on-exit the interrupt controller has handed the vector
 * over (SDM Vol. 3C 28.2.2): the guest gets it at the next entry. */
void handle_external_interrupt(struct vcpu *v, const struct vmx_exit *e)
{
    (void)e;
    uint32_t info = (uint32_t)vmcs_read(VMCS_EXIT_INTR_INFO);
    if (!(info & INTR_INFO_VALID))
        return;             /* not acknowledged: it stays pending in the APIC */
    vmx_reinject_vectored_event();      /* first the event it interrupted */
    v->vmx.traps.pending_intr = INTR_INFO(info & INTR_INFO_VECTOR_MASK, INTR_TYPE_EXTERNAL);
    v->vmx.traps.interrupts++;
}

void handle_interrupt_window(struct vcpu *v, const struct vmx_exit *e)
{
    (void)e;
    set_bit(VMCS_PROC_BASED_CONTROLS, PROC_INTR_WINDOW_EXITING, false);
    vmx_mode_traps_inject(v);
}

/* HLT retires, and the guest is resumed halted (SDM Vol. 3C 25.4.2,
 * activity state): its idle time is then a run of its own. A
 * single-stepped HLT is resumed active: its #DB, pending, ends the halt. */
void handle_hlt(struct vcpu *v, const struct vmx_exit *e)
{
    if (!vmx_skip_instruction(v, e))
        vmcs_write(VMCS_GUEST_ACTIVITY_STATE, VMX_ACTIVITY_HLT);
    v->vmx.traps.hlts++;
}

/* ---- Arming per entry --------------------------------------------------------- */

/* The next IRET exits: virtual-NMI blocking set now is cleared by it. When
 * the guest blocks NMIs itself (inside an NMI handler Vertigo injected, or
 * an NMI is being injected) its own blocking does the same. Blocking seen
 * outside an injected handler is stale (Bochs 2.7 keeps blocking set at an
 * entry until the guest's next IRET, see vmx/exit_nmi.c) and is taken as
 * the entry's own, so the next exit removes it from the field. */
static void watch_iret(struct vcpu *v)
{
    uint64_t intr = vmcs_read(VMCS_GUEST_INTERRUPTIBILITY);
    bool nmi_injected = (vmcs_read(VMCS_ENTRY_INTR_INFO) & (INTR_INFO_VALID | INTR_INFO_TYPE_MASK))
                        == (INTR_INFO_VALID | (INTR_TYPE_NMI << INTR_INFO_TYPE_SHIFT));
    bool in_handler = (intr & INTERRUPTIBILITY_NMI) && v->vmx.guest_in_nmi;
    if (!in_handler && !nmi_injected) {
        vmcs_write(VMCS_GUEST_INTERRUPTIBILITY, intr | INTERRUPTIBILITY_NMI);
        v->vmx.traps.iret_watch = true;
    }
    set_bit(VMCS_PROC_BASED_CONTROLS, PROC_NMI_WINDOW_EXITING, true);
}

/* Every entry while the traps are on: the controls are written only when
 * they change (t keeps what this file last wrote; the scheduler may set
 * interrupt exiting too, never clear it), and the guest's CPL and activity
 * state are read only when they decide something. */
void vmx_mode_traps_arm(struct vcpu *v)
{
    struct vmx_mode_traps *t = &v->vmx.traps;
    if (!t->on && !t->halts)
        return;
    /* Interrupts exit while the guest idles or (mode traps) runs in user
     * mode, unless one taken earlier still waits (the slot holds one) or
     * an event is being injected (it wakes the guest into its kernel
     * handler). */
    bool take_interrupts, kernel = false;
    if (t->on) {
        bool injecting = (vmcs_read(VMCS_ENTRY_INTR_INFO) & INTR_INFO_VALID) != 0;
        kernel = injecting || vmx_guest_cpl() == 0;
        take_interrupts = !injecting && !t->pending_intr &&
                          (!kernel || vmcs_read(VMCS_GUEST_ACTIVITY_STATE) == VMX_ACTIVITY_HLT);
    } else {
        /* the halt traps alone: most entries resume a running guest, whose
         * interrupts need no exit, so the activity state is read first */
        take_interrupts = !t->pending_intr &&
                          vmcs_read(VMCS_GUEST_ACTIVITY_STATE) == VMX_ACTIVITY_HLT &&
                          !(vmcs_read(VMCS_ENTRY_INTR_INFO) & INTR_INFO_VALID);
    }
    if (take_interrupts != t->interrupts_exit) {
        set_bit(VMCS_PIN_BASED_CONTROLS, PIN_EXTERNAL_INTR_EXITING, take_interrupts);
        set_bit(VMCS_EXIT_CONTROLS, EXIT_ACK_INTR_ON_EXIT, take_interrupts);
        t->interrupts_exit = take_interrupts;
    }
    if (!t->hlt_exits) {
        set_bit(VMCS_PROC_BASED_CONTROLS, PROC_HLT_EXITING, true);
        t->hlt_exits = true;
    }
    if (t->on && kernel)
        watch_iret(v);
}

void vmx_mode_traps_after_exit(struct vcpu *v, const struct vmx_exit *e)
{
    struct vmx_mode_traps *t = &v->vmx.traps;
    if (!t->iret_watch)
        return;
    t->iret_watch = false;
    uint64_t intr = vmcs_read(VMCS_GUEST_INTERRUPTIBILITY);
    if (e->reason == EXIT_REASON_NMI_WINDOW && !(intr & INTERRUPTIBILITY_NMI)) {
        t->irets++;
        return;
    }
    if (intr & INTERRUPTIBILITY_NMI)
        vmcs_write(VMCS_GUEST_INTERRUPTIBILITY, intr & ~(uint64_t)INTERRUPTIBILITY_NMI);
}

void vmx_mode_traps_report(const struct vcpu *v)
{
    const struct vmx_mode_traps *t = &v->vmx.traps;
    if (!(t->syscalls | t->sysrets | t->exceptions | t->interrupts | t->irets | t->hlts))
        return;
    printk("vmx: vcpu %u: mode traps: %lu SYSCALL, %lu SYSRET, %lu IRET, %lu exceptions, "
           "%lu interrupts, %lu HLT\n", v->id, t->syscalls,
           t->sysrets, t->irets, t->exceptions, t->interrupts, t->hlts);
}
