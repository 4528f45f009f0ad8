/* Vertigo's own memory: one region carved out of RAM at start-up, never
 * mapped into any guest. Every page Vertigo needs after start-up (VMCS,
 * EPT tables, bitmaps, log buffers) comes from here. */
#ifndef VMM_HEAP_H
#define VMM_HEAP_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/page_alloc.h"

#define HEAP_BYTES (32ull << 20)    /* what start-up takes for Vertigo's heap */

/* Takes `bytes` (rounded up to 2 MiB) from `boot_pa`, below 4 GiB (the
 * hypervisor's identity map). Returns false if RAM is too small. */
bool heap_init(struct page_allocator *boot_pa, uint64_t bytes);

/* Returns `npages` zeroed, contiguous, page-aligned pages, or 0 when the
 * heap is exhausted (callers report the failure). */
uint64_t heap_alloc_pages(uint64_t npages);

/* The region, for exclusion from guests. */
struct phys_range heap_range(void);

/* Pages still free. */
uint64_t heap_free_pages(void);

#endif
