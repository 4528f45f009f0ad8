/* Builds a Linux domain's ACPI tables (see vmm/vhw/acpi_build.h). Layout in
 * the buffer, each table 16-byte aligned: RSDP, XSDT, FADT, MADT, DSDT. */
#include "vmm/vhw/acpi_build.h"

#include <stddef.h>

#include "vmm/vhw/acpi_sdt.h"
#include "lib/mem.h"

#define LOW_4G          0x100000000ull
#define TABLE_ALIGN     16u
#define OEM_ID          "VRTIGO"
#define OEM_TABLE_ID    "VERTIGO "
#define CREATOR_ID      "VRTG"

struct acpi_rsdp {
    char signature[8];
    uint8_t checksum;           /* over the first 20 bytes */
    char oem_id[6];
    uint8_t revision;
    uint32_t rsdt_address;
    uint32_t length;
    uint64_t xsdt_address;
    uint8_t extended_checksum;  /* over all 36 bytes */
    uint8_t reserved[3];
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_rsdp) == 36, "ACPI 5.2.5.3");

/* Generic Address Structure (ACPI 5.2.3.2). */
struct acpi_gas {
    uint8_t space_id;
    uint8_t bit_width;
    uint8_t bit_offset;
    uint8_t access_size;
    uint64_t address;
} __attribute__((packed));

#define GAS_SYSTEM_IO   1
#define GAS_ACCESS_BYTE 1
#define GAS_ACCESS_DWORD 3

/* FADT revision 6 (ACPI 6.x table 5.9). Fields a hardware-reduced
 * platform leaves zero are grouped as byte ranges. */
struct acpi_fadt {
    struct acpi_sdt_header header;
    uint32_t firmware_ctrl;
    uint32_t dsdt;
    uint8_t reserved0;
    uint8_t preferred_pm_profile;
    uint8_t legacy_blocks[30];      /* SCI_INT .. PM2_CNT_BLK (offsets 46-75): none */
    uint32_t pm_tmr_blk;            /* offset 76: the PM timer's port, or 0 */
    uint8_t legacy_lengths[11];     /* GPE0_BLK .. PM2_CNT_LEN: none */
    uint8_t pm_tmr_len;             /* offset 91 */
    uint8_t legacy_rest[17];        /* GPE0_BLK_LEN .. CENTURY (offsets 92-108): none */
    uint16_t iapc_boot_arch;        /* offset 109 */
    uint8_t reserved1;
    uint32_t flags;                 /* offset 112 */
    struct acpi_gas reset_reg;      /* offset 116 */
    uint8_t reset_value;
    uint16_t arm_boot_arch;
    uint8_t minor_version;
    uint64_t x_firmware_ctrl;       /* offset 132 */
    uint64_t x_dsdt;                /* offset 140 */
    struct acpi_gas x_pm_blocks[5]; /* X_PM1a_EVT_BLK .. X_PM2_CNT_BLK: none */
    struct acpi_gas x_pm_tmr_blk;   /* offset 208 */
    struct acpi_gas x_gpe_blocks[2];    /* X_GPE0_BLK, X_GPE1_BLK: none */
    struct acpi_gas sleep_control;  /* offset 244 */
    struct acpi_gas sleep_status;   /* offset 256 */
    char hypervisor_id[8];          /* offset 268 */
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_fadt) == 276, "ACPI 6.x FADT");
_Static_assert(offsetof(struct acpi_fadt, pm_tmr_blk) == 76, "FADT PM_TMR_BLK");
_Static_assert(offsetof(struct acpi_fadt, pm_tmr_len) == 91, "FADT PM_TMR_LEN");
_Static_assert(offsetof(struct acpi_fadt, flags) == 112, "FADT flags");
_Static_assert(offsetof(struct acpi_fadt, x_pm_tmr_blk) == 208, "FADT X_PM_TMR_BLK");
_Static_assert(offsetof(struct acpi_fadt, x_dsdt) == 140, "FADT X_DSDT");
_Static_assert(offsetof(struct acpi_fadt, sleep_control) == 244, "FADT sleep control");

#define FADT_WBINVD             (1u << 0)
#define FADT_PWR_BUTTON         (1u << 4)   /* no fixed-feature power button */
#define FADT_TMR_VAL_EXT        (1u << 8)   /* the PM timer counts 32 bits */
#define FADT_SLP_BUTTON         (1u << 5)
#define FADT_RESET_REG_SUP      (1u << 10)
#define FADT_FORCE_APIC_PHYS    (1u << 19)  /* physical destination mode */
#define FADT_HW_REDUCED_ACPI    (1u << 20)
/* IA-PC boot architecture flags: no 8042 (bit 1 clear), no VGA, no MSI,
 * no ASPM, no CMOS RTC. */
