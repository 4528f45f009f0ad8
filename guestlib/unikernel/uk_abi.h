/* The unikernel runtime's interface between its CPL-3 side (the program and
 * newlib's system-call stubs) and its CPL-0 side: the system calls of the
 * INT 0x80 gate, and the boot information the kernel side keeps for the
 * program. Calling convention of INT 0x80: RAX = call number, arguments in
 * RDI, RSI, RDX; result in RAX (>= 0, or a negative newlib errno value);
 * every other register is preserved. */
#ifndef GUESTLIB_UNIKERNEL_UK_ABI_H
#define GUESTLIB_UNIKERNEL_UK_ABI_H

#include <stdint.h>

#include "include/vertigo/unikernel.h"

#define UK_SYSCALL_VECTOR 0x80

#define UK_SYS_WRITE 1   /* fd (1 or 2), buffer, length -> bytes written */
#define UK_SYS_EXIT  2   /* status: verdict PASS iff 0, then power off */
/* For tests of Vertigo's isolation (tests/e2e/unikernel.sh), never needed by
 * a program that only computes: */
#define UK_SYS_MAP_PAST_RAM 3   /* guest-physical address at or past the end of
                                   the domain's RAM, below 4 GiB: its 2 MiB page
                                   mapped for user mode at the same virtual
                                   address -> 0; -EINVAL inside RAM or above */
#define UK_SYS_CONSOLE_RAW  4   /* address, length: passed unchecked from CPL 0
                                   to VERTIGO_HC_CONSOLE_WRITE -> Vertigo's
                                   result (so Vertigo's own pointer checks,
                                   not the runtime's, are what is tested) */
#define UK_SYS_TRIPLE_FAULT 5   /* loads an empty IDT and raises #UD: the CPU
                                   finds no gate for it, nor for the #GP and #DF
                                   that follow, and shuts down (a triple fault,
                                   SDM Vol. 3A 6.15, "Interrupt 8"); never
                                   returns */
#define UK_SYS_HYPERCALL    6   /* number, RBX, RCX: a hypercall from CPL 0
                                   as given -> Vertigo's result (kernel-only
                                   calls of a hostile kernel) */
#define UK_SYS_PROBE        7   /* kind, a, b: one privileged instruction
                                   from CPL 0 with its fault caught -> 0, or
                                   minus the exception's vector */
#define UK_PROBE_WRMSR      1   /* a = MSR, b = value */
#define UK_PROBE_RDMSR      2   /* a = MSR; the value is not returned */
#define UK_PROBE_XRSTORS_PT 3   /* XRSTORS of an area holding Intel PT's
                                   state (component 8), CR4.OSXSAVE set for it */

/* Copy of the start-info page, filled before the program starts. */
extern struct vertigo_uk_start uk_boot_info;

#endif
