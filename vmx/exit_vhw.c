/* The VT-x side of a Linux domain's virtual hardware (vmm/domain/domain_vhw.h):
 * its I/O, MSR, CR8, CPUID and HLT exits, and the virtual APIC's
 * interrupts injected before each entry. */
#include "vmx/exit_vhw.h"

#include "lib/cpu.h"
#include "pmu/pmu_loop.h"
#include "vmm/vhw/acpi_build.h"
#include "vmm/domain/domain.h"
#include "vmm/domain/domain_vhw.h"
#include "lib/msr.h"
#include "vmm/vhw/msr_check.h"
#include "vmx/mode_trap.h"
#include "vmx/vcpu_spec.h"
#include "vmx/vmx_cpu.h"
#include "vmx/vmx_ops.h"
#include "vmx/vmx_sched.h"
#include "vmx/vmx_timer.h"

#define MSR_UCODE_REV           0x08bu
#define MSR_DEBUGCTL            0x1d9u
#define CPUID_1_EDX_APIC        (1u << 9)
#define MTRR_DEF_TYPE_ENABLED   0x806u  /* MTRRs on, default write-back */
#define MSR_MCG_CAP             0x179u  /* no machine-check banks */
#define MSR_MCG_STATUS          0x17au
/* IA32_MISC_ENABLE bits a guest may change (SDM Vol. 4 table 2-2): fast
 * strings, automatic thermal control, enhanced SpeedStep, MONITOR,
 * limit CPUID, xTPR message disable, XD disable; kept as written, acting
 * on nothing. The rest are read-only (performance monitoring, BTS and
 * PEBS unavailable) or reserved: a write changing them #GPs. */
#define MISC_ENABLE_WRITABLE    0x0000000400c50009ull
#define CPUID_7_EBX_TSC_ADJUST  (1u << 1)

static struct vlapic *lapic_of(struct vcpu *v)
{
    return &v->domain->vhw->lapic[v->id];
}