#define BOOT_ARCH_NO_VGA        (1u << 2)
#define BOOT_ARCH_NO_MSI        (1u << 3)
#define BOOT_ARCH_NO_ASPM       (1u << 4)
#define BOOT_ARCH_NO_CMOS_RTC   (1u << 5)

struct acpi_madt {
    struct acpi_sdt_header header;
    uint32_t local_apic_address;
    uint32_t flags;                 /* PCAT_COMPAT clear: no 8259 */
} __attribute__((packed));

struct madt_local_apic {            /* type 0, ACPI 5.2.12.2 */
    uint8_t type, length, processor_uid, apic_id;
    uint32_t flags;
} __attribute__((packed));

#define MADT_LAPIC_ENABLED  1u
/* APIC IDs stay below 255 (ACPI_BUILD_MAX_VCPUS), so local APIC entries
 * suffice: the spec keeps local x2APIC entries for IDs from 255 on. */
_Static_assert(ACPI_BUILD_MAX_VCPUS < 255, "MADT local APIC entries");

/* ---- AML of the DSDT (ACPI 6.x ch. 20) ---- */

/* Name (\_S5, Package () { 5, 5 }): SLP_TYP for S5 on the sleep control
 * register (both halves of the old PM1a/PM1b pair). */
static const uint8_t aml_s5[] = {
    0x08, '\\', '_', 'S', '5', '_',             /* NameOp \_S5_ */
    0x12, 0x06, 0x02,                           /* PackageOp, PkgLength 6, 2 elements */
    0x0a, ACPI_BUILD_S5_TYPE, 0x0a, ACPI_BUILD_S5_TYPE,    /* BytePrefix 5, BytePrefix 5 */
};

/* Scope (\_SB) { Device (COM1) { Name (_HID, EisaId ("PNP0501"))
 * Name (_UID, One) Name (_CRS, ResourceTemplate () {
 * IO (Decode16, 0x3F8, 0x3F8, 0x01, 0x08) }) } }: no IRQ resource. */
static const uint8_t aml_com1[] = {
    0x10, 0x30, '\\', '_', 'S', 'B', '_',       /* ScopeOp, PkgLength 48, \_SB_ */
    0x5b, 0x82, 0x28, 'C', 'O', 'M', '1',       /* DeviceOp, PkgLength 40, COM1 */
    0x08, '_', 'H', 'I', 'D', 0x0c, 0x41, 0xd0, 0x05, 0x01,    /* DWordPrefix EisaId */
    0x08, '_', 'U', 'I', 'D', 0x01,             /* OneOp */
    0x08, '_', 'C', 'R', 'S',
    0x11, 0x0d, 0x0a, 0x0a,                     /* BufferOp, PkgLength 13, size 10 */
    0x47, 0x01, 0xf8, 0x03, 0xf8, 0x03, 0x01, 0x08,   /* I/O port descriptor */
    0x79, 0x00,                                 /* end tag */
};

/* ---- helpers ---- */

static uint8_t checksum(const void *p, uint32_t len)
{
    const uint8_t *b = p;
    uint8_t sum = 0;

    for (uint32_t i = 0; i < len; i++)
        sum = (uint8_t)(sum + b[i]);
    return (uint8_t)(0u - sum);
}

static uint32_t align_up(uint32_t v)
{
    return (v + TABLE_ALIGN - 1) & ~(TABLE_ALIGN - 1);
}

static void fill_header(struct acpi_sdt_header *h, const char *sig, uint32_t length,
                        uint8_t revision)
{
    memcpy(h->signature, sig, 4);
    h->length = length;
    h->revision = revision;
    memcpy(h->oem_id, OEM_ID, 6);
    memcpy(h->oem_table_id, OEM_TABLE_ID, 8);
    h->oem_revision = 1;
    memcpy(h->creator_id, CREATOR_ID, 4);
    h->creator_revision = 1;
}

static void seal(struct acpi_sdt_header *h)
{
    h->checksum = 0;
    h->checksum = checksum(h, h->length);
}

static struct acpi_gas io_port(uint16_t port)
{
    return (struct acpi_gas){ .space_id = GAS_SYSTEM_IO, .bit_width = 8,
                              .access_size = GAS_ACCESS_BYTE, .address = port };
}

