/* CPUID exits (unconditional, SDM Vol. 3C 26.1.2): the real CPUID with
 * what the guest must not see removed, the hypervisor bit set, and
 * Vertigo's leaves at 0x40000000. */
#include "lib/cpu.h"
#include "vertigo/hypercall.h"
#include "pmu/pmu_loop.h"
#include "vmx/exit.h"
#include "vmx/vmx_cpu.h"

#define CPUID_1_ECX_MONITOR       (1u << 3)
#define CPUID_1_ECX_DTES64        (1u << 2)
#define CPUID_1_ECX_DS_CPL        (1u << 4)
#define CPUID_1_ECX_SMX           (1u << 6)
#define CPUID_1_EDX_DS            (1u << 21)
#define CPUID_7_EBX_TSC_ADJUST    (1u << 1)
#define CPUID_7_EBX_PT            (1u << 25)
#define CPUID_1_ECX_OSXSAVE       (1u << 27)
#define CPUID_7_ECX_OSPKE         (1u << 4)
#define CR4_PKE                   (1ull << 22)
#define CPUID_7_EBX_INVPCID       (1u << 10)
#define CPUID_7_ECX_WAITPKG       (1u << 5)
#define CPUID_7_ECX_RDPID         (1u << 22)
#define CPUID_D1_EAX_XSAVES       (1u << 3)
#define CPUID_DN_ECX_SUPERVISOR   (1u << 0)     /* 0xD.n: component n is an XSS one */
#define CPUID_7_EDX_ARCH_LBR      (1u << 19)
#define CPUID_80000001_EDX_RDTSCP (1u << 27)
#define VERTIGO_CPUID_LAST        VERTIGO_CPUID_FEATURES
#define HYPERVISOR_RANGE_END      0x400000ffu

static bool proc2_enabled(uint32_t bit)
{
    return (vmx_config.ctl.proc2 & bit) != 0;
}

static void vertigo_leaf(uint32_t leaf, struct cpuid_regs *r)
{
    *r = (struct cpuid_regs){ 0, 0, 0, 0 };
    if (leaf == VERTIGO_CPUID_BASE) {
        r->eax = VERTIGO_CPUID_LAST;
        r->ebx = VERTIGO_CPUID_SIG_EBX;
        r->ecx = VERTIGO_CPUID_SIG_ECX;
        r->edx = VERTIGO_CPUID_SIG_EDX;
    } else if (leaf == VERTIGO_CPUID_FEATURES) {
        r->eax = VERTIGO_HYPERCALL_VERSION;
        r->ebx = VERTIGO_FEATURES;
    }
}

/* Features whose instructions would #UD or exit without the matching
 * secondary control, and everything Vertigo owns, are hidden. */
/* The CR4 the guest sees (SDM Vol. 3C 25.6.6): the bits Vertigo owns
 * from the read shadow, the others from the guest's CR4 itself, which
 * the guest writes without an exit (OSXSAVE and PKE among them). */
static uint64_t guest_visible_cr4(const struct vcpu *v)
{
    uint64_t owned = vmx_config.cr4_guest_host_mask;
    return (vmcs_read(VMCS_GUEST_CR4) & ~owned) | (v->vmx.cr4_shadow & owned);
}

/* OSXSAVE and OSPKE mirror CR4 bits; CPUID runs in root mode, so they
 * must be taken from the guest's CR4, not Vertigo's. */
static void mirror_guest_cr4(const struct vcpu *v, uint32_t leaf, uint32_t subleaf,
                             struct cpuid_regs *r)
{
    uint64_t cr4 = guest_visible_cr4(v);
    if (leaf == 0x1) {
        r->ecx &= ~CPUID_1_ECX_OSXSAVE;
        if (cr4 & CR4_OSXSAVE)
            r->ecx |= CPUID_1_ECX_OSXSAVE;
    } else if (leaf == 0x7 && subleaf == 0) {
        r->ecx &= ~CPUID_7_ECX_OSPKE;
        if (cr4 & CR4_PKE)
            r->ecx |= CPUID_7_ECX_OSPKE;
    }
}

/* XSAVE: no supervisor state component is enumerated (ECX:EDX of 0xD.1
 * is what IA32_XSS may hold, and Vertigo switches none between domains:
 * vmx/msr_guard.h keeps XSS at 0), and the sub-leaf of each such
 * component (Intel PT's is 8) reads as absent. */
