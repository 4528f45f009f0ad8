/* The virtual hardware of a Linux domain beside domain 0: nothing of the
 * machine's, only what Vertigo emulates at the domain's exits.
 *   - a 16550 UART at COM1 (vmm/vhw/vuart16550.h): the domain's console;
 *   - per VCPU, a local APIC in x2APIC mode (vmm/vhw/vlapic.h), its timer on
 *     the guest TSC;
 *   - CPUID describing exactly that (vmm/vhw/cpuid_domain.h: the x2APIC, the
 *     TSC and crystal rates in leaves 0x15/0x16, the topology);
 *   - ACPI tables in one page of its RAM (vmm/vhw/acpi_build.h: RSDP, XSDT,
 *     MADT without an I/O APIC, hardware-reduced FADT whose sleep and
 *     reset registers are the three I/O ports from power_port).
 * Portable: the VT-x side is vmx/exit_vhw.c. */
#ifndef VMM_DOMAIN_VHW_H
#define VMM_DOMAIN_VHW_H

#include <stdint.h>

#include "vmm/vhw/cpuid_domain.h"
#include "vmm/vhw/vlapic.h"
#include "vmm/vhw/vuart16550.h"

#define DOMAIN_VHW_VCPUS      1u        /* a private domain has one VCPU */
#define DOMAIN_VHW_POWER_PORT 0x600u    /* ACPI sleep control, status, reset */

struct domain_vhw {
    struct cpuid_domain cpuid;
    struct vuart16550 uart;
    uint16_t power_port;
    struct vlapic lapic[DOMAIN_VHW_VCPUS];
};

struct boot_info;
struct domain;
struct domain_spec;
struct guest_mem;
struct linux_boot_state;

/* Builds Linux domain d as `spec` declares it, in its RAM (`ram`: guest-
 * physical [0, spec->mem_bytes)): its e820 map (low RAM, the ACPI page,
 * RAM from 1 MiB), the ACPI tables, the kernel and initrd modules loaded
 * for the 64-bit boot protocol with the command line
 * "console=ttyS0,115200 noapic " + the rest of the kernel module's line, and the
 * devices' reset state; d->vhw points at them. Errors end the run with a
 * message naming the domain. */
void domain_vhw_build(const struct boot_info *bi, struct domain *d,
                      const struct domain_spec *spec, const struct guest_mem *ram,
                      struct linux_boot_state *start);

#endif
