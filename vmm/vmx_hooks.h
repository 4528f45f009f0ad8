/* What the portable core calls in vmx/, declared here and implemented
 * once there: VT-x detection and its platform-report line, VMX operation
 * on a CPU, a domain's EPT and bitmaps, running a VCPU, the CPUs'
 * schedulers and the ports Vertigo owns. The core includes no vmx/
 * header (tests/check-layers), struct vcpu's opaque VT-x part aside. */
#ifndef VMM_VMX_HOOKS_H
#define VMM_VMX_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct domain;
struct e820_table;
struct linux_boot_state;
struct phys_range;
struct vcpu;

/* ---- Start-up (vmx/vmx_detect.c, vmx/vmx_report.c) ---- */

enum vmx_availability {
    VMX_USABLE,
    VMX_NOT_INTEL,          /* vendor is not GenuineIntel */
    VMX_NO_CPUID_BIT,       /* CPUID.1:ECX.VMX[bit 5] = 0 */
    VMX_DISABLED_BY_FIRMWARE, /* FEATURE_CONTROL locked with VMX off */
};

/* Checks VMX support, locks IA32_FEATURE_CONTROL with VMX enabled if the
 * firmware left it unlocked, and prints the "vmx:" availability line. */
enum vmx_availability vmx_detect(void);

/* One sentence naming what is missing, for the refusal message. */
const char *vmx_availability_text(enum vmx_availability a);

/* Reads the VMX capability MSRs and prints the capabilities Vertigo uses.
 * Only called when vmx_detect() said VMX is usable. */
void vmx_report(void);

/* ---- VMX operation on a CPU (vmx/vmx_cpu.c) ---- */

/* Reads the capabilities and computes the controls. On a missing required
 * feature prints which one and returns false. */
bool vmx_config_init(void);

/* Sets CR0/CR4 to VMX-compatible values, executes VMXON on this CPU with a
 * region from the heap. Returns false (with a message) on failure. */
bool vmx_cpu_enable(void);

/* ---- A domain and its VCPUs (vmx/vmx_domain.c, vmx/vmx_run.c) ---- */

/* Builds the domain's EPT as an identity map: [0, max(4 GiB, top of the
 * map)) uncacheable (MMIO), the guest's RAM ranges write-back, and every
 * range in `hidden` (Vertigo's memory) not mapped at all. Allocates the
 * MSR and I/O bitmaps. Returns false with a message on failure. */
bool vmx_domain_init(struct domain *d, const struct e820_table *guest_map,
                     const struct phys_range *hidden, size_t hidden_count);

/* More of a private domain's own memory its EPT maps besides its RAM:
 * host-physical [hpa, hpa + bytes), taken with its RAM (never another
 * domain's or Vertigo's), at guest-physical gpa, write-back, as RAM (a
 * multiboot domain's pc-testdev memory); `what` names it in the message. */
struct private_extra_map {
    uint64_t gpa, hpa, bytes;
    const char *what;
};

/* Builds a private domain's EPT: guest-physical [0, ram_bytes) to the
 * block at host-physical ram_hpa, write-back, `extra` if not NULL, and
 * nothing else (any other access is an EPT violation that ends the
 * domain); MSR and I/O bitmaps that make every MSR and port access exit.
 * False with a message on failure. */
bool vmx_domain_init_private(struct domain *d, uint64_t ram_hpa, uint64_t ram_bytes,
                             const struct private_extra_map *extra);

/* Runs VCPU `v` on this CPU until the guest ends (domain_end()). */
__attribute__((noreturn)) void vmx_vcpu_run(struct vcpu *v,
                                            const struct linux_boot_state *start);

/* Domain d of v restarts (domain_reset, on v's CPU in an exit handler of
 * v): after the exit is handled, before v is entered again, v's VMCS and
 * VT-x state, its registers and its PMU state are those of a VCPU that
 * never ran, its start state d's boot state (vmx/vcpu_restart.h). */
void vmx_vcpu_restart(struct vcpu *v);

/* ---- The CPUs' schedulers (vmx/vmx_sched.c) ---- */

/* Set-up, on the boot CPU before any VCPU runs: adds v to the list of the
 * CPU it runs on (domain 0's VCPU first). False if that list is full. */
bool vmx_sched_add(struct vcpu *v);

/* The slice, in TSC ticks of guest time. */
void vmx_sched_set_slice(uint64_t ticks);

/* NMI context (vmm/nmi.c), an NMI of Vertigo's taken in root mode: if it
 * is a kick whose reason the entry being committed missed, that entry
 * exits at once (vmx/exit_nmi.c). */
void vmx_nmi_root_vertigo(void);

/* Domain d ended (domain_end): its VCPUs never run again; this CPU goes
 * on with its next VCPU, or parks when it has none left. */
__attribute__((noreturn)) void vmx_sched_domain_ended(struct domain *d);

/* ---- The ports Vertigo owns (vmx/io_policy.c) ---- */

/* Records Vertigo's ports: its console UART (0 if none) and the ACPI PM1
 * control ports (0 if unknown), with the fixed ones (keyboard controller,
 * system control A, reset control, debug and emulator exit ports). Forgets
 * anything recorded before. Call before io_policy_fill_bitmaps(). */
void io_policy_init(uint16_t uart_port, uint16_t pm1a_cnt, uint16_t pm1b_cnt);

#endif
