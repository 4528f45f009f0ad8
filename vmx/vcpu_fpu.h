/* A VCPU's x87, SSE and AVX registers (its XSAVE state) and XCR0 across
 * VCPU switches. VT-x switches none of them at VM entry or exit: the
 * guest's registers stay in the CPU while Vertigo runs (Vertigo itself is
 * built without them, -mgeneral-regs-only), so when another domain's VCPU
 * runs on the CPU each domain would see, and overwrite, the other's
 * registers: a Linux domain interrupted inside kernel_fpu_begin() or a
 * user process's SSE string function would compute with the other
 * domain's values. The switch saves the outgoing VCPU's state and loads
 * the incoming one's (a VCPU that never ran starts with the state after
 * reset: x87 initialized, MXCSR 0x1f80, XCR0 = 1); no register of one
 * domain is left for the next. */
#ifndef VMX_VCPU_FPU_H
#define VMX_VCPU_FPU_H

#include <stdbool.h>

struct vcpu;

/* Saves from's register state and XCR0 and loads to's, on the CPU both
 * run on. False when Vertigo's heap had no pages for either's save area
 * (nothing was switched). */
bool vcpu_fpu_switch(struct vcpu *from, struct vcpu *to);

/* v, whose state the CPU holds, starts over: the CPU's registers and
 * XCR0 get their values after reset, v's save area with them. False when
 * the heap had no page for its save area. */
bool vcpu_fpu_reset(struct vcpu *v);

#endif
