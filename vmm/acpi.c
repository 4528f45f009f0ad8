/* Minimal ACPI table reading (see vmm/acpi.h). Tables are read through
 * the identity map and every header is checked before use. */
#include "vmm/acpi.h"

#include "vmm/vhw/acpi_sdt.h"
#include "lib/mem.h"

#define BIOS_AREA_START 0xe0000
#define BIOS_AREA_END   0x100000
#define RSDP_V1_SIZE    20
#define IDENTITY_LIMIT  0x100000000ull

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

static const struct acpi_sdt_header *table_at(uint64_t pa)
{
    if (!pa || pa + sizeof(struct acpi_sdt_header) > IDENTITY_LIMIT)
        return NULL;
    const struct acpi_sdt_header *h = (const struct acpi_sdt_header *)pa;
    if (h->length < sizeof(*h) || pa + h->length > IDENTITY_LIMIT)
        return NULL;
    return h;
}

#define RSDP_REVISION        15
#define RSDP_RSDT_ADDRESS    16
#define RSDP_XSDT_ADDRESS    24

/* Searches the XSDT (ACPI 2.0+, 8-byte entries) when the RSDP has one,
 * else the RSDT (4-byte entries). */
static const struct acpi_sdt_header *find_table(const uint8_t *rsdp, const char *signature)
{
    uint64_t root_pa = 0;
    unsigned int entry_size = 4;
    if (rsdp[RSDP_REVISION] >= 2) {
        memcpy(&root_pa, rsdp + RSDP_XSDT_ADDRESS, 8);
        entry_size = 8;
    }
    if (!root_pa) {
        uint32_t rsdt_pa;
        memcpy(&rsdt_pa, rsdp + RSDP_RSDT_ADDRESS, 4);
        root_pa = rsdt_pa;
        entry_size = 4;
    }
    const struct acpi_sdt_header *root = table_at(root_pa);
    if (!root || memcmp(root->signature, entry_size == 8 ? "XSDT" : "RSDT", 4) != 0)
        return NULL;
    uint32_t entries = (root->length - (uint32_t)sizeof(*root)) / entry_size;
    const uint8_t *list = (const uint8_t *)(root + 1);
    for (uint32_t i = 0; i < entries; i++) {
        uint64_t pa = 0;
        memcpy(&pa, list + i * entry_size, entry_size);
        const struct acpi_sdt_header *t = table_at(pa);
        if (t && memcmp(t->signature, signature, 4) == 0)
            return t;
    }
    return NULL;
}

struct acpi_pm_ports acpi_pm_ports(const void *rsdp)
{
    struct acpi_pm_ports ports = { 0, 0 };
    const struct acpi_sdt_header *fadt = rsdp ? find_table(rsdp, "FACP") : NULL;
    if (!fadt || fadt->length < FADT_PM1B_CNT_BLK + 4)
        return ports;
    uint32_t a, b;
    memcpy(&a, (const uint8_t *)fadt + FADT_PM1A_CNT_BLK, 4);
    memcpy(&b, (const uint8_t *)fadt + FADT_PM1B_CNT_BLK, 4);
    ports.pm1a_cnt = (uint16_t)a;
    ports.pm1b_cnt = (uint16_t)b;
    return ports;
}

#define MADT_ENTRIES_OFFSET   44      /* header + local APIC address + flags */
#define MADT_LOCAL_APIC       0
#define MADT_LOCAL_X2APIC     9
#define MADT_ENABLED          1u

unsigned int acpi_madt_apic_ids(const void *rsdp, uint32_t *ids, unsigned int max)
{
    const struct acpi_sdt_header *madt = rsdp ? find_table(rsdp, "APIC") : NULL;
    unsigned int n = 0;
    if (!madt)
        return 0;
    const uint8_t *p = (const uint8_t *)madt + MADT_ENTRIES_OFFSET;
    const uint8_t *end = (const uint8_t *)madt + madt->length;
    while (p + 2 <= end && p[1] >= 2 && p + p[1] <= end && n < max) {
        uint32_t flags, id;
        if (p[0] == MADT_LOCAL_APIC && p[1] >= 8) {
            memcpy(&flags, p + 4, 4);
            if (flags & MADT_ENABLED)
                ids[n++] = p[3];
        } else if (p[0] == MADT_LOCAL_X2APIC && p[1] >= 16) {
            memcpy(&id, p + 4, 4);
            memcpy(&flags, p + 8, 4);
            if (flags & MADT_ENABLED)
                ids[n++] = id;
        }
        p += p[1];
    }
    return n;
}
