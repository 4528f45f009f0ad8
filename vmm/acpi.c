/* Minimal ACPI table reading (see vmm/acpi.h). Tables are read through
 * the identity map and every header is checked before use. */
#include "vmm/acpi.h"

#include "vmm/mem.h"

#define BIOS_AREA_START 0xe0000
#define BIOS_AREA_END   0x100000
#define RSDP_V1_SIZE    20
#define IDENTITY_LIMIT  0x100000000ull

struct acpi_header {
    char signature[4];
    uint32_t length;
    uint8_t revision;
    uint8_t checksum;
    char oem_id[6];
    char oem_table_id[8];
    uint32_t oem_revision;
    uint32_t creator_id;
    uint32_t creator_revision;
} __attribute__((packed));

#define FADT_PM1A_CNT_BLK 64
#define FADT_PM1B_CNT_BLK 68

uint64_t acpi_rsdp_phys(const void *copy)
{
    if (!copy)
        return 0;
    for (uintptr_t p = BIOS_AREA_START; p < BIOS_AREA_END; p += 16)
        if (memcmp((const void *)p, copy, RSDP_V1_SIZE) == 0)
            return p;
    return 0;
}

static const struct acpi_header *table_at(uint64_t pa)
{
    if (!pa || pa + sizeof(struct acpi_header) > IDENTITY_LIMIT)
        return NULL;
    const struct acpi_header *h = (const struct acpi_header *)pa;
    if (h->length < sizeof(*h) || pa + h->length > IDENTITY_LIMIT)
        return NULL;
    return h;
}

static const struct acpi_header *find_fadt(const uint8_t *rsdp)
{
    uint32_t rsdt_pa;
    memcpy(&rsdt_pa, rsdp + 16, 4);
    const struct acpi_header *rsdt = table_at(rsdt_pa);
    if (!rsdt || memcmp(rsdt->signature, "RSDT", 4) != 0)
        return NULL;
    uint32_t entries = (rsdt->length - (uint32_t)sizeof(*rsdt)) / 4;
    const uint8_t *list = (const uint8_t *)(rsdt + 1);
    for (uint32_t i = 0; i < entries; i++) {
        uint32_t pa;
        memcpy(&pa, list + i * 4, 4);
        const struct acpi_header *t = table_at(pa);
        if (t && memcmp(t->signature, "FACP", 4) == 0)
            return t;
    }
    return NULL;
}

struct acpi_pm_ports acpi_pm_ports(const void *rsdp)
{
    struct acpi_pm_ports ports = { 0, 0 };
    const struct acpi_header *fadt = rsdp ? find_fadt(rsdp) : NULL;
    if (!fadt || fadt->length < FADT_PM1B_CNT_BLK + 4)
        return ports;
    uint32_t a, b;
    memcpy(&a, (const uint8_t *)fadt + FADT_PM1A_CNT_BLK, 4);
    memcpy(&b, (const uint8_t *)fadt + FADT_PM1B_CNT_BLK, 4);
    ports.pm1a_cnt = (uint16_t)a;
    ports.pm1b_cnt = (uint16_t)b;
    return ports;
}