static void xsave_leaf(uint32_t subleaf, struct cpuid_regs *r)
{
    if (subleaf == 1) {
        if (!proc2_enabled(PROC2_ENABLE_XSAVES))
            r->eax &= ~CPUID_D1_EAX_XSAVES;
        r->ecx = 0;
        r->edx = 0;
    } else if (subleaf >= 2 && (r->ecx & CPUID_DN_ECX_SUPERVISOR)) {
        *r = (struct cpuid_regs){ 0, 0, 0, 0 };
    }
}

static void filter_leaf(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
    switch (leaf) {
    case 0x1:
        /* MONITOR/MWAIT hidden: the guest idles in HLT, which the mode
         * traps see (an MWAIT idle would look like kernel work). */
        r->ecx &= ~(CPUID_1_ECX_VMX | CPUID_1_ECX_SMX | CPUID_1_ECX_PDCM | CPUID_1_ECX_MONITOR);
        /* no debug store (BTS, PEBS: DS_AREA is Vertigo's, vmx/msr_guard.h) */
        r->ecx &= ~(CPUID_1_ECX_DTES64 | CPUID_1_ECX_DS_CPL);
        r->ecx |= CPUID_1_ECX_HYPERVISOR;
        r->edx &= ~CPUID_1_EDX_DS;
        break;
    case 0x7:
        if (subleaf == 0) {
            /* Intel PT writes to physical addresses past the EPT, and
             * TSC_ADJUST moves Vertigo's clock: both MSR sets #GP */
            r->ebx &= ~(CPUID_7_EBX_PT | CPUID_7_EBX_TSC_ADJUST);
            if (!proc2_enabled(PROC2_ENABLE_INVPCID))
                r->ebx &= ~CPUID_7_EBX_INVPCID;
            if (!proc2_enabled(PROC2_USER_WAIT_PAUSE))
                r->ecx &= ~CPUID_7_ECX_WAITPKG;
            if (!proc2_enabled(PROC2_ENABLE_RDTSCP))
                r->ecx &= ~CPUID_7_ECX_RDPID;
            /* architectural LBRs: their MSRs #GP (vmx/msr_policy.c) */
            r->edx &= ~CPUID_7_EDX_ARCH_LBR;
        }
        break;
    case 0x1c:          /* architectural LBRs, hidden (leaf 7 EDX above) */
    case 0xa:           /* the PMU is Vertigo's: the guest's virtual one, below */
    case 0x14:          /* Intel PT, hidden (leaf 7 EBX.PT above) */
    case 0x15:          /* TSC/crystal ratio: Bochs reports GHz it does not run at */
    case 0x16:
        *r = (struct cpuid_regs){ 0, 0, 0, 0 };
        break;
    case 0xd:
        xsave_leaf(subleaf, r);
        break;
    case 0x80000001:
        if (!proc2_enabled(PROC2_ENABLE_RDTSCP))
            r->edx &= ~CPUID_80000001_EDX_RDTSCP;
        break;
    default:
        break;
    }
}

/* Leaf 0xA describes the guest's virtual PMU (zero without one). */
static void guest_pmu_leaf(const struct vcpu *v, struct cpuid_regs *r)
{
    uint32_t regs[4];
    pmu_exit_cpuid_leaf_0a(v, regs);
    *r = (struct cpuid_regs){ regs[0], regs[1], regs[2], regs[3] };
}

void handle_cpuid(struct vcpu *v, const struct vmx_exit *e)
{
    uint32_t leaf = (uint32_t)v->regs.rax, subleaf = (uint32_t)v->regs.rcx;
    struct cpuid_regs r;

    if (leaf >= VERTIGO_CPUID_BASE && leaf <= HYPERVISOR_RANGE_END) {
        vertigo_leaf(leaf, &r);
    } else {
        r = cpuid(leaf, subleaf);
        filter_leaf(leaf, subleaf, &r);
        mirror_guest_cr4(v, leaf, subleaf, &r);
        if (leaf == 0xa)
            guest_pmu_leaf(v, &r);
    }
    v->regs.rax = r.eax;
    v->regs.rbx = r.ebx;
    v->regs.rcx = r.ecx;
    v->regs.rdx = r.edx;
    vmx_skip_instruction(v, e);
}
