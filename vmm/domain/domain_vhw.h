/* The virtual hardware of a Linux domain beside domain 0: nothing of the
 * machine's, only what Vertigo emulates at the domain's exits.
 *   - a 16550 UART at COM1 (vmm/vhw/vuart16550.h): the domain's console;
 *   - per VCPU (dom.N.vcpus=, x2APIC IDs 0..K-1), a local APIC in x2APIC
 *     mode (vmm/vhw/vlapic.h), its timer on the guest TSC; IPIs go between
 *     the domain's own VCPUs only (vmx/exit_vhw_msr.c);
 *   - CPUID describing exactly that (vmm/vhw/cpuid_domain.h: the x2APIC, the
 *     TSC and crystal rates in leaves 0x15/0x16, the topology);
 *   - for a Linux domain, a read-only CMOS clock at ports 0x70/0x71
 *     (vmm/vhw/vrtc.h) from the machine's clock at Vertigo's start;
 *   - ACPI tables in one page of its RAM (vmm/vhw/acpi_build.h: RSDP, XSDT,
 *     MADT without an I/O APIC, hardware-reduced FADT whose sleep and
 *     reset registers are the three I/O ports from power_port);
 *   - for a multiboot domain, the test-exit port, fw_cfg's few items, an
 *     ACPI PM timer (vmm/vhw/acpi_pmtimer.h) the FADT names and QEMU's
 *     pc-testdev (vmm/vhw/testdev.h: its data port; its test memory is
 *     RAM of the domain's, mapped by its EPT, which the devices only note).
 * Portable: the VT-x side is vmx/exit_vhw.c. */
#ifndef VMM_DOMAIN_VHW_H
#define VMM_DOMAIN_VHW_H

#include <stdint.h>

#include "vmm/domain/domain_config.h"
#include "vmm/vhw/acpi_pmtimer.h"
#include "vmm/vhw/cpuid_domain.h"
#include "vmm/vhw/fw_cfg.h"
#include "vmm/vhw/testdev.h"
#include "vmm/vhw/vlapic.h"
#include "vmm/vhw/vrtc.h"
#include "vmm/vhw/vtsc.h"
#include "vmm/vhw/vuart16550.h"

#define DOMAIN_VHW_VCPUS      DOMAIN_VCPUS_MAX  /* dom.N.vcpus= */
#define DOMAIN_VHW_POWER_PORT 0x600u    /* ACPI sleep control, status, reset */
#define DOMAIN_VHW_PM_TIMER   0x608u    /* ACPI PM timer (multiboot domains), as QEMU's q35 */

#define DOMAIN_VHW_TEST_EXIT  0xf4u     /* QEMU's isa-debug-exit (multiboot domains) */

struct domain_vhw {
    struct cpuid_domain cpuid;
    struct vuart16550 uart;
    uint16_t power_port;
    uint16_t test_exit_port;    /* 0: none (a Linux domain) */
    struct acpi_pmtimer pm_timer;   /* port 0: none (a Linux domain) */
    uint64_t pm_timer_refused;  /* accesses refused (the first is reported) */
    struct vrtc rtc;            /* not present: none (a multiboot domain) */
    uint64_t rtc_refused;       /* accesses refused (the first is reported) */
    bool has_fw_cfg;
    struct fw_cfg fw_cfg;
    bool has_testdev;           /* pc-testdev's data port (multiboot domains) */
    bool testdev_memory;        /* and its 64 KiB at TESTDEV_IOMEM_GPA, mapped by the EPT */
    struct testdev testdev;
    struct vlapic lapic[DOMAIN_VHW_VCPUS];
    struct vtsc tsc[DOMAIN_VHW_VCPUS];          /* each VCPU's TSC offset and TSC_ADJUST */
    uint64_t misc_enable[DOMAIN_VHW_VCPUS];     /* IA32_MISC_ENABLE as the guest wrote it */
};

#define DOMAIN_VHW_MISC_ENABLE 0x1801ull        /* fast strings; no BTS, no PEBS */

/* What a kind of domain gets besides the UART, APIC, CPUID and power ports. */
struct domain_vhw_options {
    bool xapic;                 /* the APIC starts in xAPIC mode (else x2APIC) */
    bool no_x2apic;             /* and stays in it: no x2APIC (needs xapic) */
    uint16_t test_exit_port;    /* a port whose write ends the domain with a code */
    bool fw_cfg;                /* QEMU's fw_cfg ports with the CPU count and RAM size */
    bool pm_timer;              /* an ACPI PM timer at DOMAIN_VHW_PM_TIMER */
    bool rtc;                   /* a CMOS clock at ports 0x70/0x71 */
    bool testdev;               /* pc-testdev's data port at TESTDEV_PORT */
    bool testdev_memory;        /* the caller maps its test memory */
    uint64_t ram_bytes;
};

struct boot_info;
struct domain;
struct domain_spec;
struct guest_mem;
struct linux_boot_state;

/* The devices of domain d in their reset state (d->vhw points at them).
 * Ends the run with a message if the TSC rate is unknown. */
struct domain_vhw *domain_vhw_devices(struct domain *d, const struct domain_vhw_options *o);

/* The ACPI tables (a MADT entry per VCPU, the power ports, COM1, the PM timer if the
 * domain's devices have one) in the page at `gpa`
 * of the domain's RAM; returns the RSDP's guest-physical address and, if
 * `rsdp` is not NULL, a host pointer to it. Ends the run on an error. */
uint64_t domain_vhw_acpi(const struct domain *d, const struct guest_mem *ram, uint64_t gpa,
                         const void **rsdp);

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
