/* A multiboot domain's guest-physical map (see vmm/domain/domain_mboot_map.h). */
#include "vmm/domain/domain_mboot_map.h"

#include "lib/format.h"
#include "vmm/vhw/testdev.h"
#include "vmm/vhw/vlapic.h"

#define LOW_RAM_END     0x9f000ull      /* as a PC's: the EBDA above it */
#define LEGACY_HOLE     0xa0000ull
#define BIOS_AREA       0xf0000ull
#define HIGH_RAM        0x100000ull
#define XAPIC_BYTES     4096ull

void domain_mboot_map_build(struct e820_table *t, uint64_t ram_bytes)
{
    t->entries[0] = (struct mem_range){ 0, LOW_RAM_END, MEM_USABLE };
    t->entries[1] = (struct mem_range){ LOW_RAM_END, LEGACY_HOLE - LOW_RAM_END, MEM_RESERVED };
    t->entries[2] = (struct mem_range){ BIOS_AREA, HIGH_RAM - BIOS_AREA, MEM_RESERVED };
    t->entries[3] = (struct mem_range){ HIGH_RAM, ram_bytes - HIGH_RAM, MEM_USABLE };
    t->count = 4;
}

struct map_part {
    uint64_t base, bytes;
    const char *what;
};

bool domain_mboot_map_overlaps(uint64_t ram_bytes, uint64_t base, uint64_t bytes, char *why,
                               size_t why_size)
{
    const struct map_part parts[] = {
        { 0, ram_bytes, "its RAM" },
        { DOMAIN_MBOOT_ACPI_GPA, DOMAIN_MBOOT_ACPI_BYTES, "its ACPI tables" },
        { VLAPIC_BASE_DEFAULT, XAPIC_BYTES, "its xAPIC page" },
    };
    uint64_t end = base + bytes;        /* no sum overflows: below 64 GiB + 4 GiB */
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        const struct map_part *p = &parts[i];
        if (p->base < end && base < p->base + p->bytes) {
            fmt_snprintf(why, why_size, "%s, [%#lx-%#lx), overlaps [%#lx-%#lx)", p->what,
                         p->base, p->base + p->bytes, base, end);
            return true;
        }
    }
    return false;
}

bool domain_mboot_testdev_fits(uint64_t ram_bytes, char *why, size_t why_size)
{
    return !domain_mboot_map_overlaps(ram_bytes, TESTDEV_IOMEM_GPA, TESTDEV_IOMEM_BYTES, why,
                                      why_size);
}