/* ---- the tables ---- */

static uint32_t madt_length(unsigned int vcpus)
{
    return (uint32_t)(sizeof(struct acpi_madt) + vcpus * sizeof(struct madt_local_apic));
}

static uint32_t dsdt_length(const struct acpi_build_config *cfg)
{
    return (uint32_t)(sizeof(struct acpi_sdt_header) + sizeof aml_s5 +
                      (cfg->com1 ? sizeof aml_com1 : 0));
}

static void build_madt(uint8_t *at, unsigned int vcpus)
{
    struct acpi_madt *madt = (struct acpi_madt *)at;
    uint8_t *entry = at + sizeof(*madt);

    fill_header(&madt->header, "APIC", madt_length(vcpus), 5);
    madt->local_apic_address = 0xfee00000u;
    for (unsigned int id = 0; id < vcpus; id++) {
        struct madt_local_apic e = { 0, sizeof e, (uint8_t)id, (uint8_t)id, MADT_LAPIC_ENABLED };
        memcpy(entry + id * sizeof e, &e, sizeof e);
    }
    seal(&madt->header);
}

static void build_dsdt(uint8_t *at, const struct acpi_build_config *cfg)
{
    struct acpi_sdt_header *h = (struct acpi_sdt_header *)at;
    uint8_t *aml = at + sizeof(*h);

    fill_header(h, "DSDT", dsdt_length(cfg), 2);    /* revision 2: 64-bit integers */
    memcpy(aml, aml_s5, sizeof aml_s5);
    if (cfg->com1)
        memcpy(aml + sizeof aml_s5, aml_com1, sizeof aml_com1);
    seal(h);
}

static void build_fadt(uint8_t *at, const struct acpi_build_config *cfg, uint64_t dsdt_gpa)
{
    struct acpi_fadt *f = (struct acpi_fadt *)at;

    fill_header(&f->header, "FACP", sizeof(*f), 6);
    f->dsdt = (uint32_t)dsdt_gpa;
    f->x_dsdt = dsdt_gpa;
    f->iapc_boot_arch = BOOT_ARCH_NO_VGA | BOOT_ARCH_NO_MSI | BOOT_ARCH_NO_ASPM |
                        BOOT_ARCH_NO_CMOS_RTC;
    f->flags = FADT_WBINVD | FADT_PWR_BUTTON | FADT_SLP_BUTTON | FADT_FORCE_APIC_PHYS |
               FADT_HW_REDUCED_ACPI;
    if (cfg->power_port) {
        f->flags |= FADT_RESET_REG_SUP;
        f->reset_reg = io_port((uint16_t)(cfg->power_port + ACPI_BUILD_RESET_OFFSET));
        f->reset_value = ACPI_BUILD_RESET_VALUE;
        f->sleep_control = io_port((uint16_t)(cfg->power_port + ACPI_BUILD_SLEEP_CONTROL_OFFSET));
        f->sleep_status = io_port((uint16_t)(cfg->power_port + ACPI_BUILD_SLEEP_STATUS_OFFSET));
    }
    if (cfg->pm_timer_port) {
        /* The 32-bit PM timer (ACPI 6.x 4.8.3.3), in the ACPI 1.0 field and
         * its extended twin. A hardware-reduced FADT tells an OS to ignore
         * both (5.2.9); they are there for readers such as kvm-unit-tests'
         * vmexit.flat that look for the port itself. */
        f->pm_tmr_blk = cfg->pm_timer_port;
        f->pm_tmr_len = ACPI_BUILD_PM_TIMER_LEN;
        f->x_pm_tmr_blk = (struct acpi_gas){ .space_id = GAS_SYSTEM_IO, .bit_width = 32,
                                             .access_size = GAS_ACCESS_DWORD,
                                             .address = cfg->pm_timer_port };
        f->flags |= FADT_TMR_VAL_EXT;
    }
    memcpy(f->hypervisor_id, "Vertigo\0", 8);
    seal(&f->header);
}

static void build_xsdt(uint8_t *at, const uint64_t *entries, unsigned int count)
{
    struct acpi_sdt_header *h = (struct acpi_sdt_header *)at;

    fill_header(h, "XSDT", (uint32_t)(sizeof(*h) + count * 8), 1);
    memcpy(at + sizeof(*h), entries, count * 8);
    seal(h);
}

