/* Unit tests: a multiboot domain's guest-physical map
 * (vmm/domain/domain_mboot_map.c): its memory map, and where QEMU's
 * pc-testdev memory may go (nowhere it would overlap its RAM, its ACPI
 * tables or its xAPIC page). */
#include "vmm/domain/domain_mboot_map.h"

#include "tests/unit/unit.h"
#include "vmm/vhw/testdev.h"
#include "vmm/vhw/vlapic.h"

#define MIB (1ull << 20)

TEST(the_memory_map_has_low_ram_the_bios_area_and_high_ram)
{
    struct e820_table t;
    domain_mboot_map_build(&t, 128 * MIB);
    CHECK_EQ(t.count, 4);
    CHECK_EQ(t.entries[0].base, 0);
    CHECK_EQ(t.entries[0].length, 0x9f000);
    CHECK_EQ(t.entries[0].type, MEM_USABLE);
    CHECK_EQ(t.entries[1].type, MEM_RESERVED);
    CHECK(t.entries[2].base <= DOMAIN_MBOOT_ACPI_GPA &&
          DOMAIN_MBOOT_ACPI_GPA + DOMAIN_MBOOT_ACPI_BYTES <=
              t.entries[2].base + t.entries[2].length);     /* the ACPI tables: reserved */
    CHECK_EQ(t.entries[2].type, MEM_RESERVED);
    CHECK_EQ(t.entries[3].base, MIB);
    CHECK_EQ(t.entries[3].base + t.entries[3].length, 128 * MIB);
    CHECK_EQ(t.entries[3].type, MEM_USABLE);
    for (unsigned int i = 0; i < t.count; i++)      /* the test memory is in no entry */
        CHECK(t.entries[i].base + t.entries[i].length <= TESTDEV_IOMEM_GPA);
}

/* Each part of the map is found, at its first and last byte. */
TEST(each_part_of_the_map_is_named_when_overlapped)
{
    char why[128];
    CHECK(domain_mboot_map_overlaps(128 * MIB, 128 * MIB - 1, 2, why, sizeof(why)));
    CHECK_STR(why, "its RAM, [0-0x8000000), overlaps [0x7ffffff-0x8000001)");
    CHECK(!domain_mboot_map_overlaps(128 * MIB, 128 * MIB, 4096, why, sizeof(why)));
    CHECK(domain_mboot_map_overlaps(128 * MIB, VLAPIC_BASE_DEFAULT + 4095, 1, why, sizeof(why)));
    CHECK_STR(why, "its xAPIC page, [0xfee00000-0xfee01000), overlaps [0xfee00fff-0xfee01000)");
    CHECK(domain_mboot_map_overlaps(128 * MIB, 0xfed00000, 0x100001, why, sizeof(why)));
    CHECK(strstr(why, "its xAPIC page") == why);
    CHECK(!domain_mboot_map_overlaps(128 * MIB, VLAPIC_BASE_DEFAULT + 4096, 4096, why,
                                     sizeof(why)));
    CHECK(!domain_mboot_map_overlaps(128 * MIB, 0xfed00000, 0x100000, why, sizeof(why)));
    /* The ACPI tables are in the RAM, which is named first; a RAM of
     * 0 bytes (never built: 4 MiB is the least) leaves them to be found. */
    CHECK(domain_mboot_map_overlaps(0, DOMAIN_MBOOT_ACPI_GPA, 1, why, sizeof(why)));
    CHECK_STR(why, "its ACPI tables, [0xf0000-0xf1000), overlaps [0xf0000-0xf0001)");
}

TEST(the_test_memory_fits_while_the_ram_ends_at_or_below_it)
{
    char why[128] = "";
    CHECK(domain_mboot_testdev_fits(4 * MIB, why, sizeof(why)));
    CHECK(domain_mboot_testdev_fits(128 * MIB, why, sizeof(why)));
    CHECK(domain_mboot_testdev_fits(2048 * MIB, why, sizeof(why)));
    CHECK(domain_mboot_testdev_fits(TESTDEV_IOMEM_GPA, why, sizeof(why)));  /* ends there */
    CHECK_STR(why, "");
}

/* A RAM reaching 0xff000000 would be under the test memory: no test
 * memory, and why. */
TEST(ram_that_reaches_the_test_memory_is_named)
{
    char why[128] = "";
    CHECK(!domain_mboot_testdev_fits(TESTDEV_IOMEM_GPA + 2 * MIB, why, sizeof(why)));
    CHECK_STR(why, "its RAM, [0-0xff200000), overlaps [0xff000000-0xff010000)");
    CHECK(!domain_mboot_testdev_fits(4096 * MIB, why, sizeof(why)));
    CHECK(!domain_mboot_testdev_fits(64ull << 30, why, sizeof(why)));   /* the largest dom.N.mem= */
    CHECK(strstr(why, "its RAM, [0-0x1000000000)") == why);
}
