/* Unit tests: a Linux domain's CMOS clock (vmm/vhw/vrtc.c): the registers
 * Linux's mc146818_get_time reads, in BCD, following the TSC in whole
 * seconds; the status registers that let a reader go on at once; the
 * refused accesses; no clock without a TSC rate. */
#include "vmm/vhw/vrtc.h"

#include "tests/unit/unit.h"

#define TSC_HZ 50000000ull              /* Bochs' 50 M instructions a second */
#define BASE_TSC 777ull
#define START 1796006130ull             /* 2026-11-30 02:35:30 UTC, a Monday */

static uint8_t reg(struct vrtc *c, uint8_t r, uint64_t tsc)
{
    uint32_t v = r;
    CHECK_EQ(vrtc_io(c, VRTC_INDEX_PORT, 1, false, tsc, &v), VRTC_DONE);
    v = 0;
    CHECK_EQ(vrtc_io(c, VRTC_DATA_PORT, 1, true, tsc, &v), VRTC_DONE);
    return (uint8_t)v;
}

TEST(reads_the_date_in_bcd)
{
    struct vrtc c;
    CHECK(vrtc_init(&c, START, BASE_TSC, TSC_HZ));
    CHECK_EQ(reg(&c, 0x00, BASE_TSC), 0x30);
    CHECK_EQ(reg(&c, 0x02, BASE_TSC), 0x35);
    CHECK_EQ(reg(&c, 0x04, BASE_TSC), 0x02);
    CHECK_EQ(reg(&c, 0x06, BASE_TSC), 0x02);       /* Monday: Sunday is 1 */
    CHECK_EQ(reg(&c, 0x07, BASE_TSC), 0x30);
    CHECK_EQ(reg(&c, 0x08, BASE_TSC), 0x11);
    CHECK_EQ(reg(&c, 0x09, BASE_TSC), 0x26);
    CHECK_EQ(reg(&c, 0x32, BASE_TSC), 0x20);
    /* bit 7 of the index (the NMI mask) does not change the register */
    CHECK_EQ(reg(&c, 0x80 | 0x09, BASE_TSC), 0x26);
}

TEST(status_registers_never_make_a_reader_wait)
{
    struct vrtc c;
    CHECK(vrtc_init(&c, START, BASE_TSC, TSC_HZ));
    for (uint64_t t = BASE_TSC; t < BASE_TSC + 3 * TSC_HZ; t += TSC_HZ / 7)
        CHECK_EQ(reg(&c, 0x0a, t) & 0x80, 0);      /* UIP */
    CHECK_EQ(reg(&c, 0x0a, BASE_TSC), 0x26);
    CHECK_EQ(reg(&c, 0x0b, BASE_TSC), 0x02);       /* 24-hour, BCD */
    CHECK_EQ(reg(&c, 0x0c, BASE_TSC), 0x00);
    CHECK_EQ(reg(&c, 0x0d, BASE_TSC), 0x80);       /* data valid */
    CHECK_EQ(reg(&c, 0x01, BASE_TSC), 0x00);       /* an alarm */
    CHECK_EQ(reg(&c, 0x7f, BASE_TSC), 0x00);       /* NVRAM */
}

/* Linux writes the shutdown status byte (0x0f) around starting its APs. */
TEST(nvram_keeps_what_the_guest_writes)
{
    struct vrtc c;
    uint32_t v;
    CHECK(vrtc_init(&c, START, BASE_TSC, TSC_HZ));
    for (uint8_t r = 0x0e; r < VRTC_REGISTERS; r++) {
        if (r == 0x32)
            continue;
        v = r;
        CHECK_EQ(vrtc_io(&c, VRTC_INDEX_PORT, 1, false, BASE_TSC, &v), VRTC_DONE);
        v = (uint8_t)(r ^ 0xa5);
        CHECK_EQ(vrtc_io(&c, VRTC_DATA_PORT, 1, false, BASE_TSC, &v), VRTC_DONE);
    }
    for (uint8_t r = 0x0e; r < VRTC_REGISTERS; r++)
        if (r != 0x32)
            CHECK_EQ(reg(&c, r, BASE_TSC), (uint8_t)(r ^ 0xa5));
    /* the century is the clock's, not NVRAM: the write is refused */
    v = 0x32;
    vrtc_io(&c, VRTC_INDEX_PORT, 1, false, BASE_TSC, &v);
    v = 0x19;
    CHECK_EQ(vrtc_io(&c, VRTC_DATA_PORT, 1, false, BASE_TSC, &v), VRTC_WRITE);
    CHECK_EQ(reg(&c, 0x32, BASE_TSC), 0x20);
}

