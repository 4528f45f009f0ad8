/* Vertigo hypercall ABI, shared by the hypervisor, the guest library and
 * guest tools. Stable across builds: a call keeps its number and meaning;
 * new calls get new numbers and a feature bit.
 *
 * Discovery: CPUID leaf 0x40000000 returns EAX = highest Vertigo leaf and
 * EBX:ECX:EDX = VERTIGO_CPUID_SIGNATURE; leaf 0x40000001 returns EAX =
 * VERTIGO_HYPERCALL_VERSION and EBX = feature bits (VERTIGO_FEAT_*).
 *
 * Calling convention: VMCALL with RAX = call number, arguments in RBX,
 * RCX, RDX, RSI; the result comes back in RAX: >= 0 success, negative =
 * -VERTIGO_E*. Other registers are preserved. Calls marked "kernel only"
 * are refused with -VERTIGO_EPERM from guest user mode (CPL 3). */
#ifndef VERTIGO_HYPERCALL_H
#define VERTIGO_HYPERCALL_H

#define VERTIGO_CPUID_BASE          0x40000000u
#define VERTIGO_CPUID_FEATURES      0x40000001u
#define VERTIGO_CPUID_SIGNATURE     "VertigoVMM\0\0"   /* 12 bytes: EBX, ECX, EDX */
#define VERTIGO_CPUID_SIG_EBX       0x74726556u        /* "Vert" */
#define VERTIGO_CPUID_SIG_ECX       0x566f6769u        /* "igoV" */
#define VERTIGO_CPUID_SIG_EDX       0x00004d4du        /* "MM\0\0" */

#define VERTIGO_HYPERCALL_VERSION   1u

/* Call numbers (RAX). */
#define VERTIGO_HC_VERSION          0u  /* -> version << 32 | features */
#define VERTIGO_HC_SET_VERDICT      1u  /* RBX = 0 pass, 1 fail; RCX = guest
                                           address of a NUL-terminated reason
                                           (up to 63 bytes) or 0. Any CPL. */

#define VERTIGO_HC_PMU_READ         2u  /* RBX = index of an event in the calling
                                           VCPU's counting session (the order of
                                           pmu.events= on Vertigo's command line),
                                           or VERTIGO_PMU_EVENT_COUNT -> the count
                                           of that event so far for the calling
                                           VCPU (counts are below 2^63), or the
                                           number of events (0: no session).
                                           -VERTIGO_EINVAL for an index beyond the
                                           list. Any CPL (reads only the caller's
                                           own counts). */
#define VERTIGO_HC_PMU_STEP         3u  /* RBX = step granularity of the software
                                           PMU while the calling VCPU runs in user
                                           mode, in TSC ticks (1 = one instruction
                                           per step in Bochs, slow; kernel mode
                                           keeps pmu.step=), 0 = back to pmu.step=
                                           -> the previous granularity. -VERTIGO_EINVAL
                                           unless a software-backend session
                                           runs. Any CPL (a measurement control:
                                           it slows the caller's VCPU only). */

#define VERTIGO_HC_COUNT            4u

/* HC_PMU_READ's RBX asking for the number of events in the session. */
#define VERTIGO_PMU_EVENT_COUNT     0xffffffffu

/* Feature bits (CPUID 0x40000001 EBX, and the low half of HC_VERSION). */
#define VERTIGO_FEAT_VERDICT        (1u << 0)
#define VERTIGO_FEAT_PMU            (1u << 1)   /* HC_PMU_READ, HC_PMU_STEP */
#define VERTIGO_FEATURES            (VERTIGO_FEAT_VERDICT | VERTIGO_FEAT_PMU)

/* Errors (returned negated in RAX). */
#define VERTIGO_ENOSYS   1   /* unknown call number */
#define VERTIGO_EINVAL   2   /* bad argument */
#define VERTIGO_EPERM    3   /* not allowed from this privilege level */
#define VERTIGO_EFAULT   4   /* a guest address could not be read */

#endif
