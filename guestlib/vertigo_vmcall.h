/* The guest's raw access to Vertigo, shared by the guest kernel module
 * (guestlib/kmod/vertigo.c) and the guest programs (through
 * guestlib/vertigo_guest.h): the VMCALL wrappers of the hypercall ABI
 * (include/vertigo/hypercall.h), Vertigo's CPUID signature check, and the
 * errno value of a hypercall error. Header-only and library-free, so it
 * compiles in the Linux kernel (__KERNEL__) and in user space alike.
 *
 * The wrappers are forced inline: a program that measures a window between
 * two hypercalls sees only the register setup and the VMCALL itself. */
#ifndef GUESTLIB_VERTIGO_VMCALL_H
#define GUESTLIB_VERTIGO_VMCALL_H

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/types.h>
#else
#include <errno.h>
#include <stdint.h>
#endif

#include "vertigo/hypercall.h"

#define VERTIGO_CPUID_LEAF_FEATURES   0x1u
#define VERTIGO_CPUID1_ECX_HYPERVISOR (1u << 31)  /* a hypervisor is present */

#define VERTIGO_ALWAYS_INLINE static inline __attribute__((always_inline))

/* Hypercall `nr` without arguments (RAX = nr). Returns RAX: >= 0 the call's
 * result, negative -VERTIGO_E*. Only under Vertigo (vertigo_present()):
 * elsewhere VMCALL raises #UD or means whatever another hypervisor makes
 * of it. */
VERTIGO_ALWAYS_INLINE int64_t vertigo_hypercall0(uint64_t nr)
{
    int64_t ret;
    __asm__ volatile("vmcall" : "=a"(ret) : "a"(nr) : "memory");
    return ret;
}

/* Hypercall `nr` with one argument (RBX = arg0); as vertigo_hypercall0. */
VERTIGO_ALWAYS_INLINE int64_t vertigo_hypercall1(uint64_t nr, uint64_t arg0)
{
    int64_t ret;
    __asm__ volatile("vmcall" : "=a"(ret) : "a"(nr), "b"(arg0) : "memory");
    return ret;
}

/* Hypercall `nr` with two arguments (RBX = arg0, RCX = arg1); as
 * vertigo_hypercall0. */
VERTIGO_ALWAYS_INLINE int64_t vertigo_hypercall2(uint64_t nr, uint64_t arg0, uint64_t arg1)
{
    int64_t ret;
    __asm__ volatile("vmcall" : "=a"(ret) : "a"(nr), "b"(arg0), "c"(arg1) : "memory");
    return ret;
}

/* The four registers one CPUID leaf returns. */
struct vertigo_cpuid_regs {
    uint32_t eax, ebx, ecx, edx;
};

/* CPUID `leaf` (subleaf 0), from any privilege level (Intel SDM Vol. 2A,
 * CPUID). */
VERTIGO_ALWAYS_INLINE struct vertigo_cpuid_regs vertigo_cpuid(uint32_t leaf)
{
    struct vertigo_cpuid_regs r;
    __asm__ volatile("cpuid" : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
                     : "a"(leaf), "c"(0u));
    return r;
}

/* 1 when CPUID reports a hypervisor (leaf 1, ECX bit 31) and that
 * hypervisor's signature at VERTIGO_CPUID_BASE is VERTIGO_CPUID_SIGNATURE;
 * else 0. The check to make before any hypercall. */
VERTIGO_ALWAYS_INLINE int vertigo_present(void)
{
    struct vertigo_cpuid_regs r = vertigo_cpuid(VERTIGO_CPUID_LEAF_FEATURES);

    if (!(r.ecx & VERTIGO_CPUID1_ECX_HYPERVISOR))
        return 0;
    r = vertigo_cpuid(VERTIGO_CPUID_BASE);
    return r.ebx == VERTIGO_CPUID_SIG_EBX && r.ecx == VERTIGO_CPUID_SIG_ECX &&
           r.edx == VERTIGO_CPUID_SIG_EDX;
}

/* The errno value of a hypercall result: 0 for a success (>= 0), else the
 * positive errno of the -VERTIGO_E* code (ENOSYS, EINVAL, EPERM, EFAULT,
 * EBUSY, EACCES, ENOMEM, E2BIG, ERANGE; EFAULT for EMMIO: like an address
 * the kernel refuses to copy from), EIO for a code this ABI does not define. */
VERTIGO_ALWAYS_INLINE int vertigo_errno(int64_t result)
{
    if (result >= 0)
        return 0;
    switch (result) {
    case -VERTIGO_ENOSYS: return ENOSYS;
    case -VERTIGO_EINVAL: return EINVAL;
    case -VERTIGO_EPERM:  return EPERM;
    case -VERTIGO_EFAULT: return EFAULT;
    case -VERTIGO_EBUSY:  return EBUSY;
    case -VERTIGO_EACCES: return EACCES;
    case -VERTIGO_EMMIO:  return EFAULT;
    case -VERTIGO_ENOMEM: return ENOMEM;
    case -VERTIGO_E2BIG:  return E2BIG;
    case -VERTIGO_ERANGE: return ERANGE;
    default:             return EIO;
    }
}

#endif
