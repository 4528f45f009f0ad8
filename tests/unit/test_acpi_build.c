/* A Linux domain's ACPI tables, parsed back from the bytes (offsets from
 * the ACPI 6.x tables, not from vmm/vhw/acpi_build.c's structures): every
 * checksum and length, the RSDP -> XSDT -> FADT/MADT -> DSDT chain, the
 * FADT's hardware-reduced flags and power registers, one MADT entry per
 * VCPU and no I/O APIC, and the DSDT's AML package lengths. */
#include "tests/unit/unit.h"
#include "vmm/vhw/acpi_build.h"

#define GPA 0x9e000ull

static uint8_t buf[ACPI_BUILD_MAX_BYTES];

static uint32_t u16_at(const uint8_t *p) { return p[0] | (uint32_t)p[1] << 8; }
static uint32_t u32_at(const uint8_t *p) { return u16_at(p) | u16_at(p + 2) << 16; }
static uint64_t u64_at(const uint8_t *p) { return u32_at(p) | (uint64_t)u32_at(p + 4) << 32; }

static uint8_t sum(const uint8_t *p, uint32_t len)
{
    uint8_t s = 0;
    while (len--)
        s = (uint8_t)(s + *p++);
    return s;
}

/* The table at guest address `gpa` inside the built range, checked:
 * signature, length inside the range, checksum zero. */
static const uint8_t *table(const struct acpi_build_result *r, uint64_t gpa, const char *sig)
{
    const uint8_t *t;

    if (!CHECK(gpa >= GPA && gpa + 36 <= GPA + r->bytes))
        return NULL;
    t = buf + (gpa - GPA);
    if (!CHECK(memcmp(t, sig, 4) == 0) || !CHECK(gpa + u32_at(t + 4) <= GPA + r->bytes))
        return NULL;
    CHECK_EQ(sum(t, u32_at(t + 4)), 0);
    CHECK(memcmp(t + 10, "VRTIGO", 6) == 0);
    return t;
}

static struct acpi_build_result build(unsigned int vcpus, bool com1)
{
    struct acpi_build_config cfg = { .gpa = GPA, .vcpus = vcpus, .power_port = 0x600,
                                     .com1 = com1 };
    struct acpi_build_result r = { 0 };

    memset(buf, 0xcc, sizeof buf);
    CHECK_EQ(acpi_build_tables(&cfg, buf, sizeof buf, &r), ACPI_BUILD_OK);
    CHECK(r.bytes > 0 && r.bytes <= sizeof buf);
    return r;
}

static const uint8_t *xsdt_entry(const struct acpi_build_result *r, const char *sig)
{
    const uint8_t *rsdp = buf + (r->rsdp_gpa - GPA);
    const uint8_t *xsdt = table(r, u64_at(rsdp + 24), "XSDT");

    if (!xsdt)
        return NULL;
    for (uint32_t off = 36; off + 8 <= u32_at(xsdt + 4); off += 8) {
        uint64_t gpa = u64_at(xsdt + off);
        if (gpa >= GPA && gpa < GPA + r->bytes && memcmp(buf + (gpa - GPA), sig, 4) == 0)
            return table(r, gpa, sig);
    }
    unit_fail(__FILE__, __LINE__, "no %s in the XSDT", sig);
    return NULL;
}

TEST(rsdp_v2_checksums_and_xsdt)
{
    struct acpi_build_result r = build(1, true);
    const uint8_t *rsdp = buf + (r.rsdp_gpa - GPA), *xsdt;

    CHECK_EQ(r.rsdp_gpa % 16, 0);
    CHECK(memcmp(rsdp, "RSD PTR ", 8) == 0);
    CHECK_EQ(sum(rsdp, 20), 0);
    CHECK_EQ(sum(rsdp, 36), 0);
    CHECK_EQ(rsdp[15], 2);                      /* revision */
    CHECK_EQ(u32_at(rsdp + 16), 0);             /* no RSDT */
    CHECK_EQ(u32_at(rsdp + 20), 36);
    xsdt = table(&r, u64_at(rsdp + 24), "XSDT");
    if (xsdt)
        CHECK_EQ(u32_at(xsdt + 4), 36 + 2 * 8);  /* FACP and APIC */
}

