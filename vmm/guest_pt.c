/* Guest page-table walk (see vmm/guest_pt.h). */
#include "vmm/guest_pt.h"

#define PTE_PRESENT   (1ull << 0)
#define PTE_LARGE     (1ull << 7)
#define PTE_ADDR_MASK 0x000ffffffffff000ull

bool guest_pt_translate(const struct guest_paging *pg, uint64_t gva, uint64_t *gpa)
{
    int levels = pg->la57 ? 5 : 4;
    uint64_t table = pg->cr3 & PTE_ADDR_MASK;

    for (int level = levels; level >= 1; level--) {
        unsigned int shift = 12 + 9 * (unsigned int)(level - 1);
        uint64_t index = (gva >> shift) & 0x1ff;
        uint64_t entry;
        if (!pg->read64(pg->ctx, table + index * 8, &entry))
            return false;
        if (!(entry & PTE_PRESENT))
            return false;
        /* Large pages exist at the PDPT (1 GiB) and PD (2 MiB) levels. */
        if ((level == 2 || level == 3) && (entry & PTE_LARGE)) {
            uint64_t page_mask = (1ull << shift) - 1;
            *gpa = ((entry & PTE_ADDR_MASK) & ~page_mask) | (gva & page_mask);
            return true;
        }
        table = entry & PTE_ADDR_MASK;
    }
    *gpa = table | (gva & 0xfff);
    return true;
}
