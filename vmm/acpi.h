/* The few ACPI facts Vertigo needs (ACPI spec 6.x, 5.2 "ACPI System
 * Description Tables"): where the RSDP lives and the PM1 control ports
 * through which a guest powers the machine off. */
#ifndef VMM_ACPI_H
#define VMM_ACPI_H

#include <stdint.h>

struct acpi_pm_ports {
    uint16_t pm1a_cnt;      /* 0 if unknown */
    uint16_t pm1b_cnt;
};

/* Physical address of the RSDP in the BIOS area matching `copy` (the
 * loader's copy), or 0 when it is not there (UEFI boots). */
uint64_t acpi_rsdp_phys(const void *copy);

/* Reads PM1a/PM1b control block ports from the FADT reached through the
 * RSDP `rsdp` (a copy is fine: it holds physical table addresses). */
struct acpi_pm_ports acpi_pm_ports(const void *rsdp);

/* Fills ids[] with the APIC IDs of the enabled processors the MADT lists
 * (boot CPU included; local APIC and x2APIC entries), at most `max`.
 * Returns how many were found (0 without a MADT). */
unsigned int acpi_madt_apic_ids(const void *rsdp, uint32_t *ids, unsigned int max);

#endif
