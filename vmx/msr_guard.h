/* The MSRs that reach physical memory or Vertigo's own state, and what a
 * guest access to each does (vmx/msr_policy.c's table points here; the
 * decisions and their reasons are the table "Owned MSRs" in
 * docs/architecture.md):
 *  - IA32_APIC_BASE is filtered: the xAPIC page stays where Vertigo maps
 *    it read-only and the APIC stays enabled (xAPIC -> x2APIC is allowed);
 *  - the MTRRs are emulated per VCPU: under EPT they do not decide the
 *    guest's memory types (SDM Vol. 3C 29.3.7.2), but the real ones decide
 *    Vertigo's, so the guest reads and writes a shadow; SMRR is hidden;
 *  - IA32_MISC_ENABLE is filtered: the PMU, BTS and PEBS read as absent,
 *    and the bits that switch features under Vertigo cannot change;
 *  - IA32_TSC reads pass, writes #GP; IA32_TSC_ADJUST, Intel PT (RTIT_*),
 *    PEBS, DS_AREA and the model PMU MSRs #GP, as on a CPU without them
 *    (vmx/exit_cpuid.c hides the matching CPUID bits).
 * Portable: the hardware is reached through rdmsr_safe/wrmsr_safe
 * (lib/cpu.h), which the unit tests provide. */
#ifndef VMX_MSR_GUARD_H
#define VMX_MSR_GUARD_H

#include <stdint.h>

#include "vmx/msr_policy.h"

/* The CPU's physical-address width (CPUID 80000008H EAX[7:0]): MTRR base
 * and mask bits at or above it are reserved. Call before the guest runs. */
void msr_guard_init(unsigned int phys_addr_bits);

/* Reads and writes, as struct msr_rule handlers. */
enum msr_access_result msr_guard_apic_base_write(struct vcpu *v, uint32_t msr, uint64_t value);
enum msr_access_result msr_guard_mtrr_read(struct vcpu *v, uint32_t msr, uint64_t *value);
enum msr_access_result msr_guard_mtrr_write(struct vcpu *v, uint32_t msr, uint64_t value);
enum msr_access_result msr_guard_misc_enable_read(struct vcpu *v, uint32_t msr, uint64_t *value);
enum msr_access_result msr_guard_misc_enable_write(struct vcpu *v, uint32_t msr, uint64_t value);

/* IA32_XSS: Vertigo switches no supervisor state component between
 * domains and CPUID enumerates none (vmx/exit_cpuid.c), so XSS stays 0:
 * reads give 0, a write of 0 is taken, any other #GPs as a write of an
 * unsupported bit does (SDM Vol. 1 13.3). Intel PT state (bit 8) could
 * otherwise be restored by XRSTORS with an output base past the EPT. */
enum msr_access_result msr_guard_xss_read(struct vcpu *v, uint32_t msr, uint64_t *value);
enum msr_access_result msr_guard_xss_write(struct vcpu *v, uint32_t msr, uint64_t value);

/* The real MSR, #GP forwarded (reads of pass-through-readable MSRs). */
enum msr_access_result msr_guard_read_through(struct vcpu *v, uint32_t msr, uint64_t *value);

/* #GP, as on a CPU without the MSR. */
enum msr_access_result msr_guard_deny_read(struct vcpu *v, uint32_t msr, uint64_t *value);
enum msr_access_result msr_guard_deny_write(struct vcpu *v, uint32_t msr, uint64_t value);

#endif
