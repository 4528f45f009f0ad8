/* Unit tests for decoding CPUID leaf 0AH. */
#include "pmu/backend/pmu_desc.h"
#include "tests/unit/unit.h"

/* Bochs 2.7 corei7_skylake_x: version 4, 4 GP x 48 bits, 7-bit event vector
 * with every event available, 3 fixed x 48 bits. */
TEST(decode_bochs_skylake_v4)
{
    struct pmu_desc d;
    pmu_cpuid_decode(0x07300404, 0x00000000, 0, 0x00000603, &d);
    CHECK_EQ(d.version, 4);
    CHECK_EQ(d.gp_counters, 4);
    CHECK_EQ(d.gp_width, 48);
    CHECK_EQ(d.fixed_counters, 3);
    CHECK_EQ(d.fixed_width, 48);
    CHECK_EQ(d.fixed_mask, 0x7);
    CHECK_EQ(d.events_available, 0x7f);
}

TEST(decode_unavailable_events_and_short_vector)
{
    struct pmu_desc d;
    /* vector length 5: events 5.. are unknown, EBX bit 4 says LLC misses absent */
    pmu_cpuid_decode(0x05280203, 0x00000010, 0, 0x00000402, &d);
    CHECK_EQ(d.version, 3);
    CHECK_EQ(d.gp_counters, 2);
    CHECK_EQ(d.gp_width, 40);
    CHECK_EQ(d.events_available, 0x0f);
    CHECK_EQ(d.fixed_counters, 2);
    CHECK_EQ(d.fixed_width, 32);
}

TEST(decode_v1_has_no_fixed_counters)
{
    struct pmu_desc d;
    pmu_cpuid_decode(0x07280201, 0, 0, 0x00000603, &d);
    CHECK_EQ(d.version, 1);
    CHECK_EQ(d.fixed_counters, 0);
    CHECK_EQ(d.fixed_mask, 0);
}

TEST(decode_v5_fixed_bitmap)
{
    struct pmu_desc d;
    /* EDX[4:0] = 0 but ECX says fixed counters 0, 1 and 3 exist. */
    pmu_cpuid_decode(0x08300805, 0, 0x0b, 0x00000600, &d);
    CHECK_EQ(d.version, 5);
    CHECK_EQ(d.fixed_mask, 0x0b);
    CHECK_EQ(d.fixed_counters, 4);
    CHECK_EQ(d.events_available, 0xff);
}

TEST(decode_absent)
{
    struct pmu_desc d;
    pmu_cpuid_decode(0, 0, 0, 0, &d);
    CHECK_EQ(d.version, 0);
    char buf[128];
    pmu_desc_format(&d, buf, sizeof(buf));
    CHECK_STR(buf, "cpuid 0xa: no architectural PMU");
}

TEST(format_lists_available_events)
{
    struct pmu_desc d;
    char buf[256];
    pmu_cpuid_decode(0x07300404, 0x00000004, 0, 0x00000603, &d);
    pmu_desc_format(&d, buf, sizeof(buf));
    CHECK(strstr(buf, "version 4, 4 GP counters x 48 bits") != NULL);
    CHECK(strstr(buf, " cycles instructions cache-references") != NULL);
    CHECK(strstr(buf, "ref-cycles") == NULL);
    char tiny[16];
    int n = pmu_desc_format(&d, tiny, sizeof(tiny));
    CHECK(n > (int)sizeof(tiny));
    CHECK_EQ(strlen(tiny), sizeof(tiny) - 1);
}
