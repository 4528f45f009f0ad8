/* The guest's physical memory map: the firmware map with Vertigo's own
 * memory taken out, in the e820 form the Linux boot protocol carries in
 * boot_params (zero-page.rst: e820_table, at most 128 entries). Portable. */
#ifndef VMM_E820_H
#define VMM_E820_H

#include <stddef.h>
#include <stdint.h>

#include "vmm/loader/boot_info.h"
#include "vmm/page_alloc.h"

#define E820_MAX_ENTRIES 128   /* boot_params.e820_table size */

/* Sorted by base, disjoint, adjacent entries of one type merged; types are
 * enum mem_type values. */
struct e820_table {
    struct mem_range entries[E820_MAX_ENTRIES];
    uint32_t count;
};

enum e820_status {
    E820_OK = 0,
    E820_ERR_TOO_MANY_ENTRIES,  /* the result needs more than 128 entries */
    E820_ERR_NO_USABLE_RAM,     /* nothing usable is left for the guest */
};

/* Builds the guest map from `fw` (firmware ranges; any order, may overlap,
 * zero-length ranges ignored) minus `excl` (Vertigo's memory, rounded out
 * to whole pages). Where firmware ranges overlap, the more restrictive
 * type wins (usable < ACPI reclaimable < reserved < ACPI NVS < bad <
 * unknown type numbers, those by value). Excluded memory the firmware called
 * usable or ACPI-reclaimable becomes MEM_RESERVED; excluded memory in a
 * firmware hole stays a hole. Returns E820_OK or why `out` is not usable. */
enum e820_status e820_build(struct e820_table *out,
                            const struct mem_range *fw, size_t fw_count,
                            const struct phys_range *excl, size_t excl_count);

/* Total bytes of MEM_USABLE in `t`. */
uint64_t e820_usable_bytes(const struct e820_table *t);

/* A one-line English description of `status` (never NULL). */
const char *e820_strerror(enum e820_status status);

#endif
