/* The architectural checks WRMSR applies to the MSRs Vertigo emulates for a
 * domain (reserved bits, canonical addresses, valid memory types), so that
 * a write the CPU would refuse gives the guest #GP instead of reaching the
 * hardware or the VMCS from root mode (a #GP there ends the whole run; an
 * invalid guest-state field fails the next VM entry). Portable. */
#ifndef VMM_MSR_CHECK_H
#define VMM_MSR_CHECK_H

#include <stdbool.h>
#include <stdint.h>

/* An IA32_PAT value whose eight entries are all valid memory types (0, 1,
 * 4, 5, 6, 7) with bits 7:3 of each clear (SDM Vol. 3A 13.12.2). */
bool msr_check_pat(uint64_t value);

/* An IA32_MTRR_DEF_TYPE value with a valid default type (0, 1, 4, 5, 6)
 * and bits 63:12 and 9:8 clear (SDM Vol. 3A 13.11.2.1). */
bool msr_check_mtrr_def_type(uint64_t value);

/* True when WRMSR of value to msr passes the SDM's checks for the MSRs
 * this file knows (TSC_AUX, STAR, LSTAR, CSTAR, FMASK, FS/GS/KERNEL_GS
 * bases, SYSENTER_CS/ESP/EIP, PAT, MTRR_DEF_TYPE); any other MSR is not
 * this file's to judge and passes. */
bool msr_check_write(uint32_t msr, uint64_t value);

#endif
