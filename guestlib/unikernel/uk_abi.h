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

/* Copy of the start-info page, filled before the program starts. */
extern struct vertigo_uk_start uk_boot_info;

#endif
