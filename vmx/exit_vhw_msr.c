/* The MSRs of a domain with virtual hardware (vmm/domain/domain_vhw.h): the
 * virtual APIC's, the virtual TSC and TSC_ADJUST (vmm/vhw/vtsc.h), the
 * syscall MSRs on the CPU itself, the VMCS's, SPEC_CTRL and its commands,
 * the constant answers and kept bits a Linux or multiboot kernel reads,
 * the virtual PMU's; anything else #GP. Called by vmx/exit_private.c. */
#include "vmx/exit_vhw.h"

#include "lib/cpu.h"
#include "pmu/pmu_loop.h"
#include "vmm/domain/domain_vhw.h"
#include "lib/msr.h"
#include "vmm/vhw/msr_check.h"
#include "vmx/mode_trap.h"
#include "vmx/vcpu_spec.h"
#include "vmx/vmx_cpu.h"
#include "vmx/vmx_ops.h"
#include "vmx/vmx_sched.h"
#include "vmm/domain/smp_guest.h"

#define MSR_UCODE_REV           0x08bu
#define MSR_DEBUGCTL            0x1d9u
#define MTRR_DEF_TYPE_ENABLED   0x806u  /* MTRRs on, default write-back */
#define MSR_MCG_CAP             0x179u  /* no machine-check banks */
#define MSR_MCG_STATUS          0x17au
/* IA32_MISC_ENABLE bits a guest may change (SDM Vol. 4 table 2-2): fast
 * strings, automatic thermal control, enhanced SpeedStep, MONITOR,
 * limit CPUID, xTPR message disable, XD disable; kept as written, acting
 * on nothing. The rest are read-only (performance monitoring, BTS and
 * PEBS unavailable) or reserved: a write changing them #GPs. */
#define MISC_ENABLE_WRITABLE    0x0000000400c50009ull

static struct vlapic *lapic_of(struct vcpu *v)
{
    return &v->domain->vhw->lapic[v->id];
}

static struct vtsc *tsc_of(struct vcpu *v)
{
    return &v->domain->vhw->tsc[v->id];
}

bool vhw_tsc_offsetting(void)
{
    return (vmx_config.proc_available & PROC_TSC_OFFSETTING) != 0;
}

uint64_t vhw_tsc_offset(const struct vcpu *v)
{
    return v->domain && v->domain->vhw ? v->domain->vhw->tsc[v->id].offset : 0;
}

/* "Use TSC offsetting" (SDM Vol. 3C 26.6.5) is switched on at the first
 * load and stays on, so the later loads (one at each entry inside a
 * guest's NMI handler) write the offset alone. */
void vhw_tsc_offset_load(struct vcpu *v, uint64_t behind)
{
    vmcs_write(VMCS_TSC_OFFSET, vhw_tsc_offset(v) - behind);
    if (v->vmx.tsc_offsetting)
        return;
    vmcs_write(VMCS_PROC_BASED_CONTROLS,
               vmcs_read(VMCS_PROC_BASED_CONTROLS) | PROC_TSC_OFFSETTING);
    v->vmx.tsc_offsetting = true;
}


/* An NMI from the virtual APIC (an NMI IPI, an LVT entry in NMI mode):
 * while an NMI handler runs the CPU latches one more NMI and drops the
 * rest (SDM Vol. 3A 6.7.1 "Handling Multiple NMIs"); otherwise one is
 * delivered and one latched behind it, as KVM counts them. */
static void latch_nmi(struct vcpu *v)
{
    uint32_t limit = v->vmx.guest_in_nmi ? 1 : 2;
    if (v->vmx.pending_nmis < limit)
        v->vmx.pending_nmis++;
}

void vhw_nmi_ipis(struct vcpu *v, uint32_t n)
{
    while (n--)
        latch_nmi(v);
}

/* A fixed IPI or an NMI for another VCPU t of v's domain: posted in t's
 * own fields (t's virtual APIC is touched only on t's CPU, which takes
 * them before its next entry), and t's CPU made to look now. An AP that
 * waits for its SIPI takes no interrupt (SDM Vol. 3A 9.4.2). */
static void post_ipi(struct vcpu *t, const struct vlapic_ipi *ipi)
{
    if (__atomic_load_n(&t->waits_for_sipi, __ATOMIC_ACQUIRE))
        return;
    if (ipi->delivery_mode == VLAPIC_DM_FIXED) {
        __atomic_fetch_or(&t->vmx.ipi_vectors[ipi->vector / 32], 1u << (ipi->vector % 32),
                          __ATOMIC_SEQ_CST);
        __atomic_store_n(&t->vmx.ipi_posted, 1u, __ATOMIC_SEQ_CST);
    } else
        __atomic_fetch_add(&t->vmx.ipi_nmis, 1u, __ATOMIC_SEQ_CST);
    vmx_sched_ipi_posted(t);
}

/* An IPI the virtual APIC handed over goes to the VCPUs of v's own domain
 * it names, never beyond (vlapic_ipi_hits against each of their APICs):
 * fixed and NMI to v itself at once, to the others posted; INIT (assert)
 * and STARTUP start an AP (vmm/domain/smp_guest.h); the other delivery
 * modes (lowest priority, SMI, ExtINT, INIT de-assert) are dropped. */
static void route_ipi(struct vcpu *v)
{
    const struct vlapic_ipi *ipi = &lapic_of(v)->ipi;
    struct domain *d = v->domain;
    uint32_t dm = ipi->delivery_mode;
    for (unsigned int i = 0; i < d->vcpu_count; i++) {
        struct vcpu *t = &d->vcpus[i];
        if (!vlapic_ipi_hits(&d->vhw->lapic[i], ipi, t == v))
            continue;
        if (dm == VLAPIC_DM_INIT && ipi->assert)
            vcpu_signal_init(d, t->apic_id);
        else if (dm == VLAPIC_DM_SIPI)
            vcpu_signal_sipi(d, t->apic_id, ipi->vector);
        else if (dm != VLAPIC_DM_FIXED && dm != VLAPIC_DM_NMI)
            continue;
        else if (t != v)
            post_ipi(t, ipi);
        else if (dm == VLAPIC_DM_FIXED)
            vlapic_accept(&d->vhw->lapic[i], ipi->vector, false);
        else
            latch_nmi(v);
    }
}

enum msr_access_result vhw_lapic_result(struct vcpu *v, enum vlapic_status st)
{
    if (st == VLAPIC_GP)
        return MSR_ACCESS_GP;
    if (st == VLAPIC_NMI)
        latch_nmi(v);
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
    else if (msr == MSR_IA32_TSC_ADJUST && vhw_tsc_offsetting())
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
    if (!vhw_tsc_offsetting())
        return MSR_ACCESS_GP;
    if (msr == MSR_IA32_TSC)
        vtsc_write_tsc(tsc_of(v), rdtsc(), value);
    else
        vtsc_write_adjust(tsc_of(v), value);
    vhw_tsc_offset_load(v, 0);
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

