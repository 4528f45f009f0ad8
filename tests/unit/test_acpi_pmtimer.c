/* Unit tests: a multiboot domain's ACPI PM timer (vmm/vhw/acpi_pmtimer.c):
 * its rate against the TSC (whole seconds exact, the rest rounded down),
 * the 32-bit wrap, the refused accesses and configurations. */
#include "vmm/vhw/acpi_pmtimer.h"

#include "tests/unit/unit.h"

#define PORT   0x608u
#define TSC_HZ 2000000000ull            /* a 2 GHz TSC */

static uint32_t read32(const struct acpi_pmtimer *t, uint64_t tsc)
{
    uint32_t v = 0;
    CHECK_EQ(acpi_pmtimer_io(t, PORT, 4, true, tsc, &v), ACPI_PMTIMER_READ);
    return v;
}

TEST(counts_at_3579545_hz_from_the_domains_start)
{
    struct acpi_pmtimer t;
    uint64_t base = 123456789ull;
    CHECK(acpi_pmtimer_init(&t, PORT, TSC_HZ, base));
    CHECK_EQ(read32(&t, base), 0);
    CHECK_EQ(read32(&t, base + TSC_HZ), ACPI_PMTIMER_HZ);           /* one second */
    CHECK_EQ(read32(&t, base + TSC_HZ / 2), ACPI_PMTIMER_HZ / 2);   /* 1789772.5, rounded down */
    CHECK_EQ(read32(&t, base + 558), 0);     /* one PM tick is 558.7 TSC ticks */
    CHECK_EQ(read32(&t, base + 559), 1);
    CHECK_EQ(read32(&t, base + 10 * TSC_HZ + 560), 10 * ACPI_PMTIMER_HZ + 1);
}

/* 2^32 / 3579545 Hz = 1199.86 s: after 1200 s of TSC the count has
 * wrapped once, to 1200 * HZ - 2^32. */
TEST(wraps_at_32_bits)
{
    struct acpi_pmtimer t;
    CHECK(acpi_pmtimer_init(&t, PORT, TSC_HZ, 0));
    CHECK_EQ(acpi_pmtimer_count(&t, 1200 * TSC_HZ),
             (uint32_t)(1200ull * ACPI_PMTIMER_HZ - (1ull << 32)));
    /* Exact against 128-bit arithmetic at the extremes: a slow TSC over
     * 2^64 ticks, where the whole seconds' product wraps 64 bits (the
     * count keeps the low 32 bits of the exact one), and the fastest TSC
     * allowed, where the remainder's product is largest. */
    static const uint64_t rates[] = { 1000, 3579545, TSC_HZ, ACPI_PMTIMER_MAX_TSC_HZ - 1 };
    static const uint64_t tscs[] = { UINT64_MAX, 10000000000000000000ull, (1ull << 42) - 2 };
    for (unsigned int i = 0; i < 4; i++) {
        CHECK(acpi_pmtimer_init(&t, PORT, rates[i], 0));
        for (unsigned int j = 0; j < 3; j++)
            CHECK_EQ(acpi_pmtimer_count(&t, tscs[j]),
                     (uint32_t)((unsigned __int128)tscs[j] * ACPI_PMTIMER_HZ / rates[i]));
    }
}

/* The machine's TSC below the base (another CPU's TSC a little behind):
 * the difference is taken modulo 2^64, as the counters are. */
TEST(tsc_arithmetic_is_modulo_2_64)
{
    struct acpi_pmtimer t;
    CHECK(acpi_pmtimer_init(&t, PORT, TSC_HZ, UINT64_MAX - TSC_HZ + 1));
    CHECK_EQ(read32(&t, 0), ACPI_PMTIMER_HZ);       /* one second later, across the wrap */
}

TEST(only_a_32_bit_read_at_the_port_reads_the_count)
{
    struct acpi_pmtimer t;
    uint32_t v;
    CHECK(acpi_pmtimer_init(&t, PORT, TSC_HZ, 0));
    CHECK(acpi_pmtimer_owns_port(&t, PORT) && acpi_pmtimer_owns_port(&t, PORT + 3));
    CHECK(!acpi_pmtimer_owns_port(&t, PORT - 1) && !acpi_pmtimer_owns_port(&t, PORT + 4));
    CHECK_EQ(acpi_pmtimer_io(&t, PORT, 1, true, TSC_HZ, &v), ACPI_PMTIMER_BAD_SIZE);
    CHECK_EQ(v, 0xff);
    CHECK_EQ(acpi_pmtimer_io(&t, PORT, 2, true, TSC_HZ, &v), ACPI_PMTIMER_BAD_SIZE);
    CHECK_EQ(v, 0xffff);
    CHECK_EQ(acpi_pmtimer_io(&t, PORT + 2, 2, true, TSC_HZ, &v), ACPI_PMTIMER_BAD_PORT);
    CHECK_EQ(v, 0xffff);
    CHECK_EQ(acpi_pmtimer_io(&t, PORT + 1, 4, true, TSC_HZ, &v), ACPI_PMTIMER_BAD_PORT);
    CHECK_EQ(v, 0xffffffffu);
    CHECK_EQ(acpi_pmtimer_io(&t, PORT, 4, false, TSC_HZ, &v), ACPI_PMTIMER_WRITE);
    CHECK_EQ(read32(&t, TSC_HZ), ACPI_PMTIMER_HZ);  /* the write changed nothing */
    CHECK(acpi_pmtimer_refusal(ACPI_PMTIMER_WRITE)[0] != '\0');
    CHECK_STR(acpi_pmtimer_refusal(ACPI_PMTIMER_READ), "not refused");
}

TEST(bad_configurations_give_no_timer)
{
    struct acpi_pmtimer t;
    CHECK(!acpi_pmtimer_init(&t, 0, TSC_HZ, 0));
    CHECK(!acpi_pmtimer_init(&t, 0xfffd, TSC_HZ, 0));      /* the block would pass 0xffff */
    CHECK(acpi_pmtimer_init(&t, 0xfffc, TSC_HZ, 0));
    CHECK(!acpi_pmtimer_init(&t, PORT, 0, 0));
    CHECK(!acpi_pmtimer_init(&t, PORT, ACPI_PMTIMER_MAX_TSC_HZ, 0));
    CHECK_EQ(t.port, 0);
    CHECK(!acpi_pmtimer_owns_port(&t, 0) && !acpi_pmtimer_owns_port(&t, 3));
    CHECK_EQ(acpi_pmtimer_count(&t, 12345), 0);
}
