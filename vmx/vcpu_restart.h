/* A VCPU started over when its domain restarts (dom.N.on_reboot=restart,
 * vmm/domain/domain.h): on its own CPU, after the exit that asked for the
 * reset was handled, it becomes a VCPU that never ran. Its VMCS page is
 * cleared and set up again from its domain's start state (the images
 * loaded anew); the registers no VMCS field holds get their values after
 * reset (x87/SSE/AVX and XCR0, DR0-DR3 and DR6, CR2; the syscall MSRs
 * vmx/vmx_sched.c clears); its timers, mode traps, pending NMIs and exit
 * statistics start from zero; its PMU state leaves the CPU as at a switch
 * and starts as a new VCPU's (pmu_vcpu_start: the counting session, the
 * guest's virtual PMU, paravirtual counters, multiplexing and sampling
 * all from nothing); the guest's cached translations (its VPID's) are
 * flushed. Its EPT, RAM and VPID stay. */
#ifndef VMX_VCPU_RESTART_H
#define VMX_VCPU_RESTART_H

struct vcpu;

/* v's VMCS is current on this CPU (v's). Ends the domain if a page for
 * its register state or VMCS cannot be had. */
void vcpu_restart(struct vcpu *v);

#endif
