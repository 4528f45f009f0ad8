/* The guest's local APIC is its own (pass-through), except for the
 * interprocessor interrupts that start CPUs: INIT and STARTUP are
 * emulated (vmm/smp_guest.h). In xAPIC mode the APIC page is mapped
 * read-only in the EPT so writes trap; in x2APIC mode the ICR MSR is
 * intercepted. Every other write is forwarded to the real APIC. */
#ifndef VMX_APIC_GUARD_H
#define VMX_APIC_GUARD_H

#include <stdbool.h>
#include <stdint.h>

#include "vmx/exit.h"
#include "vmx/msr_policy.h"

/* Handles an EPT violation on the APIC page; false if `gpa` is not on it. */
bool apic_guard_ept_write(struct vcpu *v, const struct vmx_exit *e, uint64_t gpa);

/* MSR-policy write handler for the x2APIC ICR. */
enum msr_access_result apic_guard_x2apic_icr(struct vcpu *v, uint32_t msr, uint64_t value);

#endif
