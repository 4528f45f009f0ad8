/* A VCPU's debug registers DR0-DR3 and DR6 across VCPU switches. The VMCS
 * holds the guest's DR7 (loaded at every entry) but not the others (SDM
 * Vol. 3C 25.4.1, "Guest Register State"), and MOV DR does not exit, so
 * they stay in the CPU while Vertigo and the other VCPUs run: a domain
 * would see another domain's breakpoint addresses and status, and its
 * own enabled breakpoints would fire at the other's addresses (a Linux
 * guest writes DR0-DR3 only when it installs a breakpoint, not at every
 * return to the task). The switch saves the outgoing VCPU's registers and
 * loads the incoming one's; a VCPU that never ran starts with their
 * values after reset (DR0-DR3 = 0, DR6 = 0xffff0ff0, SDM Vol. 3A 10.1.1). */
#ifndef VMX_VCPU_DEBUGREGS_H
#define VMX_VCPU_DEBUGREGS_H

struct vcpu;

/* Saves from's DR0-DR3 and DR6 and loads to's, writing only the
 * registers whose values differ, on the CPU both run on. */
void vcpu_debugregs_switch(struct vcpu *from, struct vcpu *to);

/* v, whose registers the CPU holds, starts over: the CPU's DR0-DR3 and
 * DR6 get their values after reset. */
void vcpu_debugregs_reset(struct vcpu *v);

#endif
