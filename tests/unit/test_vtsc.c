/* Unit tests: a domain's TSC offset and TSC_ADJUST (vmm/vhw/vtsc.c), the
 * checks of kvm-unit-tests' tsc_adjust test on a machine TSC the test
 * moves. */
#include "vmm/vhw/vtsc.h"

#include "tests/unit/unit.h"

TEST(tsc_adjust_moves_the_tsc_and_back)
{
    struct vtsc t = { 0, 0 };
    uint64_t host = 1000;
    CHECK_EQ(vtsc_guest(&t, host), 1000);
    vtsc_write_adjust(&t, 100000000000ull);
    CHECK_EQ(t.adjust, 100000000000ull);
    CHECK_EQ(vtsc_guest(&t, host + 5), 100000001005ull);
    vtsc_write_adjust(&t, 0);
    CHECK_EQ(vtsc_guest(&t, host + 7), 1007);
}

TEST(tsc_write_moves_tsc_adjust_by_the_same)
{
    struct vtsc t = { 0, 0 };
    vtsc_write_tsc(&t, 5000, 100000000000ull);
    CHECK_EQ(vtsc_guest(&t, 5000), 100000000000ull);
    CHECK_EQ(vtsc_guest(&t, 5010), 100000000010ull);
    CHECK_EQ(t.adjust, 100000000000ull - 5000);
    /* tsc_adjust.flat: the internal TSC (guest - adjust) advances across the write */
    CHECK(5000 <= vtsc_guest(&t, 5000) - t.adjust);
    /* Backwards: modulo 2^64, as the hardware's. */
    vtsc_write_tsc(&t, 6000, 0);
    CHECK_EQ(vtsc_guest(&t, 6000), 0);
    CHECK_EQ(vtsc_guest(&t, 6001), 1);
    CHECK_EQ(t.adjust, (uint64_t)-6000);
}

TEST(deadlines_convert_to_the_machine_tsc)
{
    struct vtsc t = { 0, 0 };
    vtsc_write_tsc(&t, 100, 1000000);
    CHECK_EQ(vtsc_host(&t, 1000050), 150);
    CHECK_EQ(vtsc_host(&t, UINT64_MAX), UINT64_MAX);
}