TEST(fadt_is_hardware_reduced_with_power_registers)
{
    struct acpi_build_result r = build(1, true);
    const uint8_t *f = xsdt_entry(&r, "FACP");

    if (!f)
        return;
    CHECK_EQ(u32_at(f + 4), 276);
    CHECK_EQ(f[8], 6);
    CHECK(u32_at(f + 112) & (1u << 20));        /* HW_REDUCED_ACPI */
    CHECK(u32_at(f + 112) & (1u << 19));        /* physical destination mode */
    CHECK(u32_at(f + 112) & (1u << 10));        /* RESET_REG_SUP */
    CHECK_EQ(u16_at(f + 109) & 0x2, 0);         /* no 8042 */
    CHECK(u16_at(f + 109) & (1u << 5));         /* no CMOS RTC */
    CHECK_EQ(u32_at(f + 36), 0);                /* no FACS */
    CHECK_EQ(u16_at(f + 46), 0);                /* no SCI */
    CHECK_EQ(u32_at(f + 64), 0);                /* no PM1a control block */
    /* sleep control/status and reset: byte I/O ports 0x600, 0x601, 0x602 */
    CHECK_EQ(f[244], 1);
    CHECK_EQ(f[245], 8);
    CHECK_EQ(u64_at(f + 248), 0x600);
    CHECK_EQ(f[256], 1);
    CHECK_EQ(u64_at(f + 260), 0x601);
    CHECK_EQ(f[116], 1);
    CHECK(f[117] == 8 && f[118] == 0);          /* Linux's acpi_reboot wants 8 bits at 0 */
    CHECK_EQ(u64_at(f + 120), 0x602);
    CHECK_EQ(f[128], ACPI_BUILD_RESET_VALUE);
    CHECK_EQ(u64_at(f + 140), u32_at(f + 40));  /* X_DSDT = DSDT */
    table(&r, u64_at(f + 140), "DSDT");
    /* no PM timer unless asked for (a Linux domain's FADT) */
    CHECK_EQ(u32_at(f + 76), 0);
    CHECK_EQ(f[91], 0);
    CHECK_EQ(u64_at(f + 212), 0);
    CHECK_EQ(u32_at(f + 112) & (1u << 8), 0);
}

/* A multiboot domain's PM timer: PM_TMR_BLK (offset 76) with PM_TMR_LEN
 * 4 (offset 91), X_PM_TMR_BLK (offset 208) a 32-bit system-I/O register
 * at the same port, TMR_VAL_EXT (flags bit 8): a 32-bit count. */
TEST(fadt_names_the_pm_timer_when_asked)
{
    struct acpi_build_config cfg = { .gpa = GPA, .vcpus = 1, .power_port = 0x600,
                                     .com1 = true, .pm_timer_port = 0x608 };
    struct acpi_build_result r;
    const uint8_t *f;

    memset(buf, 0xcc, sizeof buf);
    CHECK_EQ(acpi_build_tables(&cfg, buf, sizeof buf, &r), ACPI_BUILD_OK);
    if (!(f = xsdt_entry(&r, "FACP")))
        return;
    CHECK_EQ(u32_at(f + 76), 0x608);
    CHECK_EQ(f[91], 4);
    CHECK_EQ(f[208], 1);                        /* system I/O */
    CHECK_EQ(f[209], 32);
    CHECK_EQ(f[210], 0);
    CHECK_EQ(f[211], 3);                        /* dword access */
    CHECK_EQ(u64_at(f + 212), 0x608);
    CHECK(u32_at(f + 112) & (1u << 8));
    CHECK(u32_at(f + 112) & (1u << 20));        /* still hardware-reduced */
    CHECK_EQ(u32_at(f + 80), 0);                /* no GPE0 block */
    CHECK_EQ(u64_at(f + 248), 0x600);           /* the power ports unchanged */
}

