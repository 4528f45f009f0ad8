/* What the mode traps make exit and Vertigo completes for the guest (see
 * vmx/mode_trap.h): SYSCALL and SYSRET, which raise #UD while EFER.SCE is
 * hidden, are emulated as the processor executes them (SDM Vol. 2B,
 * SYSCALL and SYSRET, 64-bit mode); every other exception goes back to the
 * guest as the processor would have delivered it. */
#include "vmx/mode_trap.h"

#include "lib/cpu.h"
#include "lib/msr.h"
#include "vmx/guest_mem.h"
#include "vmx/vmx_ops.h"

#define VEC_DB             1
#define VEC_DF             8
#define VEC_PF             14
#define INSN_MAX           15u          /* longest x86 instruction */
#define RFLAGS_TF          (1ull << 8)
#define RFLAGS_RF          (1ull << 16)
#define RFLAGS_FIXED       (1ull << 1)
#define SYSRET_RFLAGS_MASK 0x3c7fd7ull  /* RFLAGS bits SYSRET takes from R11 */
#define PENDING_DBG_BS     (1ull << 14) /* single step (SDM Vol. 3C 25.4.2) */
#define DR6_FIXED          0xffff0ff0ull
#define DR6_FROM_EXIT      0x600full    /* B0-B3, BD, BS of the exit qualification */
#define CS_L               (1u << 13)   /* access rights: 64-bit code segment */
/* Access rights of the flat segments SYSCALL and SYSRET load (SDM Vol. 3C
 * 24.4.1): present, S=1, G=1; code execute/read (L=1, or D=1 for 32-bit),
 * data read/write with B=1; DPL 0 or 3. */
#define AR_CODE64_DPL0     0xa09bu
#define AR_DATA_DPL0       0xc093u
#define AR_CODE64_DPL3     0xa0fbu
#define AR_CODE32_DPL3     0xc0fbu
#define AR_DATA_DPL3       0xc0f3u
#define FLAT_LIMIT         0xffffffffu

enum trapped_insn { INSN_OTHER, INSN_SYSCALL, INSN_SYSRET, INSN_SYSRETQ };

/* ---- Decoding the instruction at the guest's RIP ---------------------------- */

static bool is_legacy_prefix(uint8_t b)
{
    return b == 0x66 || b == 0x67 || b == 0xf0 || b == 0xf2 || b == 0xf3 ||
           b == 0x2e || b == 0x36 || b == 0x3e || b == 0x26 || b == 0x64 || b == 0x65;
}

/* SYSCALL (0F 05) or SYSRET (0F 07, REX.W for the 64-bit return) after any
 * prefixes; *len gets the instruction's length. The bytes are fetched
 * through this CPU's fetch cache (guest_virt_fetch), which proves each hit
 * still holds: a process's trapped system calls and returns come from a
 * few instructions (its C library's, the kernel's return path), so their
 * pages' translations are walked once, not at every exit (a walk reads
 * four levels of the guest's tables, each through the EPT). */
static enum trapped_insn decode(struct vcpu *v, uint64_t rip, unsigned int *len)
{
    uint8_t b[INSN_MAX];
    unsigned int i = 0, n = (unsigned int)guest_virt_fetch(v, rip, b, INSN_MAX);
    bool rex_w = false;
    while (i + 2 < n && is_legacy_prefix(b[i]))
        i++;
    if (i + 2 > n)
        return INSN_OTHER;
    if ((b[i] & 0xf0) == 0x40 && i + 3 <= n) {
        rex_w = (b[i] & 0x08) != 0;
        i++;
    }
    if (b[i] != 0x0f || (b[i + 1] != 0x05 && b[i + 1] != 0x07))
        return INSN_OTHER;
    *len = i + 2;
    if (b[i + 1] == 0x05)
        return INSN_SYSCALL;
    return rex_w ? INSN_SYSRETQ : INSN_SYSRET;
}

/* ---- SYSCALL and SYSRET --------------------------------------------------------- */

