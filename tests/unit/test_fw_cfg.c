/* Unit tests: the fw_cfg items a test kernel reads (vmm/vhw/fw_cfg.c), read as
 * kvm-unit-tests' lib/x86/fwcfg.c does (16-bit selector, byte reads). */
#include "vmm/vhw/fw_cfg.h"

#include "tests/unit/unit.h"

static uint64_t item(struct fw_cfg *f, uint16_t index, unsigned int bytes)
{
    uint64_t v = 0;
    fw_cfg_write(f, FW_CFG_PORT_SELECTOR, 2, index);
    for (unsigned int i = 0; i < bytes; i++)
        v |= (uint64_t)fw_cfg_read(f, FW_CFG_PORT_DATA, 1) << (8 * i);
    return v;
}

TEST(items_read_as_kvm_unit_tests_reads_them)
{
    struct fw_cfg f;
    fw_cfg_init(&f, 1, 128ull << 20);
    CHECK_EQ(item(&f, FW_CFG_SIGNATURE, 4), 0x554d4551);     /* "QEMU" */
    CHECK_EQ(item(&f, FW_CFG_ID, 4), 1);
    CHECK_EQ(item(&f, FW_CFG_NB_CPUS, 2), 1);
    CHECK_EQ(item(&f, FW_CFG_MAX_CPUS, 2), 1);
    CHECK_EQ(item(&f, FW_CFG_RAM_SIZE, 8), 128ull << 20);
    CHECK_EQ(item(&f, 0x11, 8), 0);                          /* unknown: zeros */
    CHECK_EQ(item(&f, 0x8000, 8), 0);
}

TEST(reads_past_the_end_and_rewinds)
{
    struct fw_cfg f;
    fw_cfg_init(&f, 3, 0x123456789aull);
    CHECK_EQ(item(&f, FW_CFG_NB_CPUS, 4), 3);                /* bytes 2, 3: zero */
    CHECK_EQ(fw_cfg_read(&f, FW_CFG_PORT_DATA, 1), 0);
    fw_cfg_write(&f, FW_CFG_PORT_SELECTOR, 2, FW_CFG_RAM_SIZE);
    CHECK_EQ(fw_cfg_read(&f, FW_CFG_PORT_DATA, 4), 0x3456789a);   /* a wide read: four bytes */
    CHECK_EQ(fw_cfg_read(&f, FW_CFG_PORT_DATA, 2), 0x0012);
    fw_cfg_write(&f, FW_CFG_PORT_DATA, 1, 0x55);                  /* ignored */
    CHECK_EQ(fw_cfg_read(&f, FW_CFG_PORT_SELECTOR, 2), 0);
    CHECK_EQ(item(&f, FW_CFG_RAM_SIZE, 1), 0x9a);                 /* the selector rewinds */
    CHECK(fw_cfg_owns_port(0x510) && fw_cfg_owns_port(0x511) && !fw_cfg_owns_port(0x512));
}
