/* Trapping every change of the guest's privilege level, for exact
 * per-mode counts of the software PMU (the policy that asks for it is
 * pmu/run/pmu_run.c). While the traps are on, a run of the guest between a VM
 * entry and the next exit never changes mode, so every guest tick of the
 * run belongs to the mode it started in:
 *
 *   user -> kernel   SYSCALL: EFER.SCE is hidden (shadowed), so SYSCALL
 *                    raises #UD, which exits and is emulated here;
 *                    exceptions: the exception bitmap (page faults only
 *                    when the U/S bit of the error code says user mode);
 *                    interrupts: external-interrupt exiting with
 *                    acknowledge-on-exit while the guest runs in user mode
 *                    or is halted, the vector injected at the next entry;
 *                    NMIs exit anyway.
 *   kernel -> user   SYSRET: #UD for the same reason, emulated here; IRET:
 *                    the entry sets virtual-NMI blocking with NMI-window
 *                    exiting on, and an IRET clears that blocking (SDM Vol.
 *                    3C 26.3.2.2, 27.2.2 "NMI-window exiting"), so the exit
 *                    comes right after the guest's next IRET.
 *   halting          HLT exits and the guest is resumed halted, so idle
 *                    time is never a run's work.
 *
 * Invisible to the guest: EFER reads return its own SCE, exceptions and
 * interrupts are injected as the hardware would have delivered them (CR2
 * for page faults, DR6 for debug traps, software exceptions with their
 * instruction length), the blocking bit the entry sets is removed at the
 * exit before anything else reads it. Not seen: SYSENTER and INT n (32-bit
 * system calls), which change mode without an exit. */
#ifndef VMX_MODE_TRAP_H
#define VMX_MODE_TRAP_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/vcpu.h"
#include "vmx/exit.h"
#include "vmx/msr_policy.h"

/* True if this CPU has every control the traps need. */
bool vmx_mode_traps_available(void);

/* Turns the traps on or off for v (between an exit and the next entry;
 * cheap when nothing changes). */
void vmx_mode_traps_set(struct vcpu *v, bool on);

/* Turns the halt traps on or off for v: a HLT exits and the guest is
 * resumed halted, and an interrupt that arrives while it is halted exits
 * too, so no run holds both idle time and guest work. The mode traps imply
 * them. */
void vmx_halt_traps_set(struct vcpu *v, bool on);

/* True if the guest of the current VMCS can take an external interrupt
 * at the next entry: RFLAGS.IF, no STI or MOV-SS blocking, no event being
 * injected. */
bool vmx_guest_takes_interrupts(void);

/* The privilege level the next run starts at: 0 when an event is being
 * injected (its handler runs in the kernel), else the guest's CPL. */
unsigned int vmx_mode_traps_entry_cpl(void);

/* Before each entry, after the NMI decision (vmx_prepare_entry): injects a
 * queued interrupt, or asks for an interrupt-window exit to do it. */
void vmx_mode_traps_inject(struct vcpu *v);

/* Before each entry, after the PMU planned it: arms the exits for the mode
 * (or, with the halt traps only, the activity state) the run starts in. */
void vmx_mode_traps_arm(struct vcpu *v);

/* After each exit, before anything reads the guest's interruptibility
 * state: removes the virtual-NMI blocking the entry set itself. */
void vmx_mode_traps_after_exit(struct vcpu *v, const struct vmx_exit *e);

/* An exception exit (not an NMI) while the traps are on: SYSCALL and
 * SYSRET are emulated, anything else is injected back. False if the traps
 * are off (the exit is unexpected). */
bool vmx_mode_traps_exception(struct vcpu *v, const struct vmx_exit *e, uint32_t info);

/* The guest's IA32_EFER, with its own SCE (MSR policy handlers). */
enum msr_access_result vmx_efer_read(struct vcpu *v, uint32_t msr, uint64_t *value);
enum msr_access_result vmx_efer_write(struct vcpu *v, uint32_t msr, uint64_t value);

/* Prints v's trap counts (end of the domain), if the traps were ever on. */
void vmx_mode_traps_report(const struct vcpu *v);

#endif