TEST(madt_one_enabled_local_apic_per_vcpu_and_nothing_else)
{
    for (unsigned int vcpus = 1; vcpus <= ACPI_BUILD_MAX_VCPUS; vcpus += 21) {
        struct acpi_build_result r = build(vcpus, false);
        const uint8_t *m = xsdt_entry(&r, "APIC");
        unsigned int seen = 0;

        if (!m)
            continue;
        CHECK_EQ(u32_at(m + 36), 0xfee00000u);
        CHECK_EQ(u32_at(m + 40), 0);            /* no PCAT_COMPAT: no 8259 */
        for (uint32_t off = 44; off < u32_at(m + 4); off += m[off + 1]) {
            if (!CHECK(m[off + 1] >= 2))
                break;
            CHECK_EQ(m[off], 0);                /* local APIC, never an I/O APIC */
            CHECK_EQ(m[off + 1], 8);
            CHECK_EQ(m[off + 2], seen);         /* processor UID */
            CHECK_EQ(m[off + 3], seen);         /* APIC ID */
            CHECK_EQ(u32_at(m + off + 4), 1);   /* enabled */
            seen++;
        }
        CHECK_EQ(seen, vcpus);
    }
}

/* A one-byte PkgLength (ACPI 20.2.4): the encoder never needs more. */
static uint32_t pkg_length(const uint8_t *p)
{
    CHECK_EQ(*p >> 6, 0);
    return *p & 0x3f;
}

TEST(dsdt_aml_s5_and_com1)
{
    struct acpi_build_result r = build(1, true);
    const uint8_t *f = xsdt_entry(&r, "FACP"), *d, *aml, *end;
    static const uint8_t s5[] = { 0x08, '\\', '_', 'S', '5', '_', 0x12, 0x06, 0x02,
                                  0x0a, 0x05, 0x0a, 0x05 };
    static const uint8_t hid[] = { 0x08, '_', 'H', 'I', 'D', 0x0c, 0x41, 0xd0, 0x05, 0x01 };

    if (!f || !(d = table(&r, u64_at(f + 140), "DSDT")))
        return;
    CHECK_EQ(d[8], 2);
    aml = d + 36;
    end = d + u32_at(d + 4);
    CHECK(memcmp(aml, s5, sizeof s5) == 0);
    aml += sizeof s5;
    /* Scope (\_SB) spans the rest of the table; Device (COM1) the rest of the scope */
    CHECK_EQ(aml[0], 0x10);
    CHECK_EQ(aml + 1 + pkg_length(aml + 1), end);
    CHECK(memcmp(aml + 2, "\\_SB_", 5) == 0);
    aml += 7;
    CHECK(aml[0] == 0x5b && aml[1] == 0x82);
    CHECK_EQ(aml + 2 + pkg_length(aml + 2), end);
    CHECK(memcmp(aml + 3, "COM1", 4) == 0);
    CHECK(memcmp(aml + 7, hid, sizeof hid) == 0);       /* EisaId ("PNP0501") */
    aml += 7 + sizeof hid + 6;                          /* _HID, _UID */
    CHECK(memcmp(aml, "\x08_CRS\x11", 6) == 0);
    CHECK_EQ(aml + 6 + pkg_length(aml + 6), end);       /* the buffer ends the device */
    CHECK(aml[7] == 0x0a && aml[8] == 10);              /* buffer size 10 */
    CHECK_EQ(aml[9], 0x47);                             /* I/O descriptor, no IRQ one */
    CHECK_EQ(u16_at(aml + 11), 0x3f8);
    CHECK_EQ(u16_at(aml + 13), 0x3f8);
    CHECK_EQ(aml[16], 8);
    CHECK(aml[17] == 0x79 && aml + 19 == end);          /* end tag closes the buffer */
}

