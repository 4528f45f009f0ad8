/* The speculation barriers and IA32_SPEC_CTRL at VCPU switches on this
 * CPU: the portable plan (vmm/domain/spec_barrier.h) run with the real MSRs and
 * VERW. */
#ifndef VMX_VCPU_SPEC_H
#define VMX_VCPU_SPEC_H

#include "vmm/domain/spec_barrier.h"

struct vcpu;

/* The plan for this machine, from its CPUID and ARCH_CAPABILITIES (read
 * once, printed once). */
const struct spec_plan *vcpu_spec_plan(void);

/* At a switch from `from` to `to` on the CPU both run on. */
void vcpu_spec_switch(struct vcpu *from, struct vcpu *to);

#endif
