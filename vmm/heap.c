/* The hypervisor heap (see vmm/heap.h): a second page allocator confined
 * to one region taken from the boot allocator. */
#include "vmm/heap.h"

#include "lib/mem.h"

#define HEAP_ALIGN   0x200000ull
#define IDENTITY_MAP_LIMIT 0x100000000ull

static struct page_allocator heap;
static struct phys_range region;
static volatile int heap_lock;     /* CPUs set up their VCPUs concurrently */

bool heap_init(struct page_allocator *boot_pa, uint64_t bytes)
{
    static struct boot_info heap_info;
    uint64_t size = (bytes + HEAP_ALIGN - 1) & ~(HEAP_ALIGN - 1);
    uint64_t base = palloc_alloc(boot_pa, size / PAGE_SIZE, HEAP_ALIGN, IDENTITY_MAP_LIMIT);
    if (!base)
        return false;
    region = (struct phys_range){ base, base + size };
    heap_info.mem[0] = (struct mem_range){ base, size, MEM_USABLE };
    heap_info.mem_count = 1;
    return palloc_init(&heap, &heap_info, NULL, 0) == PALLOC_OK;
}

uint64_t heap_alloc_pages(uint64_t npages)
{
    while (__atomic_exchange_n(&heap_lock, 1, __ATOMIC_ACQUIRE))
        ;
    uint64_t pa = palloc_alloc(&heap, npages, PAGE_SIZE, 0);
    __atomic_store_n(&heap_lock, 0, __ATOMIC_RELEASE);
    if (pa)
        memset((void *)pa, 0, npages * PAGE_SIZE);
    return pa;
}

struct phys_range heap_range(void)
{
    return region;
}

uint64_t heap_free_pages(void)
{
    return heap.free_pages;
}
