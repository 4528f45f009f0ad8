/* Checked wrappers for the VMX instructions (SDM Vol. 3C, 31.2
 * "Conventions": VMfailInvalid sets CF, VMfailValid sets ZF and stores the
 * VM-instruction error in the current VMCS). A failure here is a Vertigo
 * bug, not guest behaviour: the wrappers report the instruction, the
 * error and the caller, then panic. */
#ifndef VMX_VMX_OPS_H
#define VMX_VMX_OPS_H

#include <stdint.h>

#include "vmx/vmcs_fields.h"
#include "vmx/vmx_defs.h"

/* Status of a VMX instruction: 0 succeeded, 1 VMfailInvalid, 2 VMfailValid. */
static inline int vmx_status(uint8_t cf, uint8_t zf)
{
    return cf ? 1 : (zf ? 2 : 0);
}

__attribute__((noreturn, cold)) void vmx_instruction_failed(const char *insn, uint64_t operand,
                                                      int status, void *caller);

#define VMX_CHECK(insn, operand, cf, zf)                                        \
    do {                                                                       \
        int st_ = vmx_status(cf, zf);                                          \
        if (st_)                                                               \
            vmx_instruction_failed(insn, operand, st_, __builtin_return_address(0)); \
    } while (0)

static inline void vmxon(uint64_t pa)
{
    uint8_t cf, zf;
    __asm__ volatile("vmxon %2; setc %0; setz %1"
                     : "=q"(cf), "=q"(zf) : "m"(pa) : "cc", "memory");
    VMX_CHECK("VMXON", pa, cf, zf);
}

static inline void vmclear(uint64_t pa)
{
    uint8_t cf, zf;
    __asm__ volatile("vmclear %2; setc %0; setz %1"
                     : "=q"(cf), "=q"(zf) : "m"(pa) : "cc", "memory");
    VMX_CHECK("VMCLEAR", pa, cf, zf);
}

static inline void vmptrld(uint64_t pa)
{
    uint8_t cf, zf;
    __asm__ volatile("vmptrld %2; setc %0; setz %1"
                     : "=q"(cf), "=q"(zf) : "m"(pa) : "cc", "memory");
    VMX_CHECK("VMPTRLD", pa, cf, zf);
}

/* VMREAD and VMWRITE run a dozen times or more per VM exit: their check
 * is one branch, JBE (CF or ZF set: either failure), to an out-of-line
 * jump pair that tells the two apart by CF (asm goto; the flags survive
 * the jump). */
#define VMX_FAIL_BRANCH                                     \
    "jbe 1f\n\t"                                            \
    ".pushsection .text.unlikely.vmx_fail, \"ax\"\n"        \
    "1:\tjc %l[fail_invalid]\n\t"                           \
    "jmp %l[fail_valid]\n\t"                                \
    ".popsection"

static inline void vmcs_write(uint64_t field, uint64_t value)
{
    __asm__ goto("vmwrite %1, %0\n\t" VMX_FAIL_BRANCH
                 : : "r"(field), "rm"(value) : "cc", "memory" : fail_invalid, fail_valid);
    return;
fail_invalid:
    vmx_instruction_failed("VMWRITE", field, 1, __builtin_return_address(0));
fail_valid:
    vmx_instruction_failed("VMWRITE", field, 2, __builtin_return_address(0));
}

static inline uint64_t vmcs_read(uint64_t field)
{
    uint64_t value;
    __asm__ goto("vmread %1, %0\n\t" VMX_FAIL_BRANCH
                 : "=r"(value) : "r"(field) : "cc", "memory" : fail_invalid, fail_valid);
    return value;
fail_invalid:
    vmx_instruction_failed("VMREAD", field, 1, __builtin_return_address(0));
fail_valid:
    vmx_instruction_failed("VMREAD", field, 2, __builtin_return_address(0));
}

static inline void invept(uint64_t type, uint64_t eptp)
{
    struct invept_desc d = { eptp, 0 };
    uint8_t cf, zf;
    __asm__ volatile("invept %2, %3; setc %0; setz %1"
                     : "=q"(cf), "=q"(zf) : "m"(d), "r"(type) : "cc", "memory");
    VMX_CHECK("INVEPT", type, cf, zf);
}

static inline void invvpid(uint64_t type, uint16_t vpid)
{
    struct invvpid_desc d = { .vpid = vpid };
    uint8_t cf, zf;
    __asm__ volatile("invvpid %2, %3; setc %0; setz %1"
                     : "=q"(cf), "=q"(zf) : "m"(d), "r"(type) : "cc", "memory");
    VMX_CHECK("INVVPID", type, cf, zf);
}

#endif
