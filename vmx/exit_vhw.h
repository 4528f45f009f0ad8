/* The exits of a domain with virtual hardware (vmm/domain/domain_vhw.h: a Linux
 * domain beside domain 0), called by vmx/exit_private.c and the entry
 * loop. Each returns false for what is not its device's: the caller then
 * treats the access as to absent hardware. */
#ifndef VMX_EXIT_VHW_H
#define VMX_EXIT_VHW_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/vcpu.h"
#include "vmm/vhw/vlapic.h"
#include "vmx/exit.h"
#include "vmx/msr_policy.h"

/* The VMCS controls the devices need (CR8 exits, HLT exits, no TPR
 * shadow), once after vmcs_setup. */
void vmx_vhw_setup(struct vcpu *v);

/* I/O: the UART's ports, the ACPI power ports; a multiboot domain's
 * test-exit, fw_cfg, PM timer and pc-testdev ports. */
bool vhw_io(struct vcpu *v, const struct vmx_exit *e);

/* String I/O at pc-testdev's data port (vmx/exit_vhw_string.c): one
 * element moved, the instruction completed after its last. False for any
 * other string I/O, or one it cannot do: nothing was done. */
bool vhw_string_io(struct vcpu *v, const struct vmx_exit *e);

/* MSRs (vmx/exit_vhw_msr.c): the x2APIC's, the TSC's, and the ones a
 * Linux or multiboot kernel reads (PAT, MTRRs, MISC_ENABLE, microcode
 * revision, MCG_CAP, ...). */
bool vhw_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value, enum msr_access_result *r);
bool vhw_wrmsr(struct vcpu *v, uint32_t msr, uint64_t value, enum msr_access_result *r);

/* An EPT violation on the APIC's page (vmx/exit_vhw_apic.c): emulated
 * on the virtual APIC in xAPIC mode, absent memory in the other modes.
 * False for any other address. */
bool vhw_ept_violation(struct vcpu *v, const struct vmx_exit *e);

/* What an access to the virtual APIC asks of the VCPU: an NMI queued, an
 * IPI routed to the domain's VCPUs; MSR_ACCESS_GP for VLAPIC_GP. */
enum msr_access_result vhw_lapic_result(struct vcpu *v, enum vlapic_status st);

/* Whether another VCPU of v's domain posted v an interrupt (a fixed IPI
 * or an NMI) its virtual APIC has not taken yet. Any CPU. */
bool vhw_ipi_posted(const struct vcpu *v);

/* n NMI IPIs posted to v become pending as the CPU latches NMIs
 * (vmx/exit_nmi.c takes them before each entry). */
void vhw_nmi_ipis(struct vcpu *v, uint32_t n);

/* The guest's LVTPC in its virtual APIC, read and set (the virtual PMU
 * delivers by it), and a PMI for it in fixed delivery mode: its vector
 * goes to the IRR and LVTPC is masked (SDM Vol. 3A 11.5.1); false if the
 * entry is not in fixed mode (nothing delivered). */
uint32_t vhw_lvtpc(const struct vcpu *v);
void vhw_lvtpc_write(struct vcpu *v, uint32_t value);
bool vhw_pmi_vector(struct vcpu *v);

/* Whether the CPU offers TSC offsetting, which the virtual TSC needs
 * (vmx/exit_vhw_msr.c); without it IA32_TSC and TSC_ADJUST writes #GP. */
bool vhw_tsc_offsetting(void);

/* v's own TSC offset: what its writes to its virtual IA32_TSC or
 * TSC_ADJUST made it (0 for a domain without virtual hardware). */
uint64_t vhw_tsc_offset(const struct vcpu *v);

/* Loads the VMCS's TSC offset: v's own less behind (ticks the guest's
 * clock is held back), with "use TSC offsetting" on. Only where
 * vhw_tsc_offsetting(). */
void vhw_tsc_offset_load(struct vcpu *v, uint64_t behind);

/* The VCPU's TSC as the guest reads it (its offset applied). */
uint64_t vhw_guest_tsc(struct vcpu *v);

/* MOV to/from CR8 (the x2APIC's TPR). */
void vhw_cr8(struct vcpu *v, const struct vmx_exit *e);

/* CPUID after the common filtering: the domain's own topology, APIC and
 * TSC leaves. */
void vhw_cpuid(struct vcpu *v, uint32_t leaf, uint32_t subleaf);

/* HLT: goes on if an interrupt is pending (or posted by another VCPU),
 * else sleeps until the virtual timer's next expiry or a posted interrupt. */
void vhw_hlt(struct vcpu *v, const struct vmx_exit *e);

/* Before each entry, with the other injections and before the PMU plans
 * the entry (the run's mode is the injected event's: pmu/pmu_loop.h): the
 * fixed IPIs other VCPUs posted go to the IRR, the virtual timer catches
 * up with the TSC, the highest pending vector is
 * injected if the guest can take it (else an interrupt-window exit).
 * Nothing for a VCPU without virtual hardware. */
void vmx_vhw_inject(struct vcpu *v);

/* Before each entry, after the PMU and the mode traps armed it: HLT exits
 * and the preemption timer is armed at the virtual timer's next expiry.
 * Nothing for a VCPU without virtual hardware. */
void vmx_vhw_before_entry(struct vcpu *v);

#endif
