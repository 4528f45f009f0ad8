/* Unit tests: QEMU's pc-testdev data port (vmm/vhw/testdev.c), as
 * kvm-unit-tests' emulator.flat uses it (OUTW 0x9999 then byte INs at
 * 0xe0) and as QEMU's device answers accesses at 0xe1-0xe3. */
#include "vmm/vhw/testdev.h"

#include "tests/unit/unit.h"

static uint32_t in(struct testdev *t, uint16_t port, unsigned int size)
{
    uint32_t v = 0xdeadbeef;
    CHECK(testdev_io(t, port, size, true, &v));
    return v;
}

static void out(struct testdev *t, uint16_t port, unsigned int size, uint32_t value)
{
    CHECK(testdev_io(t, port, size, false, &value));
}

TEST(reads_back_what_was_written_at_each_width)
{
    struct testdev t = { 0 };
    CHECK_EQ(in(&t, 0xe0, 4), 0);
    out(&t, 0xe0, 2, 0x9999);
    CHECK_EQ(in(&t, 0xe0, 1), 0x99);
    CHECK_EQ(in(&t, 0xe0, 4), 0x9999);
    out(&t, 0xe0, 1, 0x1234567a);               /* only the low byte is the port's */
    CHECK_EQ(in(&t, 0xe0, 4), 0x997a);
    out(&t, 0xe0, 4, 0x11223344);
    CHECK_EQ(in(&t, 0xe0, 2), 0x3344);
    CHECK_EQ(in(&t, 0xe0, 4), 0x11223344);
}

TEST(an_offset_port_reaches_its_own_bytes)
{
    struct testdev t = { 0 };
    out(&t, 0xe0, 4, 0x11223344);
    CHECK_EQ(in(&t, 0xe1, 1), 0x33);
    CHECK_EQ(in(&t, 0xe2, 2), 0x1122);
    CHECK_EQ(in(&t, 0xe3, 1), 0x11);
    out(&t, 0xe2, 1, 0xab);
    CHECK_EQ(in(&t, 0xe0, 4), 0x11ab3344);
    out(&t, 0xe1, 2, 0xcdef);
    CHECK_EQ(in(&t, 0xe0, 4), 0x11cdef44);
}

/* Accesses that are not the data port's: the caller treats them as an
 * unknown port's; nothing is stored and *value is left alone. */
TEST(other_ports_and_widths_are_not_the_devices)
{
    struct testdev t = { 0 };
    out(&t, 0xe0, 4, 0x11223344);
    uint32_t v = 0x55667788;
    CHECK(!testdev_io(&t, 0xe1, 4, false, &v));     /* bytes past 0xe3 */
    CHECK(!testdev_io(&t, 0xe3, 2, false, &v));
    CHECK(!testdev_io(&t, 0xe2, 4, true, &v));
    CHECK(!testdev_io(&t, 0xe0, 3, false, &v));     /* no such width */
    CHECK(!testdev_io(&t, 0xe0, 8, true, &v));
    CHECK(!testdev_io(&t, 0xe4, 4, false, &v));     /* QEMU's flush port: not emulated */
    CHECK(!testdev_io(&t, 0xdf, 1, false, &v));
    CHECK(!testdev_io(&t, 0xe8, 1, true, &v));
    CHECK_EQ(v, 0x55667788);
    CHECK_EQ(in(&t, 0xe0, 4), 0x11223344);
    CHECK(testdev_owns_port(0xe0) && testdev_owns_port(0xe3));
    CHECK(!testdev_owns_port(0xdf) && !testdev_owns_port(0xe4));
}
