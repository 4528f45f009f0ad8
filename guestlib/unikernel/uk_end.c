/* The end of the domain (CPL 0): the verdict hypercall with its reason,
 * then VERTIGO_HC_POWER_OFF, which does not return. */
#include "guestlib/unikernel/uk_kernel.h"
#include "guestlib/vertigo_vmcall.h"

void uk_end(int pass, const char *reason)
{
    vertigo_hypercall2(VERTIGO_HC_SET_VERDICT, pass ? 0 : 1, (uint64_t)reason);
    vertigo_hypercall0(VERTIGO_HC_POWER_OFF);
    uk_console_puts("unikernel: VERTIGO_HC_POWER_OFF returned; halting\n");
    for (;;)
        __asm__ volatile("cli; hlt");
}
