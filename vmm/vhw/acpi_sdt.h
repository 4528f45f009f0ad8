/* The header every ACPI system description table starts with (ACPI spec
 * 6.x, 5.2.6), shared by the reader of the firmware's tables (vmm/acpi.c)
 * and the builder of a Linux domain's (vmm/vhw/acpi_build.c). */
#ifndef VMM_ACPI_SDT_H
#define VMM_ACPI_SDT_H

#include <stdint.h>

struct acpi_sdt_header {
    char signature[4];
    uint32_t length;
    uint8_t revision;
    uint8_t checksum;
    char oem_id[6];
    char oem_table_id[8];
    uint32_t oem_revision;
    char creator_id[4];
    uint32_t creator_revision;
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_sdt_header) == 36, "ACPI 5.2.6");

#endif