static void load_flat(uint32_t sel_field, uint32_t ar_field, uint32_t base_field,
                      uint32_t limit_field, uint16_t selector, uint32_t ar)
{
    vmcs_write(sel_field, selector);
    vmcs_write(ar_field, ar);
    vmcs_write(base_field, 0);
    vmcs_write(limit_field, FLAT_LIMIT);
}

static void load_cs(uint16_t selector, uint32_t ar)
{
    load_flat(VMCS_GUEST_CS_SELECTOR, VMCS_GUEST_CS_ACCESS_RIGHTS, VMCS_GUEST_CS_BASE,
              VMCS_GUEST_CS_LIMIT, selector, ar);
}

static void load_ss(uint16_t selector, uint32_t ar)
{
    load_flat(VMCS_GUEST_SS_SELECTOR, VMCS_GUEST_SS_ACCESS_RIGHTS, VMCS_GUEST_SS_BASE,
              VMCS_GUEST_SS_LIMIT, selector, ar);
}

/* A single-stepped SYSCALL or SYSRET traps after it, as on hardware. */
static void step_trap_after(uint64_t rflags_before)
{
    if (rflags_before & RFLAGS_TF)
        vmcs_write(VMCS_GUEST_PENDING_DBG_EXCEPTIONS,
                   vmcs_read(VMCS_GUEST_PENDING_DBG_EXCEPTIONS) | PENDING_DBG_BS);
}

/* 64-bit mode only: SYSCALL from compatibility mode is #UD on Intel. */
static bool emulate_syscall(struct vcpu *v, uint64_t rip, unsigned int len)
{
    if (!(vmcs_read(VMCS_GUEST_CS_ACCESS_RIGHTS) & CS_L))
        return false;
    uint64_t rflags = vmcs_read(VMCS_GUEST_RFLAGS);
    uint16_t cs = (uint16_t)(rdmsr(MSR_IA32_STAR) >> 32) & 0xfffc;
    v->regs.rcx = rip + len;
    v->regs.r11 = rflags & ~RFLAGS_RF;
    vmcs_write(VMCS_GUEST_RIP, rdmsr(MSR_IA32_LSTAR));
    v->vmx.rip_moved = true;
    vmcs_write(VMCS_GUEST_RFLAGS, (rflags & ~rdmsr(MSR_IA32_FMASK) & ~RFLAGS_RF) | RFLAGS_FIXED);
    load_cs(cs, AR_CODE64_DPL0);
    load_ss((uint16_t)(cs + 8), AR_DATA_DPL0);
    step_trap_after(rflags);
    v->vmx.traps.syscalls++;
    return true;
}

static bool canonical(uint64_t a)
{
    return (uint64_t)((int64_t)(a << 16) >> 16) == a;
}

/* CPL 0 in 64-bit mode; a non-canonical RCX faults in the kernel (#GP). */
static bool emulate_sysret(struct vcpu *v, bool to_64bit)
{
    if (!(vmcs_read(VMCS_GUEST_CS_ACCESS_RIGHTS) & CS_L))
        return false;
    if (vmx_guest_cpl() != 0 || (to_64bit && !canonical(v->regs.rcx))) {
        vmx_inject_gp();
        return true;
    }
    uint64_t rflags = vmcs_read(VMCS_GUEST_RFLAGS);
    uint16_t base = (uint16_t)(rdmsr(MSR_IA32_STAR) >> 48);
    vmcs_write(VMCS_GUEST_RIP, to_64bit ? v->regs.rcx : (uint32_t)v->regs.rcx);
    v->vmx.rip_moved = true;
    vmcs_write(VMCS_GUEST_RFLAGS, (v->regs.r11 & SYSRET_RFLAGS_MASK) | RFLAGS_FIXED);
    if (to_64bit)
        load_cs((uint16_t)((base + 16) | 3), AR_CODE64_DPL3);
    else
        load_cs((uint16_t)(base | 3), AR_CODE32_DPL3);
    load_ss((uint16_t)((base + 8) | 3), AR_DATA_DPL3);
    step_trap_after(rflags);
    v->vmx.traps.sysrets++;
    return true;
}

