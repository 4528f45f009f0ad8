/* The VT-x side of a domain's virtual hardware (vmm/domain/domain_vhw.h): its
 * I/O, CR8, CPUID and HLT exits, the virtual APIC's interrupts injected
 * before each entry, and the virtual PMU's PMI through the domain's LVTPC
 * (its MSRs: vmx/exit_vhw_msr.c; its APIC page: vmx/exit_vhw_apic.c). */
#include "vmx/exit_vhw.h"

#include "lib/console.h"
#include "lib/cpu.h"
#include "vmm/vhw/acpi_build.h"
#include "vmm/vhw/pc_reset.h"
#include "vmm/domain/domain.h"
#include "vmm/domain/domain_vhw.h"
#include "vmx/mode_trap.h"
#include "vmx/vmx_ops.h"
#include "vmx/vmx_sched.h"
#include "vmx/vmx_timer.h"

#define CPUID_1_EDX_APIC        (1u << 9)
#define CPUID_1_ECX_X2APIC      (1u << 21)
#define CPUID_7_EBX_TSC_ADJUST  (1u << 1)

static struct vlapic *lapic_of(struct vcpu *v)
{
    return &v->domain->vhw->lapic[v->id];
}

uint32_t vhw_lvtpc(const struct vcpu *v)
{
    return v->domain->vhw->lapic[v->id].lvt[VLAPIC_LVT_PERF];
}

void vhw_lvtpc_write(struct vcpu *v, uint32_t value)
{
    lapic_of(v)->lvt[VLAPIC_LVT_PERF] = value;
}

bool vhw_pmi_vector(struct vcpu *v)
{
    struct vlapic *a = lapic_of(v);
    uint32_t lvt = a->lvt[VLAPIC_LVT_PERF];
    if ((lvt & VLAPIC_DM_MASK) != VLAPIC_DM_FIXED || (lvt & VLAPIC_LVT_MASKED))
        return false;
    vlapic_deliver_lvt(a, VLAPIC_LVT_PERF);
    a->lvt[VLAPIC_LVT_PERF] = lvt | VLAPIC_LVT_MASKED;
    return true;
}

bool vhw_ipi_posted(const struct vcpu *v)
{
    if (!v->domain || !v->domain->vhw)
        return false;
    return __atomic_load_n(&v->vmx.ipi_posted, __ATOMIC_SEQ_CST) ||
           __atomic_load_n(&v->vmx.ipi_nmis, __ATOMIC_SEQ_CST);
}

/* The fixed IPIs other VCPUs posted (vmx/exit_vhw_msr.c) into v's own
 * APIC, which only v's CPU touches. The sender sets ipi_posted after the
 * vector's bit, so one load says whether there is any: a bit set after
 * the flag was cleared here comes with the flag set again. */
static void take_posted(struct vcpu *v, struct vlapic *a)
{
    if (!__atomic_load_n(&v->vmx.ipi_posted, __ATOMIC_SEQ_CST))
        return;
    __atomic_store_n(&v->vmx.ipi_posted, 0u, __ATOMIC_SEQ_CST);
    for (unsigned int w = 0; w < 8; w++) {
        uint32_t bits = __atomic_exchange_n(&v->vmx.ipi_vectors[w], 0u, __ATOMIC_SEQ_CST);
        for (; bits; bits &= bits - 1)
            vlapic_accept(a, (uint8_t)(w * 32 + (unsigned int)__builtin_ctz(bits)), false);
    }
}

uint64_t vhw_guest_tsc(struct vcpu *v)
{
    return vtsc_guest(&v->domain->vhw->tsc[v->id], rdtsc());
}

static void set_control(uint32_t field, uint64_t bit, bool on)
{
    uint64_t value = vmcs_read(field);
    uint64_t want = on ? value | bit : value & ~bit;
    if (want != value)
        vmcs_write(field, want);
}

