/* Human-readable texts of VM-instruction errors, for the checked
 * VMX-instruction wrappers and the VM-entry failure report. Portable. */
#ifndef VMX_VMX_ERRORS_H
#define VMX_VMX_ERRORS_H

#include <stdint.h>

/* Text of a VM-instruction error number (SDM Vol. 3C 31.4), e.g.
 * "VM entry with invalid control field(s)" for 7. Never NULL: unknown
 * numbers give "unknown VM-instruction error"; 0 gives "no error". */
const char *vmx_instruction_error_text(uint32_t error);

#endif