static void build_rsdp(uint8_t *at, uint64_t xsdt_gpa)
{
    struct acpi_rsdp r = { .revision = 2, .length = sizeof r, .xsdt_address = xsdt_gpa };

    memcpy(r.signature, "RSD PTR ", 8);
    memcpy(r.oem_id, OEM_ID, 6);
    r.checksum = checksum(&r, 20);
    r.extended_checksum = checksum(&r, sizeof r);
    memcpy(at, &r, sizeof r);
}

/* Offsets of each table in the buffer. */
struct acpi_layout {
    uint32_t rsdp, xsdt, fadt, madt, dsdt, end;
};

static struct acpi_layout layout(const struct acpi_build_config *cfg)
{
    struct acpi_layout l;

    l.rsdp = 0;
    l.xsdt = align_up(sizeof(struct acpi_rsdp));
    l.fadt = align_up(l.xsdt + (uint32_t)sizeof(struct acpi_sdt_header) + 2 * 8);
    l.madt = align_up(l.fadt + (uint32_t)sizeof(struct acpi_fadt));
    l.dsdt = align_up(l.madt + madt_length(cfg->vcpus));
    l.end = l.dsdt + dsdt_length(cfg);
    return l;
}

static enum acpi_build_status check_config(const struct acpi_build_config *cfg, uint32_t size,
                                           const struct acpi_layout *l)
{
    if (cfg->vcpus == 0 || cfg->vcpus > ACPI_BUILD_MAX_VCPUS)
        return ACPI_BUILD_ERR_VCPUS;
    if (cfg->gpa % TABLE_ALIGN)
        return ACPI_BUILD_ERR_ALIGN;
    if (cfg->gpa >= LOW_4G || LOW_4G - cfg->gpa < l->end)
        return ACPI_BUILD_ERR_ADDRESS;  /* the FADT's 32-bit DSDT field must hold it */
    if (size < l->end)
        return ACPI_BUILD_ERR_SPACE;
    return ACPI_BUILD_OK;
}

enum acpi_build_status acpi_build_tables(const struct acpi_build_config *cfg, void *buf,
                                         uint32_t size, struct acpi_build_result *result)
{
    struct acpi_layout l = layout(cfg);
    enum acpi_build_status st = check_config(cfg, size, &l);
    uint8_t *b = buf;
    uint64_t tables[2] = { cfg->gpa + l.fadt, cfg->gpa + l.madt };

    if (st != ACPI_BUILD_OK)
        return st;
    memset(b, 0, l.end);
    build_dsdt(b + l.dsdt, cfg);
    build_madt(b + l.madt, cfg->vcpus);
    build_fadt(b + l.fadt, cfg, cfg->gpa + l.dsdt);
    build_xsdt(b + l.xsdt, tables, 2);
    build_rsdp(b + l.rsdp, cfg->gpa + l.xsdt);
    *result = (struct acpi_build_result){ .rsdp_gpa = cfg->gpa + l.rsdp, .bytes = l.end };
    return ACPI_BUILD_OK;
}

enum acpi_power_request acpi_build_power_write(uint16_t power_port, uint16_t port,
                                               uint8_t value)
{
    uint8_t sleep_type = (value & ACPI_BUILD_SLP_TYP_MASK) >> ACPI_BUILD_SLP_TYP_SHIFT;

    if (power_port == 0)
        return ACPI_POWER_NONE;
    if (port == power_port + ACPI_BUILD_SLEEP_CONTROL_OFFSET && (value & ACPI_BUILD_SLP_EN) &&
        sleep_type == ACPI_BUILD_S5_TYPE)
        return ACPI_POWER_OFF;
    if (port == power_port + ACPI_BUILD_RESET_OFFSET && value == ACPI_BUILD_RESET_VALUE)
        return ACPI_POWER_RESET;
    return ACPI_POWER_NONE;
}

const char *acpi_build_error(enum acpi_build_status status)
{
    switch (status) {
    case ACPI_BUILD_OK:          return "no error";
    case ACPI_BUILD_ERR_VCPUS:   return "ACPI tables: VCPU count must be 1..64";
    case ACPI_BUILD_ERR_ALIGN:   return "ACPI tables: address not 16-byte aligned";
    case ACPI_BUILD_ERR_ADDRESS: return "ACPI tables: must lie below 4 GiB";
    case ACPI_BUILD_ERR_SPACE:   return "ACPI tables: buffer too small";
    }
    return "ACPI tables: unknown error";
}