void vmx_vhw_setup(struct vcpu *v)
{
    if (!v->domain->vhw)
        return;
    set_control(VMCS_PROC_BASED_CONTROLS, PROC_TPR_SHADOW, false);
    set_control(VMCS_PROC_BASED_CONTROLS, PROC_CR8_LOAD_EXITING | PROC_CR8_STORE_EXITING, true);
}

/* ---- I/O ---------------------------------------------------------------------- */

static void set_in_value(struct vcpu *v, unsigned int size, uint32_t value)
{
    uint64_t mask = size == 4 ? 0xffffffffull : (1ull << (size * 8)) - 1;
    v->regs.rax = size == 4 ? (value & mask) : (v->regs.rax & ~mask) | (value & mask);
}

/* A write to the power ports: S5 ends the domain; a reset request ends
 * it or starts it over (domain_reset). False if the write asked for
 * nothing (the caller completes the instruction). */
static bool power_write(struct vcpu *v, uint16_t port, uint8_t value)
{
    switch (acpi_build_power_write(v->domain->vhw->power_port, port, value)) {
    case ACPI_POWER_OFF:
        domain_end(v->domain, GUEST_END_POWER_OFF, "ACPI S5 (sleep control register)");
    case ACPI_POWER_RESET:
        domain_reset(v->domain, GUEST_END_RESET, "ACPI reset register");
        return true;
    default:
        return false;
    }
}

/* The test-exit port (QEMU's isa-debug-exit, any width): the value written
 * is the domain's exit code. It reads as an absent device. */
static bool test_exit_io(struct vcpu *v, uint16_t port, unsigned int size, bool in)
{
    const struct domain_vhw *hw = v->domain->vhw;
    if (!hw->test_exit_port || port != hw->test_exit_port)
        return false;
    if (in) {
        set_in_value(v, size, 0xffffffffu);
        return true;
    }
    uint32_t mask = size == 4 ? 0xffffffffu : (1u << (size * 8)) - 1;
    domain_test_exit(v->domain, (uint32_t)v->regs.rax & mask);
}

static bool fw_cfg_io(struct vcpu *v, uint16_t port, unsigned int size, bool in)
{
    struct domain_vhw *hw = v->domain->vhw;
    if (!hw->has_fw_cfg || !fw_cfg_owns_port(port))
        return false;
    if (in)
        set_in_value(v, size, fw_cfg_read(&hw->fw_cfg, port, size));
    else
        fw_cfg_write(&hw->fw_cfg, port, size, (uint32_t)v->regs.rax);
    return true;
}

/* pc-testdev's data port (multiboot domains): an access that is not the
 * device's (vmm/vhw/testdev.h) falls through to the unknown ports'. */
static bool testdev_port_io(struct vcpu *v, uint16_t port, unsigned int size, bool in)
{
    struct domain_vhw *hw = v->domain->vhw;
    uint32_t value = (uint32_t)v->regs.rax;
    if (!hw->has_testdev || !testdev_io(&hw->testdev, port, size, in, &value))
        return false;
    if (in)
        set_in_value(v, size, value);
    return true;
}

/* The ACPI PM timer's ports (multiboot domains): a 32-bit IN at its port
 * reads the count; any other access is refused as vmm/vhw/acpi_pmtimer.h
 * says, the first one of the domain reported on Vertigo's console. */
static bool pm_timer_io(struct vcpu *v, uint16_t port, unsigned int size, bool in)
{
    struct domain_vhw *hw = v->domain->vhw;
    if (!acpi_pmtimer_owns_port(&hw->pm_timer, port))
        return false;
    uint32_t value;
    enum acpi_pmtimer_status st = acpi_pmtimer_io(&hw->pm_timer, port, size, in, rdtsc(), &value);
    if (in)
        set_in_value(v, size, value);
    if (st != ACPI_PMTIMER_READ && !hw->pm_timer_refused++)
        printk("vhw: domain %u: ACPI PM timer: %u-byte %s port %#x refused: %s\n",
               v->domain->id, size, in ? "IN from" : "OUT to", port,
               acpi_pmtimer_refusal(st));
    return true;
}

