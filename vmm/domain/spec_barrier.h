/* Speculative-execution barriers between domains (portable policy): which
 * of IBPB, the L1D flush and VERW a VCPU switch issues, and whether
 * IA32_SPEC_CTRL is each VCPU's own, all from what the CPU enumerates
 * (CPUID.(EAX=7,ECX=0):EDX and IA32_ARCH_CAPABILITIES), as KVM and Xen
 * decide them: a barrier the CPU lacks is never issued, and one against a
 * flaw the CPU says it does not have is skipped.
 *  - IBPB (PRED_CMD bit 0): when the next VCPU belongs to another domain,
 *    so no domain's indirect-branch predictions steer another's;
 *  - L1D flush (FLUSH_CMD bit 0): same, unless ARCH_CAPABILITIES says
 *    RDCL_NO (no L1TF) or SKIP_L1DFL_VMENTRY;
 *  - VERW (MD_CLEAR: clears the CPU's buffers): same, unless MDS_NO, or
 *    an L1D flush was issued (on MD_CLEAR parts it clears them too);
 *  - SPEC_CTRL (IBRS, STIBP, SSBD): saved from the outgoing VCPU and
 *    loaded for the incoming one where the CPU has it, so each domain runs
 *    under its own value (a domain's write takes only the bits its CPU
 *    enumerates).
 * The hardware is reached through struct spec_ops (vmx/vcpu_spec.c on the
 * CPU, a model in tests/unit/test_spec_barrier.c). */
#ifndef VMM_SPEC_BARRIER_H
#define VMM_SPEC_BARRIER_H

#include <stdbool.h>
#include <stdint.h>

/* CPUID.(EAX=7,ECX=0):EDX */
#define SPEC_CPUID7_MD_CLEAR    (1u << 10)
#define SPEC_CPUID7_IBRS_IBPB   (1u << 26)
#define SPEC_CPUID7_STIBP       (1u << 27)
#define SPEC_CPUID7_L1D_FLUSH   (1u << 28)
#define SPEC_CPUID7_ARCH_CAPS   (1u << 29)
#define SPEC_CPUID7_SSBD        (1u << 31)

/* IA32_ARCH_CAPABILITIES (0x10A) */
#define SPEC_ARCH_RDCL_NO            (1ull << 0)
#define SPEC_ARCH_SKIP_L1DFL_VMENTRY (1ull << 3)
#define SPEC_ARCH_MDS_NO             (1ull << 5)

#define MSR_IA32_PRED_CMD   0x049u
#define MSR_IA32_FLUSH_CMD  0x10bu
#define SPEC_CMD_BIT        1ull     /* IBPB in PRED_CMD, L1D_FLUSH in FLUSH_CMD */

/* IA32_SPEC_CTRL (0x48) bits */
#define SPEC_CTRL_IBRS  (1ull << 0)
#define SPEC_CTRL_STIBP (1ull << 1)
#define SPEC_CTRL_SSBD  (1ull << 2)

struct spec_plan {
    bool ibpb, l1d_flush, verw;     /* at a switch to another domain's VCPU */
    bool spec_ctrl;                 /* SPEC_CTRL switched per VCPU */
    uint64_t spec_ctrl_valid;       /* the bits a guest may set */
    bool pred_cmd, flush_cmd;       /* the command MSRs exist */
};

/* The plan for a CPU with these CPUID leaf 7 EDX bits and, where that
 * leaf enumerates it, this IA32_ARCH_CAPABILITIES value. */
struct spec_plan spec_plan(uint32_t cpuid7_edx, uint64_t arch_caps);

struct spec_ops {
    uint64_t (*rdmsr)(uint32_t msr);
    void (*wrmsr)(uint32_t msr, uint64_t value);
    void (*verw)(void);
};

/* One VCPU switch: *from_spec_ctrl takes the outgoing VCPU's SPEC_CTRL,
 * the incoming one's is loaded if it differs, and the barriers run when
 * other_domain. */
void spec_switch(const struct spec_plan *p, const struct spec_ops *ops,
                 uint64_t *from_spec_ctrl, uint64_t to_spec_ctrl, bool other_domain);

/* A domain's WRMSR of SPEC_CTRL, PRED_CMD or FLUSH_CMD Vertigo emulates:
 * true if the CPU takes it (the plan's bits only), false for #GP. */
bool spec_msr_write_valid(const struct spec_plan *p, uint32_t msr, uint64_t value);

#endif
