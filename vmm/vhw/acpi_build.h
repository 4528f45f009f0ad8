/* The ACPI tables of a domain other than domain 0 (ACPI 6.x ch. 5):
 * RSDP (revision 2), XSDT, a hardware-reduced FADT (for a multiboot
 * domain naming a 32-bit PM timer, vmm/vhw/acpi_pmtimer.h), a MADT with
 * one local APIC entry per VCPU and no I/O APIC, and a DSDT holding \_S5
 * and, optionally, the COM1 UART without an IRQ (so Linux's 8250 driver
 * polls it). Built into a caller's buffer that will sit at a given
 * guest-physical address; the caller lists that range as
 * ACPI (e820 type 3) and passes rsdp_gpa in boot_params.acpi_rsdp_addr.
 * Portable. */
#ifndef VMM_ACPI_BUILD_H
#define VMM_ACPI_BUILD_H

#include <stdbool.h>
#include <stdint.h>

#define ACPI_BUILD_MAX_VCPUS   64
#define ACPI_BUILD_MAX_BYTES   4096     /* enough for ACPI_BUILD_MAX_VCPUS */

/* The power ports the FADT names (ACPI 6.x 4.8.3.7-4.8.3.9, 5.2.9): the
 * domain's I/O handler ends it on a write of SLP_EN with SLP_TYP 5 (S5)
 * to the sleep control port, or of the reset value to the reset port. */
#define ACPI_BUILD_SLEEP_CONTROL_OFFSET 0
#define ACPI_BUILD_SLEEP_STATUS_OFFSET  1
#define ACPI_BUILD_RESET_OFFSET         2
#define ACPI_BUILD_PORT_COUNT           3
#define ACPI_BUILD_SLP_EN        0x20
#define ACPI_BUILD_SLP_TYP_SHIFT 2
#define ACPI_BUILD_SLP_TYP_MASK  0x1c
#define ACPI_BUILD_S5_TYPE       5      /* the \_S5 package's value */
#define ACPI_BUILD_RESET_VALUE   0x01
#define ACPI_BUILD_PM_TIMER_LEN  4      /* PM_TMR_LEN: one 32-bit register */

struct acpi_build_config {
    uint64_t gpa;           /* guest-physical address of the buffer: 16-byte aligned, below 4 GiB */
    unsigned int vcpus;     /* 1..ACPI_BUILD_MAX_VCPUS; APIC IDs 0..vcpus-1 */
    uint16_t power_port;    /* first of ACPI_BUILD_PORT_COUNT I/O ports, or 0 for none */
    bool com1;              /* describe COM1 (PNP0501 at 0x3f8, no IRQ) in the DSDT */
    uint16_t pm_timer_port; /* PM_TMR_BLK of a 32-bit ACPI PM timer, or 0 for none */
};

struct acpi_build_result {
    uint64_t rsdp_gpa;      /* for boot_params.acpi_rsdp_addr */
    uint32_t bytes;         /* bytes of the buffer used, from its start */
};

enum acpi_build_status {
    ACPI_BUILD_OK,
    ACPI_BUILD_ERR_VCPUS,       /* 0 or more than ACPI_BUILD_MAX_VCPUS */
    ACPI_BUILD_ERR_ALIGN,       /* gpa not 16-byte aligned */
    ACPI_BUILD_ERR_ADDRESS,     /* the tables would not all lie below 4 GiB */
    ACPI_BUILD_ERR_SPACE,       /* the buffer is too small */
};

/* Writes the tables into buf[0, size) (zeroing what it uses). On error
 * *result is untouched and the buffer may hold partial tables. */
enum acpi_build_status acpi_build_tables(const struct acpi_build_config *cfg, void *buf,
                                         uint32_t size, struct acpi_build_result *result);

enum acpi_power_request {
    ACPI_POWER_NONE,        /* not a power request (or not one of the ports) */
    ACPI_POWER_OFF,         /* SLP_EN with SLP_TYP 5 on the sleep control port */
    ACPI_POWER_RESET,       /* the reset value on the reset port */
};

/* What a one-byte OUT of `value` to `port` asks for, with the power ports
 * at `power_port` as the FADT names them (ACPI 6.x 4.8.3.7, 4.8.3.6).
 * Other sleep types, the status port and other values ask for nothing. */
enum acpi_power_request acpi_build_power_write(uint16_t power_port, uint16_t port,
                                               uint8_t value);

/* A sentence naming the error. */
const char *acpi_build_error(enum acpi_build_status status);

#endif
