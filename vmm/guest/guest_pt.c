/* Guest page-table walk (see vmm/guest/guest_pt.h). */
#include "vmm/guest/guest_pt.h"

#define PTE_PRESENT   (1ull << 0)
#define PTE_USER      (1ull << 2)
#define PTE_LARGE     (1ull << 7)
#define PTE_ADDR_MASK 0x000ffffffffff000ull

bool guest_pt_canonical(uint64_t gva, bool la57)
{
    unsigned int top = la57 ? 56 : 47;      /* highest implemented bit */
    int64_t extended = (int64_t)(gva << (63 - top)) >> (63 - top);
    return (uint64_t)extended == gva;
}

/* Bit 7 of an entry: a large page at the PDPT (1 GiB) and PD (2 MiB)
 * levels, reserved in the PML4 and PML5, the PAT bit in a PTE (SDM Vol.
 * 3A, 4.5.4, tables 4-15 to 4-20). */
static bool large_page_allowed(int level)
{
    return level == 2 || level == 3;
}

enum guest_access guest_pt_walk(const struct guest_paging *pg, uint64_t gva, bool user,
                                uint64_t *gpa)
{
    int levels = pg->la57 ? 5 : 4;
    uint64_t table = pg->cr3 & PTE_ADDR_MASK;

    if (!guest_pt_canonical(gva, pg->la57))
        return GUEST_ACCESS_NONCANONICAL;
    for (int level = levels; level >= 1; level--) {
        unsigned int shift = 12 + 9 * (unsigned int)(level - 1);
        uint64_t index = (gva >> shift) & 0x1ff;
        uint64_t entry;
        if (!pg->read64(pg->ctx, table + index * 8, &entry) || !(entry & PTE_PRESENT))
            return GUEST_ACCESS_UNMAPPED;
        /* A user-mode access needs U/S = 1 in every entry on the way
         * (SDM Vol. 3A, 4.6.1). */
        if (user && !(entry & PTE_USER))
            return GUEST_ACCESS_SUPERVISOR;
        if (level > 1 && (entry & PTE_LARGE)) {
            if (!large_page_allowed(level))
                return GUEST_ACCESS_UNMAPPED;
            uint64_t page_mask = (1ull << shift) - 1;
            *gpa = ((entry & PTE_ADDR_MASK) & ~page_mask) | (gva & page_mask);
            return GUEST_ACCESS_OK;
        }
        table = entry & PTE_ADDR_MASK;
    }
    *gpa = table | (gva & 0xfff);
    return GUEST_ACCESS_OK;
}

bool guest_pt_translate(const struct guest_paging *pg, uint64_t gva, uint64_t *gpa)
{
    return guest_pt_walk(pg, gva, false, gpa) == GUEST_ACCESS_OK;
}
