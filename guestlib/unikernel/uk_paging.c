/* The runtime's page tables (CPL 0). Vertigo's boot tables are
 * supervisor-only; the program runs at CPL 3, so the runtime maps the
 * domain's RAM again, identity, with 2 MiB pages that user mode may read,
 * write and execute. The first 2 MiB stay unmapped so that a null pointer
 * faults (images load from 2 MiB up, see uk.ld). Up to UK_MAP_MAX bytes. */
#include "guestlib/unikernel/uk_kernel.h"

#define PAGE_PRESENT  0x1ull
#define PAGE_WRITE    0x2ull
#define PAGE_USER     0x4ull
#define PAGE_LARGE    0x80ull       /* a 2 MiB page in a page directory */
#define LARGE_PAGE    0x200000ull
#define UK_MAP_GIB    4u
#define UK_MAP_MAX    ((uint64_t)UK_MAP_GIB << 30)

static uint64_t pml4[512] __attribute__((aligned(4096)));
static uint64_t pdpt[512] __attribute__((aligned(4096)));
static uint64_t pd[UK_MAP_GIB][512] __attribute__((aligned(4096)));

const char *uk_paging_init(uint64_t mem_bytes)
{
    const uint64_t flags = PAGE_PRESENT | PAGE_WRITE | PAGE_USER;

    if (mem_bytes > UK_MAP_MAX)
        return "the domain's memory is above the runtime's 4 GiB map";
    if (mem_bytes % LARGE_PAGE)
        return "the domain's memory is not a multiple of 2 MiB";
    for (uint64_t addr = LARGE_PAGE; addr < mem_bytes; addr += LARGE_PAGE)
        pd[addr >> 30][(addr >> 21) & 511] = addr | flags | PAGE_LARGE;
    for (unsigned int g = 0; g < UK_MAP_GIB; g++)
        pdpt[g] = (uint64_t)pd[g] | flags;
    pml4[0] = (uint64_t)pdpt | flags;
    __asm__ volatile("mov %0, %%cr3" : : "r"((uint64_t)pml4) : "memory");
    return 0;
}

void uk_paging_map_large(uint64_t addr)
{
    pd[addr >> 30][(addr >> 21) & 511] = addr | PAGE_PRESENT | PAGE_WRITE | PAGE_USER | PAGE_LARGE;
    __asm__ volatile("invlpg (%0)" : : "r"(addr) : "memory");
}
