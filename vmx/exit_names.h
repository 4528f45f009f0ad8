/* Human-readable names for VM-exit reasons and VM-instruction errors,
 * used by exit statistics, exit dumps and the checked VMX-instruction
 * wrappers. */
#ifndef VMX_EXIT_NAMES_H
#define VMX_EXIT_NAMES_H

#include <stdint.h>

/* Name of a basic exit reason (SDM Vol. 3D Appendix C), e.g. "CPUID" for
 * 10. Only bits 15:0 of reason are looked at, so a full exit-reason field
 * may be passed. Never NULL: unknown or reserved numbers give "unknown". */
const char *vmx_exit_reason_name(uint32_t reason);

/* Text of a VM-instruction error number (SDM Vol. 3C 31.4), e.g.
 * "VM entry with invalid control field(s)" for 7. Never NULL: unknown
 * numbers give "unknown VM-instruction error"; 0 gives "no error". */
const char *vmx_instruction_error_text(uint32_t error);

#endif