/* The CMOS clock's ports (Linux domains): a refused access (vmm/vhw/vrtc.h)
 * is reported on Vertigo's console the first time in the domain. */
static bool rtc_io(struct vcpu *v, uint16_t port, unsigned int size, bool in)
{
    struct domain_vhw *hw = v->domain->vhw;
    if (!vrtc_owns_port(&hw->rtc, port))
        return false;
    uint32_t value = (uint32_t)v->regs.rax;
    enum vrtc_status st = vrtc_io(&hw->rtc, port, size, in, rdtsc(), &value);
    if (in)
        set_in_value(v, size, value);
    if (st != VRTC_DONE && !hw->rtc_refused++)
        printk("vhw: domain %u: CMOS clock: %u-byte %s port %#x refused: %s\n",
               v->domain->id, size, in ? "IN from" : "OUT to", port, vrtc_refusal(st));
    return true;
}

bool vhw_io(struct vcpu *v, const struct vmx_exit *e)
{
    struct domain_vhw *hw = v->domain->vhw;
    uint64_t q = e->qualification;
    uint16_t port = (uint16_t)IO_QUAL_PORT(q);
    unsigned int size = IO_QUAL_SIZE(q);
    bool in = (q & IO_QUAL_IN) != 0;
    bool power = hw->power_port && port >= hw->power_port &&
                 port < hw->power_port + ACPI_BUILD_PORT_COUNT;

    if (q & IO_QUAL_STRING)
        return vhw_string_io(v, e);
    /* A reset request ends the domain or starts it over: the instruction
     * is not completed (a restarted VCPU starts at its kernel's entry). */
    const char *reset = pc_reset_request(port, size, in, (uint8_t)v->regs.rax);
    if (reset) {
        domain_reset(v->domain, GUEST_END_RESET, reset);
        return true;
    }
    if (test_exit_io(v, port, size, in) || fw_cfg_io(v, port, size, in) ||
        pm_timer_io(v, port, size, in) || testdev_port_io(v, port, size, in) ||
        rtc_io(v, port, size, in)) {
        vmx_skip_instruction(v, e);
        return true;
    }
    if (!power && !vuart16550_owns_port(&hw->uart, port))
        return false;
    if (power) {
        if (in)
            set_in_value(v, size, 0);
        else if (power_write(v, port, (uint8_t)v->regs.rax))
            return true;        /* started over: nothing of the old boot to complete */
    } else if (in) {
        set_in_value(v, size, vuart16550_read(&hw->uart, port));
    } else {
        vuart16550_write(&hw->uart, port, (uint8_t)v->regs.rax);
    }
    vmx_skip_instruction(v, e);
    return true;
}

/* ---- CR8, CPUID, HLT -------------------------------------------------------------- */

void vhw_cr8(struct vcpu *v, const struct vmx_exit *e)
{
    uint64_t q = e->qualification;
    unsigned int gpr = CR_QUAL_GPR(q);
    if (CR_QUAL_ACCESS_TYPE(q) == CR_ACCESS_MOV_FROM_CR) {
        vmx_gpr_write(v, gpr, vlapic_cr8_read(lapic_of(v)));
    } else if (vlapic_cr8_write(lapic_of(v), vmx_gpr_read(v, gpr)) == VLAPIC_GP) {
        vmx_inject_gp();
        return;
    }
    vmx_skip_instruction(v, e);
}