TEST(follows_the_tsc_in_whole_seconds)
{
    struct vrtc c;
    CHECK(vrtc_init(&c, START, BASE_TSC, TSC_HZ));
    CHECK_EQ(reg(&c, 0x00, BASE_TSC + TSC_HZ - 1), 0x30);
    CHECK_EQ(reg(&c, 0x00, BASE_TSC + TSC_HZ), 0x31);
    /* 21 h 24 min 30 s later: midnight, December 1st, a Tuesday */
    uint64_t later = BASE_TSC + (21 * 3600 + 24 * 60 + 30) * TSC_HZ;
    CHECK_EQ(reg(&c, 0x04, later), 0x00);
    CHECK_EQ(reg(&c, 0x02, later), 0x00);
    CHECK_EQ(reg(&c, 0x00, later), 0x00);
    CHECK_EQ(reg(&c, 0x07, later), 0x01);
    CHECK_EQ(reg(&c, 0x08, later), 0x12);
    CHECK_EQ(reg(&c, 0x06, later), 0x03);
    /* a TSC before the base shows the base; the far future saturates */
    CHECK_EQ(reg(&c, 0x00, 0), 0x30);
    CHECK(vrtc_init(&c, UINT64_MAX - 1, 0, 1));
    CHECK_EQ(reg(&c, 0x32, UINT64_MAX), 0x99);
    CHECK_EQ(reg(&c, 0x09, UINT64_MAX), 0x99);
}

TEST(refused_accesses)
{
    struct vrtc c;
    uint32_t v;
    CHECK(vrtc_init(&c, START, BASE_TSC, TSC_HZ));
    reg(&c, 0x09, BASE_TSC);
    v = 0x55;
    CHECK_EQ(vrtc_io(&c, VRTC_DATA_PORT, 1, false, BASE_TSC, &v), VRTC_WRITE);
    CHECK_EQ(reg(&c, 0x09, BASE_TSC), 0x26);       /* the write changed nothing */
    CHECK_EQ(vrtc_io(&c, VRTC_INDEX_PORT, 1, true, BASE_TSC, &v), VRTC_INDEX_READ);
    CHECK_EQ(v, 0xff);
    CHECK_EQ(vrtc_io(&c, VRTC_DATA_PORT, 2, true, BASE_TSC, &v), VRTC_BAD_SIZE);
    CHECK_EQ(v, 0xffff);
    v = 0x0a;
    CHECK_EQ(vrtc_io(&c, VRTC_INDEX_PORT, 4, false, BASE_TSC, &v), VRTC_BAD_SIZE);
    v = 0;
    CHECK_EQ(vrtc_io(&c, VRTC_DATA_PORT, 1, true, BASE_TSC, &v), VRTC_DONE);
    CHECK_EQ(v, 0x26);                              /* still the year: the wide OUT was dropped */
    CHECK(strcmp(vrtc_refusal(VRTC_WRITE), "not refused") != 0);
    CHECK(strcmp(vrtc_refusal(VRTC_INDEX_READ), "not refused") != 0);
    CHECK(strcmp(vrtc_refusal(VRTC_BAD_SIZE), "not refused") != 0);
}

TEST(no_clock_without_a_tsc_rate)
{
    struct vrtc c;
    CHECK(!vrtc_init(&c, START, BASE_TSC, 0));
    CHECK(!vrtc_owns_port(&c, VRTC_INDEX_PORT));
    CHECK(vrtc_init(&c, START, BASE_TSC, TSC_HZ));
    CHECK(vrtc_owns_port(&c, VRTC_INDEX_PORT));
    CHECK(vrtc_owns_port(&c, VRTC_DATA_PORT));
    CHECK(!vrtc_owns_port(&c, 0x72));
}
