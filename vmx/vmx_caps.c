/* VT-x capability MSR interpretation: control-field computation with
 * named errors, EPT/VPID and MISC decoding, CR0/CR4 fixed bits and the
 * platform report line. Rules: Intel SDM Vol. 3D Appendix A. */
#include "vmx/vmx_caps.h"

#include <stdarg.h>

#include "lib/format.h"
#include "lib/msr.h"

#define CR0_PE (1ull << 0)   /* SDM Vol. 3A 2.5 */
#define CR0_PG (1ull << 31)
#define CTL_BITS 32

static const char *const pin_names[CTL_BITS] = {
    [0] = "external-interrupt exiting",
    [3] = "NMI exiting",
    [5] = "virtual NMIs",
    [6] = "activate VMX-preemption timer",
    [7] = "process posted interrupts",
};

static const char *const proc_names[CTL_BITS] = {
    [2]  = "interrupt-window exiting",
    [3]  = "use TSC offsetting",
    [7]  = "HLT exiting",
    [9]  = "INVLPG exiting",
    [10] = "MWAIT exiting",
    [11] = "RDPMC exiting",
    [12] = "RDTSC exiting",
    [15] = "CR3-load exiting",
    [16] = "CR3-store exiting",
    [17] = "activate tertiary controls",
    [19] = "CR8-load exiting",
    [20] = "CR8-store exiting",
    [21] = "use TPR shadow",
    [22] = "NMI-window exiting",
    [23] = "MOV-DR exiting",
    [24] = "unconditional I/O exiting",
    [25] = "use I/O bitmaps",
    [27] = "monitor trap flag",
    [28] = "use MSR bitmaps",
    [29] = "MONITOR exiting",
    [30] = "PAUSE exiting",
    [31] = "activate secondary controls",
};

static const char *const proc2_names[CTL_BITS] = {
    [0]  = "virtualize APIC accesses",
    [1]  = "enable EPT",
    [2]  = "descriptor-table exiting",
    [3]  = "enable RDTSCP",
    [4]  = "virtualize x2APIC mode",
    [5]  = "enable VPID",
    [6]  = "WBINVD exiting",
    [7]  = "unrestricted guest",
    [8]  = "APIC-register virtualization",
    [9]  = "virtual-interrupt delivery",
    [10] = "PAUSE-loop exiting",
    [11] = "RDRAND exiting",
    [12] = "enable INVPCID",
    [13] = "enable VM functions",
    [14] = "VMCS shadowing",
    [15] = "enable ENCLS exiting",
    [16] = "RDSEED exiting",
    [17] = "enable PML",
    [18] = "EPT-violation #VE",
    [19] = "conceal VMX from PT",
    [20] = "enable XSAVES/XRSTORS",
    [22] = "mode-based execute control for EPT",
    [23] = "sub-page write permissions for EPT",
    [24] = "Intel PT uses guest physical addresses",
    [25] = "use TSC scaling",
    [26] = "enable user wait and pause",
    [28] = "enable ENCLV exiting",
};

static const char *const exit_names[CTL_BITS] = {
    [2]  = "save debug controls",
    [9]  = "host address-space size",
    [12] = "load IA32_PERF_GLOBAL_CTRL",
    [15] = "acknowledge interrupt on exit",
    [18] = "save IA32_PAT",
    [19] = "load IA32_PAT",
    [20] = "save IA32_EFER",
    [21] = "load IA32_EFER",
    [22] = "save VMX-preemption timer value",
    [23] = "clear IA32_BNDCFGS",
    [24] = "conceal VMX from PT",
    [25] = "clear IA32_RTIT_CTL",
    [28] = "load CET state",
    [29] = "load PKRS",
};

static const char *const entry_names[CTL_BITS] = {
    [2]  = "load debug controls",
    [9]  = "IA-32e mode guest",
    [10] = "entry to SMM",
    [11] = "deactivate dual-monitor treatment",
    [13] = "load IA32_PERF_GLOBAL_CTRL",
    [14] = "load IA32_PAT",
    [15] = "load IA32_EFER",
    [16] = "load IA32_BNDCFGS",
    [17] = "conceal VMX from PT",
    [18] = "load IA32_RTIT_CTL",
    [20] = "load CET state",
    [22] = "load PKRS",
};

