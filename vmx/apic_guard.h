/* The guest's local APIC is its own (pass-through), except for
 *  - the interprocessor interrupts that start CPUs: INIT and STARTUP are
 *    emulated (vmm/domain/smp_guest.h);
 *  - the LVT performance-counter register (LVTPC) once Vertigo's hardware
 *    PMU claimed it for its PMI (pmu/run/pmu_pmi.h): the guest's writes then
 *    go to a per-VCPU shadow instead of the APIC, and a guest write to the
 *    spurious-interrupt vector register (which can mask every LVT entry)
 *    is followed by Vertigo's LVTPC value again.
 * In xAPIC mode the APIC page is mapped read-only in the EPT so writes
 * trap; in x2APIC mode the ICR, LVTPC and SVR MSRs are intercepted. Every
 * other write is forwarded to the real APIC; reads are never trapped (a
 * guest reading LVTPC sees Vertigo's value). */
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

/* MSR-policy write handlers for the x2APIC LVTPC and SVR (see above). */
enum msr_access_result apic_guard_x2apic_lvtpc(struct vcpu *v, uint32_t msr, uint64_t value);
enum msr_access_result apic_guard_x2apic_svr(struct vcpu *v, uint32_t msr, uint64_t value);

/* Vertigo takes LVTPC of v's CPU (v runs on it, exit path): from now on
 * guest writes to LVTPC are kept in v's shadow (which starts as the value
 * the APIC holds now, the guest's or the firmware's) and `vertigo_value`
 * is what the guard restores after a guest SVR write. The caller then
 * writes vertigo_value to LVTPC. Calling it again updates vertigo_value. */
void apic_guard_lvtpc_claim(struct vcpu *v, uint32_t vertigo_value);

/* True once apic_guard_lvtpc_claim ran for v. NMI-safe. */
bool apic_guard_lvtpc_owned(const struct vcpu *v);

/* The LVTPC value the guest last wrote (its virtual PMU delivers by it): the
 * shadow once claimed or written, else what the APIC holds. */
uint32_t apic_guard_lvtpc_shadow(const struct vcpu *v);

/* Sets the guest's view of LVTPC as a guest write would (the guest's
 * virtual PMU masks it when it delivers a PMI). */
void apic_guard_lvtpc_guest_set(struct vcpu *v, uint32_t value);

#endif
