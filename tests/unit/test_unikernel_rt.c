/* The unikernel runtime's portable parts (guestlib/unikernel/): the heap's
 * break, TSC ticks as time, and argv from the module's arguments. */
#include "tests/unit/unit.h"

#include "guestlib/unikernel/uk_args.h"
#include "guestlib/unikernel/uk_heap.h"
#include "guestlib/unikernel/uk_time.h"

TEST(heap_grows_and_shrinks_inside_the_free_range)
{
    struct uk_heap h = { 0x300000, 0x300000, 0x400000 };

    CHECK_EQ(uk_heap_grow(&h, 0x1000), 0x300000);
    CHECK_EQ(h.brk, 0x301000);
    CHECK_EQ(uk_heap_grow(&h, 0), 0x301000);
    CHECK_EQ(uk_heap_grow(&h, 0xff000), 0x301000);   /* up to the end exactly */
    CHECK_EQ(h.brk, 0x400000);
    CHECK_EQ(uk_heap_grow(&h, -0x100000), 0x400000); /* back to the start exactly */
    CHECK_EQ(h.brk, 0x300000);
}

TEST(heap_refuses_to_leave_the_free_range)
{
    struct uk_heap h = { 0x300000, 0x380000, 0x400000 };

    CHECK_EQ(uk_heap_grow(&h, 0x80001), UK_HEAP_REFUSED);
    CHECK_EQ(uk_heap_grow(&h, -0x80001), UK_HEAP_REFUSED);
    CHECK_EQ(uk_heap_grow(&h, INT64_MAX), UK_HEAP_REFUSED);
    CHECK_EQ(uk_heap_grow(&h, INT64_MIN), UK_HEAP_REFUSED);
    CHECK_EQ(h.brk, 0x380000);                        /* unchanged by refusals */
    struct uk_heap empty = { 0x300000, 0x300000, 0x300000 };
    CHECK_EQ(uk_heap_grow(&empty, 1), UK_HEAP_REFUSED);
    CHECK_EQ(uk_heap_grow(&empty, 0), 0x300000);
}

TEST(tsc_ticks_as_time)
{
    const uint64_t hz = 2600363000ull;               /* a 2.6 GHz TSC */

    CHECK_EQ(uk_tsc_to_units(0, hz, UK_NSEC_PER_SEC), 0);
    CHECK_EQ(uk_tsc_to_units(hz, hz, UK_NSEC_PER_SEC), UK_NSEC_PER_SEC);
    CHECK_EQ(uk_tsc_to_units(hz - 1, hz, 1000), 999);  /* rounded down */
    CHECK_EQ(uk_tsc_to_units(3 * hz + hz / 2, hz, 1000000), 3500000);
    /* No overflow where ticks * per_second would: 2^63 ticks. */
    CHECK_EQ(uk_tsc_to_units(1ull << 63, 1000000000ull, UK_NSEC_PER_SEC), 1ull << 63);
    CHECK_EQ(uk_tsc_to_units(UINT64_MAX, hz, 1), UINT64_MAX / hz);
    /* The remainder's product near 2^64: an 18 GHz TSC in nanoseconds. */
    CHECK_EQ(uk_tsc_to_units(18000000000ull - 1, 18000000000ull, UK_NSEC_PER_SEC),
             UK_NSEC_PER_SEC - 1);
}

TEST(args_split_at_spaces)
{
    char line[] = "  0   100000 x ";
    char *argv[8] = { "unikernel" };

    CHECK_EQ(uk_split_args(line, argv, 1, 7), 4);
    CHECK_STR(argv[0], "unikernel");
    CHECK_STR(argv[1], "0");
    CHECK_STR(argv[2], "100000");
    CHECK_STR(argv[3], "x");
    CHECK(argv[4] == NULL);
}

TEST(args_empty_and_too_many)
{
    char empty[] = "", spaces[] = "   ", many[] = "a b c d e";
    char *argv[4] = { "unikernel" };

    CHECK_EQ(uk_split_args(empty, argv, 1, 3), 1);
    CHECK(argv[1] == NULL);
    CHECK_EQ(uk_split_args(spaces, argv, 1, 3), 1);
    CHECK(argv[1] == NULL);
    CHECK_EQ(uk_split_args(many, argv, 1, 3), 3);     /* the rest is dropped */
    CHECK_STR(argv[2], "b");
    CHECK(argv[3] == NULL);
}
