/* The ACPI power-management timer of a multiboot domain (ACPI 6.x 4.8.3.3,
 * the FADT's PM_TMR_BLK): a free-running count at 3.579545 MHz that the
 * guest reads with a 32-bit IN from one I/O port and cannot write. The
 * count is derived from the machine's TSC since the domain was built,
 * which the domain's own TSC follows at a fixed offset: a guest's writes
 * to IA32_TSC or TSC_ADJUST move its TSC, not this clock, as on a PC,
 * where the PM timer is a clock of its own. It is 32 bits wide (the
 * FADT's TMR_VAL_EXT) and wraps, at this rate, every 20 minutes.
 *
 * Only a 4-byte IN at the port reads the count. Any other access to the
 * four ports of the block (a 1- or 2-byte IN, an IN at port+1..port+3, an
 * OUT) is refused: an IN reads all ones (as from no device), an OUT is
 * dropped, and the caller reports it. kvm-unit-tests' vmexit.flat reads it
 * (inl_from_pmtimer). Portable: the domain's I/O exit handler calls it. */
#ifndef VMM_ACPI_PMTIMER_H
#define VMM_ACPI_PMTIMER_H

#include <stdbool.h>
#include <stdint.h>

#define ACPI_PMTIMER_HZ        3579545u
#define ACPI_PMTIMER_PORTS     4u          /* the FADT's PM_TMR_LEN */
/* The TSC rates the count's arithmetic holds for without overflow: the
 * remainder of a second of TSC ticks times the timer's rate fits 64 bits. */
#define ACPI_PMTIMER_MAX_TSC_HZ (1ull << 42)

struct acpi_pmtimer {
    uint16_t port;              /* PM_TMR_BLK; 0: no timer */
    uint64_t tsc_hz;
    uint64_t base_tsc;          /* the machine's TSC at count 0 */
};

enum acpi_pmtimer_status {
    ACPI_PMTIMER_READ,          /* a 4-byte IN at the port: *value is the count */
    ACPI_PMTIMER_BAD_SIZE,      /* an IN of 1 or 2 bytes: *value is all ones */
    ACPI_PMTIMER_BAD_PORT,      /* an IN at port+1..port+3: *value is all ones */
    ACPI_PMTIMER_WRITE,         /* an OUT: the register is read-only, dropped */
};

/* A timer at `port` counting from machine TSC `now_tsc`. False (and no
 * timer: port 0) when port is 0, the block would pass port 0xffff, or
 * tsc_hz is 0 or not below ACPI_PMTIMER_MAX_TSC_HZ. */
bool acpi_pmtimer_init(struct acpi_pmtimer *t, uint16_t port, uint64_t tsc_hz, uint64_t now_tsc);

/* True for the block's four ports (never when there is no timer). */
bool acpi_pmtimer_owns_port(const struct acpi_pmtimer *t, uint16_t port);

/* The count at machine TSC `now_tsc` (modulo 2^32). */
uint32_t acpi_pmtimer_count(const struct acpi_pmtimer *t, uint64_t now_tsc);

/* An access of `size` bytes (1, 2 or 4) at a port the timer owns; for an
 * IN, *value is what the guest reads (all `size` bytes of it). */
enum acpi_pmtimer_status acpi_pmtimer_io(const struct acpi_pmtimer *t, uint16_t port,
                                         unsigned int size, bool in, uint64_t now_tsc,
                                         uint32_t *value);

/* A sentence naming a refused access's status. */
const char *acpi_pmtimer_refusal(enum acpi_pmtimer_status st);

#endif
