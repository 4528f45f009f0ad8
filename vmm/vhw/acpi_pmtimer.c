/* A multiboot domain's ACPI PM timer (see vmm/vhw/acpi_pmtimer.h). */
#include "vmm/vhw/acpi_pmtimer.h"

#define ALL_ONES 0xffffffffu

bool acpi_pmtimer_init(struct acpi_pmtimer *t, uint16_t port, uint64_t tsc_hz, uint64_t now_tsc)
{
    *t = (struct acpi_pmtimer){ 0 };
    if (!port || port > 0x10000u - ACPI_PMTIMER_PORTS || !tsc_hz ||
        tsc_hz >= ACPI_PMTIMER_MAX_TSC_HZ)
        return false;
    *t = (struct acpi_pmtimer){ .port = port, .tsc_hz = tsc_hz, .base_tsc = now_tsc };
    return true;
}

bool acpi_pmtimer_owns_port(const struct acpi_pmtimer *t, uint16_t port)
{
    return t->port && port >= t->port && (unsigned int)(port - t->port) < ACPI_PMTIMER_PORTS;
}

/* ticks * HZ / tsc_hz without a 128-bit product: whole seconds of TSC
 * ticks, then the remainder, below tsc_hz < 2^42, times HZ < 2^22. The
 * whole seconds' product may wrap 64 bits: the count is taken modulo
 * 2^32, which divides 2^64. */
uint32_t acpi_pmtimer_count(const struct acpi_pmtimer *t, uint64_t now_tsc)
{
    if (!t->tsc_hz)
        return 0;
    uint64_t ticks = now_tsc - t->base_tsc;
    uint64_t seconds = ticks / t->tsc_hz, rest = ticks % t->tsc_hz;
    return (uint32_t)(seconds * ACPI_PMTIMER_HZ + rest * ACPI_PMTIMER_HZ / t->tsc_hz);
}

enum acpi_pmtimer_status acpi_pmtimer_io(const struct acpi_pmtimer *t, uint16_t port,
                                         unsigned int size, bool in, uint64_t now_tsc,
                                         uint32_t *value)
{
    uint32_t mask = size >= 4 ? ALL_ONES : (1u << (size * 8)) - 1;
    *value = ALL_ONES & mask;
    if (!in)
        return ACPI_PMTIMER_WRITE;
    if (port != t->port)
        return ACPI_PMTIMER_BAD_PORT;
    if (size != 4)
        return ACPI_PMTIMER_BAD_SIZE;
    *value = acpi_pmtimer_count(t, now_tsc);
    return ACPI_PMTIMER_READ;
}

const char *acpi_pmtimer_refusal(enum acpi_pmtimer_status st)
{
    switch (st) {
    case ACPI_PMTIMER_BAD_SIZE:
        return "a read narrower than 32 bits (reads all ones)";
    case ACPI_PMTIMER_BAD_PORT:
        return "a read inside the block, not at its first port (reads all ones)";
    case ACPI_PMTIMER_WRITE:
        return "a write to the read-only count (dropped)";
    default:
        return "not refused";
    }
}
