/* Physical page allocator (contract: vmm/page_alloc.h). The free list is a
 * sorted array of disjoint, page-aligned, non-touching ranges; allocation
 * carves from the top of the highest range that fits. Every operation
 * checks that it has the array slots it needs before changing anything,
 * so a failed call leaves the allocator as it was. */
#include "vmm/page_alloc.h"

#include "lib/mem.h"

/* The first megabyte (real-mode IVT, BDA, EBDA, option ROMs, and the
 * trampolines APs start in) is never handed out; this also keeps physical
 * address 0, the failure value of palloc_alloc, out of the free list. */
#define PALLOC_LOW_RESERVED (1ull << 20)

static uint64_t page_down(uint64_t addr)
{
    return addr & ~(PAGE_SIZE - 1);
}

/* Rounds up, saturating at the highest page boundary. */
static uint64_t page_up(uint64_t addr)
{
    if (addr > UINT64_MAX - (PAGE_SIZE - 1))
        return page_down(UINT64_MAX);
    return page_down(addr + PAGE_SIZE - 1);
}

static void remove_slot(struct page_allocator *pa, uint32_t i)
{
    memmove(&pa->free[i], &pa->free[i + 1], (pa->count - i - 1) * sizeof(pa->free[0]));
    pa->count--;
}

static void insert_slot(struct page_allocator *pa, uint32_t i, uint64_t base, uint64_t end)
{
    memmove(&pa->free[i + 1], &pa->free[i], (pa->count - i) * sizeof(pa->free[0]));
    pa->free[i].base = base;
    pa->free[i].end = end;
    pa->count++;
}

/* Index of the first range whose end is above `addr` (count if none). */
static uint32_t first_ending_after(const struct page_allocator *pa, uint64_t addr)
{
    uint32_t i = 0;

    while (i < pa->count && pa->free[i].end <= addr)
        i++;
    return i;
}

/* Adds the page-aligned [base, end), which must not overlap a free range,
 * merging with neighbours it touches. False if a new slot was needed and
 * none is left. */
static bool add_free(struct page_allocator *pa, uint64_t base, uint64_t end)
{
    uint32_t i = first_ending_after(pa, base);
    bool joins_prev = i > 0 && pa->free[i - 1].end == base;
    bool joins_next = i < pa->count && pa->free[i].base == end;

    if (joins_prev && joins_next) {
        pa->free[i - 1].end = pa->free[i].end;
        remove_slot(pa, i);
    } else if (joins_prev) {
        pa->free[i - 1].end = end;
    } else if (joins_next) {
        pa->free[i].base = base;
    } else {
        if (pa->count == PALLOC_MAX_RANGES)
            return false;
        insert_slot(pa, i, base, end);
    }
    pa->free_pages += (end - base) >> PAGE_SHIFT;
    return true;
}

/* Removes the page-aligned [base, end) from the free list. Only a cut
 * strictly inside one range needs a new slot; that is checked first. */
static bool remove_free(struct page_allocator *pa, uint64_t base, uint64_t end)
{
    uint32_t i = first_ending_after(pa, base);

    if (i < pa->count && pa->free[i].base < base && pa->free[i].end > end) {
        if (pa->count == PALLOC_MAX_RANGES)
            return false;
        insert_slot(pa, i + 1, end, pa->free[i].end);
        pa->free[i].end = base;
        pa->free_pages -= (end - base) >> PAGE_SHIFT;
        return true;
    }
    while (i < pa->count && pa->free[i].base < end) {
        struct phys_range *r = &pa->free[i];
        uint64_t cut_lo = r->base > base ? r->base : base;
        uint64_t cut_hi = r->end < end ? r->end : end;
        pa->free_pages -= (cut_hi - cut_lo) >> PAGE_SHIFT;
        if (cut_lo == r->base && cut_hi == r->end) {
            remove_slot(pa, i);
            continue;
        }
        if (cut_lo == r->base)
            r->base = cut_hi;
        else
            r->end = cut_lo;
        i++;
    }
    return true;
}

enum palloc_status palloc_init(struct page_allocator *pa, const struct boot_info *bi,
                               const struct phys_range *excl, size_t excl_count)
{
    memset(pa, 0, sizeof(*pa));
    for (uint32_t i = 0; i < bi->mem_count; i++) {
        const struct mem_range *r = &bi->mem[i];
        if (r->type != MEM_USABLE)
            continue;
        uint64_t end = r->length > UINT64_MAX - r->base ? UINT64_MAX : r->base + r->length;
        uint64_t base = page_up(r->base);
        end = page_down(end);
        if (base >= end)
            continue;
        /* Usable ranges may touch or overlap (bi is external input): add
         * only the parts not already free. */
        if (!remove_free(pa, base, end) || !add_free(pa, base, end))
            return PALLOC_ERR_TOO_MANY_RANGES;
    }
    if (!remove_free(pa, 0, PALLOC_LOW_RESERVED))
        return PALLOC_ERR_TOO_MANY_RANGES;
    for (size_t i = 0; i < excl_count; i++) {
        if (excl[i].end > excl[i].base && !palloc_reserve(pa, excl[i].base, excl[i].end))
            return PALLOC_ERR_TOO_MANY_RANGES;
    }
    pa->total_pages = pa->free_pages;
    return pa->free_pages ? PALLOC_OK : PALLOC_ERR_NO_MEMORY;
}

/* The highest `size`-byte block aligned to `align` inside r and below
 * `limit` (0: none); false if there is none. */
static bool fit_in_range(const struct phys_range *r, uint64_t size, uint64_t align,
                         uint64_t limit, uint64_t *out)
{
    uint64_t top = (limit != 0 && limit < r->end) ? page_down(limit) : r->end;

    if (top < r->base || top - r->base < size)
        return false;
    *out = (top - size) & ~(align - 1);
    return *out >= r->base;
}

uint64_t palloc_alloc(struct page_allocator *pa, uint64_t npages, uint64_t align, uint64_t limit)
{
    if (npages == 0 || npages > (UINT64_MAX >> PAGE_SHIFT))
        return 0;
    if (align < PAGE_SIZE || (align & (align - 1)) != 0)
        return 0;
    uint64_t size = npages << PAGE_SHIFT;

    for (uint32_t i = pa->count; i-- > 0;) {
        uint64_t base;
        if (!fit_in_range(&pa->free[i], size, align, limit, &base))
            continue;
        /* remove_free fails only when the block splits a range and the
         * list is full; a lower range might still fit without a split. */
        if (remove_free(pa, base, base + size))
            return base;
    }
    return 0;
}

bool palloc_free(struct page_allocator *pa, uint64_t phys, uint64_t npages)
{
    if (npages == 0 || phys % PAGE_SIZE != 0 || npages > (UINT64_MAX - phys) >> PAGE_SHIFT)
        return false;
    uint64_t end = phys + (npages << PAGE_SHIFT);
    uint32_t i = first_ending_after(pa, phys);

    /* Any overlap with a free range is a double free. */
    if (i < pa->count && pa->free[i].base < end)
        return false;
    return add_free(pa, phys, end);
}

bool palloc_reserve(struct page_allocator *pa, uint64_t base, uint64_t end)
{
    if (end <= base)
        return true;
    return remove_free(pa, page_down(base), page_up(end));
}
