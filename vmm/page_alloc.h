/* Physical page allocator over the usable RAM the loader reported, minus
 * everything that must not be handed out (hypervisor image, multiboot2
 * info, modules, the first megabyte). Portable and host-tested.
 *
 * Allocation is from the highest free addresses down, so the low, densely
 * used part of memory stays contiguous for the guest. Pages can be freed
 * back; adjacent free ranges merge. Not thread-safe: used on the BSP
 * during start-up, or under the caller's lock. */
#ifndef VMM_PAGE_ALLOC_H
#define VMM_PAGE_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/loader/boot_info.h"

#define PAGE_SIZE   4096ull
#define PAGE_SHIFT  12
#define PALLOC_MAX_RANGES 256

struct phys_range {
    uint64_t base;      /* first byte */
    uint64_t end;       /* one past the last byte */
};

struct page_allocator {
    struct phys_range free[PALLOC_MAX_RANGES]; /* sorted, disjoint, page-aligned */
    uint32_t count;
    uint64_t total_pages;   /* usable pages at init, after exclusions */
    uint64_t free_pages;
};

enum palloc_status {
    PALLOC_OK = 0,
    PALLOC_ERR_TOO_MANY_RANGES,
    PALLOC_ERR_NO_MEMORY,
};

/* Builds the free list from the MEM_USABLE ranges of `bi` (rounded inward
 * to whole pages), removing every range in `excl` (rounded outward). */
enum palloc_status palloc_init(struct page_allocator *pa, const struct boot_info *bi,
                               const struct phys_range *excl, size_t excl_count);

/* Returns the physical address of `npages` contiguous pages aligned to
 * `align` bytes (a power of two >= PAGE_SIZE), below `limit` (exclusive; 0
 * for no limit), or 0 when no such run exists. Memory is not zeroed. */
uint64_t palloc_alloc(struct page_allocator *pa, uint64_t npages, uint64_t align,
                      uint64_t limit);

/* Gives pages back. Freeing pages that are already free is detected and
 * rejected (returns false). */
bool palloc_free(struct page_allocator *pa, uint64_t phys, uint64_t npages);

/* Removes [base, end) from the free list (e.g. a range handed to a guest).
 * Returns false if the list would overflow. */
bool palloc_reserve(struct page_allocator *pa, uint64_t base, uint64_t end);

#endif