void vhw_cpuid(struct vcpu *v, uint32_t leaf, uint32_t subleaf)
{
    if (leaf >= 0x40000000u && leaf < 0x80000000u)
        return;                             /* Vertigo's own leaves */
    struct cpuid_domain_regs r = { (uint32_t)v->regs.rax, (uint32_t)v->regs.rbx,
                                   (uint32_t)v->regs.rcx, (uint32_t)v->regs.rdx };
    cpuid_domain_apply(&v->domain->vhw->cpuid, lapic_of(v)->id, leaf, subleaf, &r);
    if (leaf == 1 && vlapic_mode(lapic_of(v)) == VLAPIC_MODE_DISABLED)
        r.edx &= ~CPUID_1_EDX_APIC;     /* the APIC flag follows IA32_APIC_BASE.EN */
    if (leaf == 1 && lapic_of(v)->no_x2apic)
        r.ecx &= ~CPUID_1_ECX_X2APIC;
    if (leaf == 7 && subleaf == 0 && vhw_tsc_offsetting())
        r.ebx |= CPUID_7_EBX_TSC_ADJUST;    /* emulated: vmm/vhw/vtsc.h */
    v->regs.rax = r.eax;
    v->regs.rbx = r.ebx;
    v->regs.rcx = r.ecx;
    v->regs.rdx = r.edx;
}

void vhw_hlt(struct vcpu *v, const struct vmx_exit *e)
{
    struct vlapic *a = lapic_of(v);
    bool single_step = vmx_skip_instruction(v, e);
    take_posted(v, a);
    vlapic_timer_advance(a, vhw_guest_tsc(v));
    if (vlapic_pending_vector(a) >= 0 || single_step)
        return;                     /* the next entry delivers it (a #DB ends a HLT) */
    vmcs_write(VMCS_GUEST_ACTIVITY_STATE, VMX_ACTIVITY_HLT);
    vmx_sched_sleep(v, vtsc_host(&v->domain->vhw->tsc[v->id], vlapic_next_deadline(a)));
}

/* ---- Before each entry ------------------------------------------------------------ */

static bool can_inject(const struct vcpu *v)
{
    return !v->vmx.traps.pending_intr &&
           !(vmcs_read(VMCS_ENTRY_INTR_INFO) & INTR_INFO_VALID) &&
           vmx_guest_takes_interrupts();
}

static void inject_pending(struct vcpu *v, struct vlapic *a)
{
    int vector = vlapic_pending_vector(a);
    if (vector < 0)
        return;
    if (!can_inject(v)) {
        set_control(VMCS_PROC_BASED_CONTROLS, PROC_INTR_WINDOW_EXITING, true);
        return;
    }
    vmcs_write(VMCS_ENTRY_INTR_INFO, INTR_INFO((unsigned int)vector, INTR_TYPE_EXTERNAL));
    vlapic_ack(a, (uint8_t)vector);
    v->vmx.asleep = false;
    if (vmcs_read(VMCS_GUEST_ACTIVITY_STATE) == VMX_ACTIVITY_HLT)
        vmcs_write(VMCS_GUEST_ACTIVITY_STATE, VMX_ACTIVITY_ACTIVE);
    if (vlapic_pending_vector(a) >= 0)
        set_control(VMCS_PROC_BASED_CONTROLS, PROC_INTR_WINDOW_EXITING, true);
}

void vmx_vhw_inject(struct vcpu *v)
{
    if (!v->domain->vhw)
        return;
    struct vlapic *a = lapic_of(v);
    take_posted(v, a);
    vlapic_timer_advance(a, vhw_guest_tsc(v));
    inject_pending(v, a);
}

void vmx_vhw_before_entry(struct vcpu *v)
{
    if (!v->domain->vhw)
        return;
    struct vlapic *a = lapic_of(v);
    uint64_t now = vhw_guest_tsc(v);
    set_control(VMCS_PROC_BASED_CONTROLS, PROC_HLT_EXITING, true);
    uint64_t due = vlapic_next_deadline(a);
    if (due == VLAPIC_NO_DEADLINE)
        vmx_timer_cancel(v, VMX_TIMER_VLAPIC);
    else
        vmx_timer_request(v, VMX_TIMER_VLAPIC, due > now ? due - now : 1);
}
