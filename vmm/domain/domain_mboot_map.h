/* A multiboot domain's guest-physical map, as a PC's (and QEMU's) is laid
 * out for a test kernel: RAM below 636 KiB, a reserved EBDA page, the BIOS
 * area reserved (the ACPI tables at DOMAIN_MBOOT_ACPI_GPA, where a kernel
 * scans for the RSDP), RAM from 1 MiB to the end of the domain's RAM; the
 * virtual APIC's xAPIC page at 0xfee00000 (emulated at its EPT violations,
 * vmx/exit_vhw_apic.c); and QEMU's pc-testdev memory at TESTDEV_IOMEM_GPA
 * (vmm/vhw/testdev.h), 64 KiB of the domain's own memory beside its RAM,
 * if it fits: nowhere else in the map. The test memory is not in the
 * memory map the kernel is given, as it is not in QEMU's. */
#ifndef VMM_DOMAIN_MBOOT_MAP_H
#define VMM_DOMAIN_MBOOT_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/loader/e820.h"

#define DOMAIN_MBOOT_ACPI_GPA 0xf0000ul    /* in [0xe0000, 1 MiB): the RSDP scan range */
#define DOMAIN_MBOOT_ACPI_BYTES 4096u

/* The memory map a multiboot kernel with `ram_bytes` of RAM is given
 * (ram_bytes >= 1 MiB: vmm/domain/domain_config.h's minimum is 4 MiB). */
void domain_mboot_map_build(struct e820_table *t, uint64_t ram_bytes);

/* Whether [base, base + bytes) overlaps any part of the map of a domain
 * with `ram_bytes` of RAM: its RAM, its ACPI tables or its xAPIC page.
 * True, with `why` naming the part, if it does. */
bool domain_mboot_map_overlaps(uint64_t ram_bytes, uint64_t base, uint64_t bytes, char *why,
                               size_t why_size);

/* Whether the pc-testdev's 64 KiB at TESTDEV_IOMEM_GPA fit in the map of
 * a domain with `ram_bytes` of RAM, overlapping none of its RAM, its ACPI
 * tables or its xAPIC page. False, with `why` saying which it would
 * overlap, if not: the domain then has no test memory. */
bool domain_mboot_testdev_fits(uint64_t ram_bytes, char *why, size_t why_size);

#endif