static const char *const *const ctl_bit_names[VMX_CTL_COUNT] = {
    [VMX_CTL_PIN]   = pin_names,
    [VMX_CTL_PROC]  = proc_names,
    [VMX_CTL_PROC2] = proc2_names,
    [VMX_CTL_EXIT]  = exit_names,
    [VMX_CTL_ENTRY] = entry_names,
};

static const char *const ctl_kind_names[VMX_CTL_COUNT] = {
    [VMX_CTL_PIN]   = "pin-based control",
    [VMX_CTL_PROC]  = "primary processor-based control",
    [VMX_CTL_PROC2] = "secondary processor-based control",
    [VMX_CTL_EXIT]  = "VM-exit control",
    [VMX_CTL_ENTRY] = "VM-entry control",
};

const char *vmx_ctl_bit_name(enum vmx_ctl_kind kind, unsigned bit)
{
    if ((unsigned)kind >= VMX_CTL_COUNT || bit >= CTL_BITS)
        return NULL;
    return ctl_bit_names[kind][bit];
}

const char *vmx_ctl_kind_name(enum vmx_ctl_kind kind)
{
    if ((unsigned)kind >= VMX_CTL_COUNT)
        return "unknown control";
    return ctl_kind_names[kind];
}

static uint32_t known_bits(enum vmx_ctl_kind kind)
{
    uint32_t mask = 0;

    for (unsigned bit = 0; bit < CTL_BITS; bit++)
        if (ctl_bit_names[kind][bit])
            mask |= 1u << bit;
    return mask;
}

static bool has_bit(uint64_t value, uint64_t bit)
{
    return (value & bit) != 0;
}

static uint32_t allowed1(uint64_t msr)
{
    return (uint32_t)(msr >> VMX_CTLS_ALLOWED1_SHIFT);
}

void vmx_caps_read(struct vmx_cap_msrs *caps, vmx_rdmsr_fn rdmsr, void *ctx)
{
    *caps = (struct vmx_cap_msrs){0};
    caps->basic = rdmsr(ctx, MSR_IA32_VMX_BASIC);
    caps->pinbased = rdmsr(ctx, MSR_IA32_VMX_PINBASED_CTLS);
    caps->procbased = rdmsr(ctx, MSR_IA32_VMX_PROCBASED_CTLS);
    caps->exit = rdmsr(ctx, MSR_IA32_VMX_EXIT_CTLS);
    caps->entry = rdmsr(ctx, MSR_IA32_VMX_ENTRY_CTLS);
    caps->misc = rdmsr(ctx, MSR_IA32_VMX_MISC);
    caps->cr0_fixed0 = rdmsr(ctx, MSR_IA32_VMX_CR0_FIXED0);
    caps->cr0_fixed1 = rdmsr(ctx, MSR_IA32_VMX_CR0_FIXED1);
    caps->cr4_fixed0 = rdmsr(ctx, MSR_IA32_VMX_CR4_FIXED0);
    caps->cr4_fixed1 = rdmsr(ctx, MSR_IA32_VMX_CR4_FIXED1);
    /* A.1: the TRUE_* MSRs exist only when BASIC bit 55 is 1. */
    if (has_bit(caps->basic, VMX_BASIC_TRUE_CTLS)) {
        caps->true_pinbased = rdmsr(ctx, MSR_IA32_VMX_TRUE_PINBASED_CTLS);
        caps->true_procbased = rdmsr(ctx, MSR_IA32_VMX_TRUE_PROCBASED_CTLS);
        caps->true_exit = rdmsr(ctx, MSR_IA32_VMX_TRUE_EXIT_CTLS);
        caps->true_entry = rdmsr(ctx, MSR_IA32_VMX_TRUE_ENTRY_CTLS);
    }
    /* A.3.3: PROCBASED_CTLS2 exists only if secondary controls can be 1. */
    if (allowed1(caps->procbased) & PROC_SECONDARY_CONTROLS)
        caps->procbased2 = rdmsr(ctx, MSR_IA32_VMX_PROCBASED_CTLS2);
    /* A.10: EPT_VPID_CAP exists only if EPT or VPID can be enabled. */
    if (allowed1(caps->procbased2) & (PROC2_ENABLE_EPT | PROC2_ENABLE_VPID))
        caps->ept_vpid_cap = rdmsr(ctx, MSR_IA32_VMX_EPT_VPID_CAP);
    /* A.11: VMFUNC exists only if "enable VM functions" can be 1. */
    if (allowed1(caps->procbased2) & PROC2_ENABLE_VMFUNC)
        caps->vmfunc = rdmsr(ctx, MSR_IA32_VMX_VMFUNC);
}