/* True if the #UD came from a SYSCALL or SYSRET the guest may execute. */
static bool emulate_ud(struct vcpu *v, const struct vmx_exit *e)
{
    unsigned int len = 0;
    if (!v->vmx.traps.guest_sce)
        return false;           /* the guest's own EFER says #UD */
    switch (decode(v, e->rip, &len)) {
    case INSN_SYSCALL:
        return emulate_syscall(v, e->rip, len);
    case INSN_SYSRET:
        return emulate_sysret(v, false);
    case INSN_SYSRETQ:
        return emulate_sysret(v, true);
    default:
        return false;
    }
}

/* ---- Exceptions back to the guest ------------------------------------------------- */

static bool contributory(unsigned int vector)
{
    return vector == 0 || (vector >= 10 && vector <= 13);
}

/* An exception raised while delivering another one becomes a double fault
 * where the processor would make it one (SDM Vol. 3A 6.15, table 6-5). */
static bool double_fault(unsigned int vector)
{
    uint32_t idt = (uint32_t)vmcs_read(VMCS_IDT_VECTORING_INFO);
    uint32_t type = (idt & INTR_INFO_TYPE_MASK) >> INTR_INFO_TYPE_SHIFT;
    if (!(idt & INTR_INFO_VALID) || type != INTR_TYPE_HW_EXCEPTION)
        return false;
    unsigned int first = idt & INTR_INFO_VECTOR_MASK;
    bool second_bad = contributory(vector) || vector == VEC_PF;
    return (contributory(first) && contributory(vector)) || (first == VEC_PF && second_bad);
}

/* The processor's own side effects of delivering vector: CR2 for a page
 * fault, DR6 for a debug exception (neither is written by the exit, SDM
 * Vol. 3C 28.1), and the NMI blocking a faulting IRET had lifted. */
static void restore_side_effects(const struct vmx_exit *e, uint32_t info, unsigned int vector)
{
    if (vector == VEC_PF)
        write_cr2(e->qualification);
    if (vector == VEC_DB)
        write_dr6(DR6_FIXED | (e->qualification & DR6_FROM_EXIT));
    if ((info & INTR_INFO_NMI_UNBLOCKING) && vector != VEC_DF)
        vmcs_write(VMCS_GUEST_INTERRUPTIBILITY,
                   vmcs_read(VMCS_GUEST_INTERRUPTIBILITY) | INTERRUPTIBILITY_NMI);
}

static void reinject(const struct vmx_exit *e, uint32_t info)
{
    unsigned int vector = info & INTR_INFO_VECTOR_MASK;
    uint32_t type = (info & INTR_INFO_TYPE_MASK) >> INTR_INFO_TYPE_SHIFT;
    restore_side_effects(e, info, vector);
    if (double_fault(vector)) {
        vmx_inject_exception(VEC_DF, true, 0);
        return;
    }
    uint32_t entry = INTR_INFO(vector, type) | (info & INTR_INFO_ERROR_CODE_VALID);
    if (info & INTR_INFO_ERROR_CODE_VALID)
        vmcs_write(VMCS_ENTRY_EXCEPTION_ERROR_CODE, vmcs_read(VMCS_EXIT_INTR_ERROR_CODE));
    if (type == INTR_TYPE_SW_EXCEPTION || type == INTR_TYPE_PRIV_SW_EXCEPTION)
        vmcs_write(VMCS_ENTRY_INSTRUCTION_LEN, e->instruction_len);
    vmcs_write(VMCS_ENTRY_INTR_INFO, entry);
}

bool vmx_mode_traps_exception(struct vcpu *v, const struct vmx_exit *e, uint32_t info)
{
    if (!v->vmx.traps.on)
        return false;
    unsigned int vector = info & INTR_INFO_VECTOR_MASK;
    if (vector == VEC_UD && emulate_ud(v, e))
        return true;
    v->vmx.traps.exceptions++;
    reinject(e, info);
    return true;
}