static struct vtsc *tsc_of(struct vcpu *v)
{
    return &v->domain->vhw->tsc[v->id];
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

uint64_t vhw_guest_tsc(struct vcpu *v)
{
    return vtsc_guest(tsc_of(v), rdtsc());
}

static bool tsc_offsetting(void)
{
    return (vmx_config.proc_available & PROC_TSC_OFFSETTING) != 0;
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

static void power_write(struct vcpu *v, uint16_t port, uint8_t value)
{
    switch (acpi_build_power_write(v->domain->vhw->power_port, port, value)) {
    case ACPI_POWER_OFF:
        domain_end(v->domain, GUEST_END_POWER_OFF, "ACPI S5 (sleep control register)");
    case ACPI_POWER_RESET:
        domain_end(v->domain, GUEST_END_RESET, "ACPI reset register");
    default:
        break;
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
        return false;
    if (test_exit_io(v, port, size, in) || fw_cfg_io(v, port, size, in)) {
        vmx_skip_instruction(e);
        return true;
    }
    if (!power && !vuart16550_owns_port(&hw->uart, port))
        return false;
    if (power) {
        if (in)
            set_in_value(v, size, 0);
        else
            power_write(v, port, (uint8_t)v->regs.rax);
    } else if (in) {
        set_in_value(v, size, vuart16550_read(&hw->uart, port));
    } else {
        vuart16550_write(&hw->uart, port, (uint8_t)v->regs.rax);
    }
    vmx_skip_instruction(e);
    return true;
}

/* ---- MSRs --------------------------------------------------------------------- */

/* An x2APIC ICR write: a fixed IPI goes to the VCPUs of the domain it
 * names (none: dropped), an NMI to this one. */
static void route_ipi(struct vcpu *v)
{
    const struct vlapic_ipi *ipi = &lapic_of(v)->ipi;
    struct domain *d = v->domain;
    for (unsigned int i = 0; i < d->vcpu_count; i++) {
        struct vlapic *to = &d->vhw->lapic[i];
        bool self = i == v->id;
        bool hit = ipi->shorthand == 1 ? self : ipi->shorthand == 2 ? true :
                   ipi->shorthand == 3 ? !self : !ipi->logical && ipi->dest == to->id;
        if (hit && ipi->delivery_mode == VLAPIC_DM_FIXED)
            vlapic_accept(to, ipi->vector, false);
    }
}

enum msr_access_result vhw_lapic_result(struct vcpu *v, enum vlapic_status st)
{
    if (st == VLAPIC_GP)
        return MSR_ACCESS_GP;
    if (st == VLAPIC_NMI)
        v->vmx.pending_nmis++;
    else if (st == VLAPIC_IPI)
        route_ipi(v);
    return MSR_ACCESS_DONE;
}

static bool is_mtrr(uint32_t msr)
{
    return (msr >= MSR_IA32_MTRR_PHYSBASE0 && msr <= MSR_IA32_MTRR_VAR_LAST) ||
           msr == MSR_IA32_MTRR_FIX64K_00000 || msr == MSR_IA32_MTRR_FIX16K_80000 ||
           msr == MSR_IA32_MTRR_FIX16K_A0000 ||
           (msr >= MSR_IA32_MTRR_FIX4K_C0000 && msr <= MSR_IA32_MTRR_FIX4K_F8000);
}

/* The syscall MSRs: the CPU's own, switched with the VCPU (vmx/vmx_sched.c). */
static bool is_syscall_msr(uint32_t msr)
{
    return msr == MSR_IA32_STAR || msr == MSR_IA32_LSTAR || msr == MSR_IA32_CSTAR ||
           msr == MSR_IA32_FMASK || msr == MSR_IA32_TSC_AUX;
}

static bool vmcs_msr_field(uint32_t msr, uint32_t *field)
{
    switch (msr) {
    case MSR_IA32_SYSENTER_CS: *field = VMCS_GUEST_IA32_SYSENTER_CS; return true;
    case MSR_IA32_SYSENTER_ESP: *field = VMCS_GUEST_IA32_SYSENTER_ESP; return true;
    case MSR_IA32_SYSENTER_EIP: *field = VMCS_GUEST_IA32_SYSENTER_EIP; return true;
    case MSR_IA32_PAT: *field = VMCS_GUEST_IA32_PAT; return true;
    default: return false;
    }
}

/* Constant answers: no variable MTRRs, MTRRs on with write-back default,
 * no microcode, no vulnerabilities enumerated, no branch tracing, no
 * supervisor XSAVE state, FEATURE_CONTROL locked. */
static bool constant_msr(uint32_t msr, uint64_t *value)
{
    switch (msr) {
    case MSR_IA32_MTRRCAP:
    case MSR_UCODE_REV:
    case MSR_IA32_ARCH_CAPABILITIES:
    case MSR_DEBUGCTL:
    case MSR_IA32_XSS:
        *value = 0;
        return true;
    case MSR_IA32_MTRR_DEF_TYPE: *value = MTRR_DEF_TYPE_ENABLED; return true;
    case MSR_MCG_CAP:
    case MSR_MCG_STATUS:
        *value = 0;
        return true;
    case MSR_IA32_FEATURE_CONTROL: *value = FEATURE_CONTROL_LOCKED; return true;
    default:
        if (!is_mtrr(msr))
            return false;
        *value = 0;
        return true;
    }
}

/* SPEC_CTRL is the VCPU's own on the CPU (switched, vmx/vcpu_spec.c);
 * PRED_CMD and FLUSH_CMD are write-only commands. What the CPU lacks #GPs. */
static bool is_spec_msr(uint32_t msr)
{
    return msr == MSR_IA32_SPEC_CTRL || msr == MSR_IA32_PRED_CMD || msr == MSR_IA32_FLUSH_CMD;
}

static enum msr_access_result spec_read(uint32_t msr, uint64_t *value)
{
    if (msr != MSR_IA32_SPEC_CTRL || !vcpu_spec_plan()->spec_ctrl)
        return MSR_ACCESS_GP;
    *value = rdmsr(msr);
    return MSR_ACCESS_DONE;
}

static enum msr_access_result spec_write(uint32_t msr, uint64_t value)
{
    if (!spec_msr_write_valid(vcpu_spec_plan(), msr, value))
        return MSR_ACCESS_GP;
    if (msr == MSR_IA32_SPEC_CTRL || value)
        wrmsr(msr, value);
    return MSR_ACCESS_DONE;
}

bool vhw_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value, enum msr_access_result *r)
{
    uint32_t field;
    *r = MSR_ACCESS_DONE;
    if (is_spec_msr(msr))
        *r = spec_read(msr, value);
    else if (vlapic_owns_msr(msr))
        *r = vhw_lapic_result(v, vlapic_rdmsr(lapic_of(v), msr, vhw_guest_tsc(v), value));
    else if (msr == MSR_IA32_TSC)
        *value = vhw_guest_tsc(v);
    else if (msr == MSR_IA32_TSC_ADJUST && tsc_offsetting())
        *value = tsc_of(v)->adjust;
    else if (msr == MSR_IA32_MISC_ENABLE)
        *value = v->domain->vhw->misc_enable[v->id];
    else if (is_syscall_msr(msr))
        *value = rdmsr(msr);
    else if (vmcs_msr_field(msr, &field))
        *value = vmcs_read(field);
    else if (!constant_msr(msr, value))
        *r = pmu_exit_rdmsr(v, msr, value) ? MSR_ACCESS_DONE : MSR_ACCESS_GP;
    return true;
}

/* IA32_TSC or IA32_TSC_ADJUST written: the VMCS's TSC offset follows. */
static enum msr_access_result tsc_write(struct vcpu *v, uint32_t msr, uint64_t value)
{
    if (!tsc_offsetting())
        return MSR_ACCESS_GP;
    if (msr == MSR_IA32_TSC)
        vtsc_write_tsc(tsc_of(v), rdtsc(), value);
    else
        vtsc_write_adjust(tsc_of(v), value);
    vmcs_write(VMCS_TSC_OFFSET, tsc_of(v)->offset);
    set_control(VMCS_PROC_BASED_CONTROLS, PROC_TSC_OFFSETTING, true);
    return MSR_ACCESS_DONE;
}

static enum msr_access_result misc_enable_write(struct vcpu *v, uint64_t value)
{
    uint64_t *held = &v->domain->vhw->misc_enable[v->id];
    if ((value ^ *held) & ~MISC_ENABLE_WRITABLE)
        return MSR_ACCESS_GP;
    *held = value;
    return MSR_ACCESS_DONE;
}

bool vhw_wrmsr(struct vcpu *v, uint32_t msr, uint64_t value, enum msr_access_result *r)
{
    uint32_t field;
    uint64_t ignored;
    *r = MSR_ACCESS_DONE;
    if (is_spec_msr(msr)) {
        *r = spec_write(msr, value);
    } else if (vlapic_owns_msr(msr)) {
        *r = vhw_lapic_result(v, vlapic_wrmsr(lapic_of(v), msr, value, vhw_guest_tsc(v)));
    } else if (msr == MSR_IA32_EFER) {
        *r = vmx_efer_write(v, msr, value);
    } else if (msr == MSR_IA32_TSC || msr == MSR_IA32_TSC_ADJUST) {
        *r = tsc_write(v, msr, value);
    } else if (msr == MSR_IA32_MISC_ENABLE) {
        *r = misc_enable_write(v, value);
    } else if (msr == MSR_MCG_STATUS) {
        *r = value ? MSR_ACCESS_GP : MSR_ACCESS_DONE;
    } else if (!msr_check_write(msr, value)) {
        *r = MSR_ACCESS_GP;     /* reserved bits, non-canonical, bad type: never in root */
    } else if (is_syscall_msr(msr)) {
        wrmsr(msr, value);
    } else if (vmcs_msr_field(msr, &field)) {
        vmcs_write(field, value);
    } else if (msr == MSR_DEBUGCTL || msr == MSR_IA32_XSS || msr == MSR_IA32_MTRR_DEF_TYPE ||
               is_mtrr(msr) || msr == MSR_UCODE_REV) {
        /* Dropped: the guest's memory types and features stay the ones
         * it reads (DEBUGCTL and XSS only as 0). */
        if ((msr == MSR_DEBUGCTL || msr == MSR_IA32_XSS) && value)
            *r = MSR_ACCESS_GP;
    } else if (constant_msr(msr, &ignored)) {
        *r = MSR_ACCESS_GP;
    } else {
        *r = pmu_exit_wrmsr(v, msr, value) ? MSR_ACCESS_DONE : MSR_ACCESS_GP;
    }
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
    vmx_skip_instruction(e);
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
    if (leaf == 7 && subleaf == 0 && tsc_offsetting())
        r.ebx |= CPUID_7_EBX_TSC_ADJUST;    /* emulated: vmm/vhw/vtsc.h */
    v->regs.rax = r.eax;
    v->regs.rbx = r.ebx;
    v->regs.rcx = r.ecx;
    v->regs.rdx = r.edx;
}

void vhw_hlt(struct vcpu *v, const struct vmx_exit *e)
{
    struct vlapic *a = lapic_of(v);
    vmx_skip_instruction(e);
    vlapic_timer_advance(a, vhw_guest_tsc(v));
    if (vlapic_pending_vector(a) >= 0)
        return;                     /* the next entry delivers it */
    vmcs_write(VMCS_GUEST_ACTIVITY_STATE, VMX_ACTIVITY_HLT);
    vmx_sched_sleep(v, vtsc_host(tsc_of(v), vlapic_next_deadline(a)));
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