static int set_error(struct vmx_error *err, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int set_error(struct vmx_error *err, int status, const char *fmt, ...)
{
    va_list ap;

    if (err) {
        va_start(ap, fmt);
        fmt_vsnprintf(err->text, sizeof(err->text), fmt, ap);
        va_end(ap);
    }
    return status;
}

int vmx_caps_check_basic(const struct vmx_cap_msrs *caps, struct vmx_error *err)
{
    uint32_t size = vmx_caps_vmcs_size(caps);
    unsigned memtype = (unsigned)((caps->basic >> VMX_BASIC_MEMTYPE_SHIFT) & VMX_BASIC_MEMTYPE_MASK);
    const unsigned memtype_wb = 6;   /* A.1: only WB (6) is defined */
    const uint32_t page_bytes = 4096;

    if (size == 0 || size > page_bytes)
        return set_error(err, VMX_CAPS_BAD_BASIC,
                         "VMX: VMCS region size %u is not in 1..4096", (unsigned)size);
    if (has_bit(caps->basic, VMX_BASIC_PHYS_ADDR_32BIT))
        return set_error(err, VMX_CAPS_BAD_BASIC,
                         "VMX: VMXON/VMCS addresses limited to 32 bits (IA32_VMX_BASIC bit 48)");
    if (memtype != memtype_wb)
        return set_error(err, VMX_CAPS_BAD_BASIC,
                         "VMX: VMCS memory type %u is not write-back", memtype);
    return set_error(err, VMX_CAPS_OK, "%s", "");
}

/* The MSR holding a field's allowed settings: the TRUE variant when it
 * exists (A.3.1, A.3.2, A.4, A.5), else the original one. */
static uint64_t ctl_msr(const struct vmx_cap_msrs *caps, enum vmx_ctl_kind kind)
{
    bool use_true = vmx_caps_has_true_ctls(caps);

    switch (kind) {
    case VMX_CTL_PIN:   return use_true ? caps->true_pinbased : caps->pinbased;
    case VMX_CTL_PROC:  return use_true ? caps->true_procbased : caps->procbased;
    case VMX_CTL_PROC2: return caps->procbased2;
    case VMX_CTL_EXIT:  return use_true ? caps->true_exit : caps->exit;
    case VMX_CTL_ENTRY: return use_true ? caps->true_entry : caps->entry;
    default:            return 0;
    }
}

/* Default settings of reserved bits: the allowed-0 half of the original
 * (non-TRUE) MSR says which are default1 (A.2). Secondary controls have
 * no default1 bits. */
static uint32_t default1_bits(const struct vmx_cap_msrs *caps, enum vmx_ctl_kind kind)
{
    switch (kind) {
    case VMX_CTL_PIN:   return (uint32_t)caps->pinbased;
    case VMX_CTL_PROC:  return (uint32_t)caps->procbased;
    case VMX_CTL_EXIT:  return (uint32_t)caps->exit;
    case VMX_CTL_ENTRY: return (uint32_t)caps->entry;
    default:            return 0;
    }
}

static unsigned lowest_bit(uint32_t bits)
{
    return (unsigned)__builtin_ctz(bits);
}

static const char *bit_label(enum vmx_ctl_kind kind, unsigned bit)
{
    const char *name = vmx_ctl_bit_name(kind, bit);

    return name ? name : "reserved";
}

static int ctl_error(struct vmx_error *err, int status, enum vmx_ctl_kind kind,
                     uint32_t bits)
{
    unsigned bit = lowest_bit(bits);
    const char *what = status == VMX_CAPS_UNSUPPORTED ? "is not supported"
                     : status == VMX_CAPS_FORCED_ON ? "cannot be turned off on this CPU"
                     : "is both required and must-be-clear";
    const char *prefix = status == VMX_CAPS_UNSUPPORTED ? "required feature" : "feature";

    return set_error(err, status, "VMX: %s '%s' (%s bit %u) %s", prefix,
                     bit_label(kind, bit), vmx_ctl_kind_name(kind), bit, what);
}

int vmx_caps_control(const struct vmx_cap_msrs *caps, enum vmx_ctl_kind kind,
                     const struct vmx_ctl_request *req, uint32_t *out,
                     struct vmx_error *err)
{
    uint64_t msr;
    uint32_t must_be_1, may_be_1, unknown_default1, value;

    if ((unsigned)kind >= VMX_CTL_COUNT)
        return set_error(err, VMX_CAPS_BAD_REQUEST, "VMX: unknown control field %d", (int)kind);
    msr = ctl_msr(caps, kind);
    must_be_1 = (uint32_t)msr;           /* allowed-0 settings: 1 = must be 1 */
    may_be_1 = allowed1(msr);            /* allowed-1 settings: 0 = must be 0 */
    unknown_default1 = default1_bits(caps, kind) & ~known_bits(kind);
    if (req->required & req->must_clear)
        return ctl_error(err, VMX_CAPS_BAD_REQUEST, kind, req->required & req->must_clear);
    if (req->required & ~may_be_1)
        return ctl_error(err, VMX_CAPS_UNSUPPORTED, kind, req->required & ~may_be_1);
    if (req->must_clear & must_be_1)
        return ctl_error(err, VMX_CAPS_FORCED_ON, kind, req->must_clear & must_be_1);

    value = must_be_1 | ((req->required | req->wanted | unknown_default1) & may_be_1);
    *out = value & ~req->must_clear;
    return set_error(err, VMX_CAPS_OK, "%s", "");
}

int vmx_caps_controls(const struct vmx_cap_msrs *caps,
                      const struct vmx_ctl_request req[VMX_CTL_COUNT],
                      struct vmx_controls *out, struct vmx_error *err)
{
    struct vmx_ctl_request proc = req[VMX_CTL_PROC];
    struct vmx_controls c = {0};
    int status;

    status = vmx_caps_control(caps, VMX_CTL_PIN, &req[VMX_CTL_PIN], &c.pin, err);
    if (status == VMX_CAPS_OK)
        status = vmx_caps_control(caps, VMX_CTL_PROC2, &req[VMX_CTL_PROC2], &c.proc2, err);
    if (status != VMX_CAPS_OK)
        return status;
    if (req[VMX_CTL_PROC2].required)
        proc.required |= PROC_SECONDARY_CONTROLS;
    else if (c.proc2)
        proc.wanted |= PROC_SECONDARY_CONTROLS;
    status = vmx_caps_control(caps, VMX_CTL_PROC, &proc, &c.proc, err);
    if (status == VMX_CAPS_OK)
        status = vmx_caps_control(caps, VMX_CTL_EXIT, &req[VMX_CTL_EXIT], &c.exit, err);
    if (status == VMX_CAPS_OK)
        status = vmx_caps_control(caps, VMX_CTL_ENTRY, &req[VMX_CTL_ENTRY], &c.entry, err);
    if (status != VMX_CAPS_OK)
        return status;
    if (!(c.proc & PROC_SECONDARY_CONTROLS))
        c.proc2 = 0;    /* ignored by the processor; keep the record honest */
    *out = c;
    return VMX_CAPS_OK;
}

bool vmx_caps_can_set(const struct vmx_cap_msrs *caps, enum vmx_ctl_kind kind,
                      uint32_t bits)
{
    return (bits & ~allowed1(ctl_msr(caps, kind))) == 0;
}

void vmx_caps_ept(const struct vmx_cap_msrs *caps, struct vmx_ept_caps *out)
{
    uint64_t cap = caps->ept_vpid_cap;
    bool ept = vmx_caps_can_set(caps, VMX_CTL_PROC2, PROC2_ENABLE_EPT);
    bool vpid = vmx_caps_can_set(caps, VMX_CTL_PROC2, PROC2_ENABLE_VPID);

    *out = (struct vmx_ept_caps){0};
    out->ept = ept;
    out->vpid = vpid;
    if (ept) {
        out->walk_4level = has_bit(cap, EPT_CAP_WALK_4);
        out->memtype_uc = has_bit(cap, EPT_CAP_MEMTYPE_UC);
        out->memtype_wb = has_bit(cap, EPT_CAP_MEMTYPE_WB);
        out->page_2m = has_bit(cap, EPT_CAP_PAGE_2M);
        out->page_1g = has_bit(cap, EPT_CAP_PAGE_1G);
        out->ad_flags = has_bit(cap, EPT_CAP_AD_FLAGS);
        out->exec_only = has_bit(cap, EPT_CAP_EXEC_ONLY);
        out->advanced_exit_info = has_bit(cap, EPT_CAP_ADVANCED_EXIT_INFO);
        out->invept = has_bit(cap, EPT_CAP_INVEPT);
        out->invept_single = out->invept && has_bit(cap, EPT_CAP_INVEPT_SINGLE);
        out->invept_all = out->invept && has_bit(cap, EPT_CAP_INVEPT_ALL);
    }
    if (vpid) {
        out->invvpid = has_bit(cap, VPID_CAP_INVVPID);
        out->invvpid_addr = out->invvpid && has_bit(cap, VPID_CAP_INVVPID_ADDR);
        out->invvpid_single = out->invvpid && has_bit(cap, VPID_CAP_INVVPID_SINGLE);
        out->invvpid_all = out->invvpid && has_bit(cap, VPID_CAP_INVVPID_ALL);
        out->invvpid_single_globals = out->invvpid && has_bit(cap, VPID_CAP_INVVPID_SINGLE_GLOBALS);
    }
}

uint32_t vmx_caps_revision(const struct vmx_cap_msrs *caps)
{
    return (uint32_t)(caps->basic & VMX_BASIC_REVISION_MASK);
}

uint32_t vmx_caps_vmcs_size(const struct vmx_cap_msrs *caps)
{
    return (uint32_t)((caps->basic >> VMX_BASIC_REGION_SIZE_SHIFT) & VMX_BASIC_REGION_SIZE_MASK);
}

bool vmx_caps_has_true_ctls(const struct vmx_cap_msrs *caps)
{
    return has_bit(caps->basic, VMX_BASIC_TRUE_CTLS);
}

unsigned vmx_caps_preemption_tsc_shift(const struct vmx_cap_msrs *caps)
{
    return (unsigned)(caps->misc & VMX_MISC_PREEMPT_TSC_SHIFT_MASK);
}

bool vmx_caps_activity_state(const struct vmx_cap_msrs *caps,
                             enum vmx_activity_state state)
{
    switch (state) {
    case VMX_ACTIVITY_ACTIVE:    return true;
    case VMX_ACTIVITY_HLT:       return has_bit(caps->misc, VMX_MISC_ACTIVITY_HLT);
    case VMX_ACTIVITY_SHUTDOWN:  return has_bit(caps->misc, VMX_MISC_ACTIVITY_SHUTDOWN);
    case VMX_ACTIVITY_WAIT_SIPI: return has_bit(caps->misc, VMX_MISC_ACTIVITY_WAIT_SIPI);
    default:                     return false;
    }
}

unsigned vmx_caps_max_msr_list(const struct vmx_cap_msrs *caps)
{
    unsigned n = (unsigned)((caps->misc >> VMX_MISC_MSR_LIST_SHIFT) & VMX_MISC_MSR_LIST_MASK);

    return VMX_MISC_MSR_LIST_UNIT * (n + 1);
}

uint64_t vmx_caps_fix_cr0(const struct vmx_cap_msrs *caps, uint64_t cr0,
                          bool unrestricted_guest)
{
    uint64_t must_be_1 = caps->cr0_fixed0;

    if (unrestricted_guest)
        must_be_1 &= ~(CR0_PE | CR0_PG);
    return (cr0 | must_be_1) & caps->cr0_fixed1;
}

uint64_t vmx_caps_fix_cr4(const struct vmx_cap_msrs *caps, uint64_t cr4)
{
    return (cr4 | caps->cr4_fixed0) & caps->cr4_fixed1;
}

/* ---- the platform report line ---- */

struct text_out {
    char *buf;
    size_t size;
    size_t len;     /* length of the full text so far */
};

static void put(struct text_out *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void put(struct text_out *t, const char *fmt, ...)
{
    size_t room = t->len < t->size ? t->size - t->len : 0;
    char *dst = room ? t->buf + t->len : NULL;
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = fmt_vsnprintf(dst, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len += (size_t)n;
}

static void put_feature(struct text_out *t, const char *name, bool present)
{
    put(t, ", %s%s", name, present ? "" : " no");
}

static void describe_ept(struct text_out *t, const struct vmx_ept_caps *ept)
{
    if (!ept->ept) {
        put(t, ", EPT no");
        return;
    }
    put(t, ", EPT");
    if (ept->walk_4level)
        put(t, " 4-level");
    if (ept->page_2m)
        put(t, " 2M");
    if (ept->page_1g)
        put(t, " 1G");
    if (ept->ad_flags)
        put(t, " A/D");
}

static void describe_perf_global(struct text_out *t, const struct vmx_cap_msrs *caps)
{
    bool entry = vmx_caps_can_set(caps, VMX_CTL_ENTRY, ENTRY_LOAD_PERF_GLOBAL_CTRL);
    bool exit = vmx_caps_can_set(caps, VMX_CTL_EXIT, EXIT_LOAD_PERF_GLOBAL_CTRL);

    put(t, ", load PERF_GLOBAL_CTRL %s",
        entry && exit ? "entry+exit" : entry ? "entry" : exit ? "exit" : "no");
}

int vmx_caps_describe(const struct vmx_cap_msrs *caps, char *buf, size_t size)
{
    struct text_out t = { .buf = buf, .size = size, .len = 0 };
    struct vmx_ept_caps ept;

    if (buf && size)
        buf[0] = '\0';
    vmx_caps_ept(caps, &ept);
    put(&t, "vmx: rev %#x", (unsigned)vmx_caps_revision(caps));
    describe_ept(&t, &ept);
    put_feature(&t, "VPID", ept.vpid);
    put_feature(&t, "unrestricted guest",
                vmx_caps_can_set(caps, VMX_CTL_PROC2, PROC2_UNRESTRICTED_GUEST));
    if (vmx_caps_can_set(caps, VMX_CTL_PIN, PIN_PREEMPTION_TIMER))
        put(&t, ", preemption timer (TSC>>%u)", vmx_caps_preemption_tsc_shift(caps));
    else
        put(&t, ", preemption timer no");
    put_feature(&t, "MTF", vmx_caps_can_set(caps, VMX_CTL_PROC, PROC_MONITOR_TRAP_FLAG));
    describe_perf_global(&t, caps);
    put_feature(&t, "NMI exiting", vmx_caps_can_set(caps, VMX_CTL_PIN, PIN_NMI_EXITING));
    put_feature(&t, "virtual NMIs", vmx_caps_can_set(caps, VMX_CTL_PIN, PIN_VIRTUAL_NMIS));
    return (int)t.len;
}
