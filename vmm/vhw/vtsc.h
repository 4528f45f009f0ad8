/* The TSC a domain with virtual hardware sees (SDM Vol. 3B 18.17): the
 * machine's TSC plus an offset the VMCS applies to RDTSC/RDTSCP, moved by
 * the guest's writes to IA32_TSC and IA32_TSC_ADJUST as the SDM describes
 * (18.17.3): writing the TSC adds the same change to TSC_ADJUST, writing
 * TSC_ADJUST adds its change to the TSC. Neither write reaches the
 * machine's TSC, which Vertigo's own accounting reads. All arithmetic is
 * modulo 2^64, as the counters wrap. Portable and host-tested. */
#ifndef VMM_VTSC_H
#define VMM_VTSC_H

#include <stdint.h>

struct vtsc {
    uint64_t offset;            /* guest TSC = host TSC + offset (the VMCS TSC offset) */
    uint64_t adjust;            /* IA32_TSC_ADJUST as the guest reads it */
};

/* The guest's TSC when the machine's reads `host`. */
uint64_t vtsc_guest(const struct vtsc *t, uint64_t host);

/* The machine's TSC when the guest's reads `guest` (for deadlines);
 * UINT64_MAX ("never") stays UINT64_MAX. */
uint64_t vtsc_host(const struct vtsc *t, uint64_t guest);

/* WRMSR IA32_TSC of `value` at machine TSC `host`. */
void vtsc_write_tsc(struct vtsc *t, uint64_t host, uint64_t value);

/* WRMSR IA32_TSC_ADJUST of `value`. */
void vtsc_write_adjust(struct vtsc *t, uint64_t value);

#endif