TEST(dsdt_without_com1_holds_only_s5)
{
    struct acpi_build_result r = build(2, false);
    const uint8_t *f = xsdt_entry(&r, "FACP"), *d;

    if (f && (d = table(&r, u64_at(f + 140), "DSDT")))
        CHECK_EQ(u32_at(d + 4), 36 + 13);
}

TEST(no_power_port_leaves_the_registers_out)
{
    struct acpi_build_config cfg = { .gpa = GPA, .vcpus = 1 };
    struct acpi_build_result r;
    const uint8_t *f;

    CHECK_EQ(acpi_build_tables(&cfg, buf, sizeof buf, &r), ACPI_BUILD_OK);
    if (!(f = xsdt_entry(&r, "FACP")))
        return;
    CHECK_EQ(u32_at(f + 112) & (1u << 10), 0);
    CHECK_EQ(u64_at(f + 248), 0);
    CHECK_EQ(u64_at(f + 120), 0);
}

TEST(bad_configurations_are_refused)
{
    struct acpi_build_result r = { .rsdp_gpa = 7, .bytes = 7 };
    struct acpi_build_config ok = { .gpa = GPA, .vcpus = 1 }, c;

    c = ok; c.vcpus = 0;
    CHECK_EQ(acpi_build_tables(&c, buf, sizeof buf, &r), ACPI_BUILD_ERR_VCPUS);
    c = ok; c.vcpus = ACPI_BUILD_MAX_VCPUS + 1;
    CHECK_EQ(acpi_build_tables(&c, buf, sizeof buf, &r), ACPI_BUILD_ERR_VCPUS);
    c = ok; c.gpa = GPA + 8;
    CHECK_EQ(acpi_build_tables(&c, buf, sizeof buf, &r), ACPI_BUILD_ERR_ALIGN);
    c = ok; c.gpa = 0x100000000ull;
    CHECK_EQ(acpi_build_tables(&c, buf, sizeof buf, &r), ACPI_BUILD_ERR_ADDRESS);
    c = ok; c.gpa = 0x100000000ull - 256;
    CHECK_EQ(acpi_build_tables(&c, buf, sizeof buf, &r), ACPI_BUILD_ERR_ADDRESS);
    CHECK_EQ(acpi_build_tables(&ok, buf, 200, &r), ACPI_BUILD_ERR_SPACE);
    CHECK_EQ(r.rsdp_gpa, 7);
    CHECK_EQ(r.bytes, 7);
    CHECK_STR(acpi_build_error(ACPI_BUILD_ERR_SPACE), "ACPI tables: buffer too small");
}

/* What Linux writes: acpi_hw_extended_sleep clears WAK_STS (0x80) on the
 * status port, then SLP_TYP << 2 | SLP_EN on the control port; reboot
 * writes the FADT's reset value to the reset register. */
TEST(power_port_writes)
{
    CHECK_EQ(acpi_build_power_write(0x600, 0x600, (5u << 2) | 0x20), ACPI_POWER_OFF);
    CHECK_EQ(acpi_build_power_write(0x600, 0x601, 0x80), ACPI_POWER_NONE);
    CHECK_EQ(acpi_build_power_write(0x600, 0x600, 5u << 2), ACPI_POWER_NONE);     /* no SLP_EN */
    CHECK_EQ(acpi_build_power_write(0x600, 0x600, (3u << 2) | 0x20), ACPI_POWER_NONE);  /* S3 */
    CHECK_EQ(acpi_build_power_write(0x600, 0x602, ACPI_BUILD_RESET_VALUE), ACPI_POWER_RESET);
    CHECK_EQ(acpi_build_power_write(0x600, 0x602, 0x06), ACPI_POWER_NONE);
    CHECK_EQ(acpi_build_power_write(0x600, 0x603, ACPI_BUILD_RESET_VALUE), ACPI_POWER_NONE);
    CHECK_EQ(acpi_build_power_write(0, 0x2, ACPI_BUILD_RESET_VALUE), ACPI_POWER_NONE);
    CHECK_EQ(acpi_build_power_write(0, 0, 0x34), ACPI_POWER_NONE);
}
