/* EPT paging-structure construction, removal and walking (Intel SDM
 * Vol. 3C 29.3). Levels are numbered from the leaf: 0 = page table (4 KiB
 * entries), 1 = page directory (2 MiB), 2 = PDPT (1 GiB), 3 = PML4. */
#include "vmx/ept.h"

#define EPT_LEVELS          4
#define EPT_TOP_LEVEL       (EPT_LEVELS - 1)
#define EPT_ENTRIES         512u
#define EPT_INDEX_BITS      9
#define EPT_PAGE_SHIFT      12

/* Entry bits (29.3.2, tables 29-1 .. 29-6). */
#define EPTE_PERMS          0x7ull          /* R/W/X, bits 2:0 */
#define EPTE_MEMTYPE_SHIFT  3               /* leaf memory type, bits 5:3 */
#define EPTE_MEMTYPE_MASK   (0x7ull << EPTE_MEMTYPE_SHIFT)
#define EPTE_IGNORE_PAT     (1ull << 6)
#define EPTE_LARGE          (1ull << 7)     /* PDE/PDPTE maps a page */
#define EPTE_ADDR_MASK      0x000ffffffffff000ull
#define EPTE_LEAF_ATTRS     (EPTE_PERMS | EPTE_MEMTYPE_MASK | EPTE_IGNORE_PAT)

/* EPTP (25.6.11). */
#define EPTP_WALK_SHIFT     3               /* walk length - 1, bits 5:3 */
#define EPTP_AD_ENABLE      (1ull << 6)

static uint64_t level_size(int level)
{
    return 1ull << (EPT_PAGE_SHIFT + EPT_INDEX_BITS * level);
}

static unsigned level_index(uint64_t gpa, int level)
{
    return (unsigned)(gpa >> (EPT_PAGE_SHIFT + EPT_INDEX_BITS * level)) & (EPT_ENTRIES - 1);
}

static uint64_t *table_at(const struct ept *ept, uint64_t pa)
{
    return ept->src.phys_to_virt(ept->src.ctx, pa);
}

static bool entry_present(uint64_t e)
{
    return (e & EPTE_PERMS) != 0;
}

static bool entry_is_leaf(uint64_t e, int level)
{
    return level == 0 || (e & EPTE_LARGE);
}

/* The address bits of a leaf at this level (bits below the page size are
 * reserved or ignored in large-page entries). */
static uint64_t leaf_addr(uint64_t e, int level)
{
    return e & EPTE_ADDR_MASK & ~(level_size(level) - 1);
}

static uint64_t leaf_entry(uint64_t hpa, uint64_t attrs, int level)
{
    return hpa | attrs | (level > 0 ? EPTE_LARGE : 0);
}

static bool leaf_allowed(const struct ept *ept, int level)
{
    switch (level) {
    case 0:  return true;
    case 1:  return ept->page_2m;
    case 2:  return ept->page_1g;
    default: return false;
    }
}

int ept_init(struct ept *ept, const struct ept_page_source *src,
             const struct vmx_ept_caps *caps)
{
    if (!caps->ept || !caps->walk_4level || (!caps->memtype_wb && !caps->memtype_uc))
        return EPT_ERR_ARG;
    *ept = (struct ept){
        .src = *src,
        .page_2m = caps->page_2m,
        .page_1g = caps->page_1g,
        .ad_flags = caps->ad_flags,
        .exec_only = caps->exec_only,
        .eptp_memtype = caps->memtype_wb ? EPT_MT_WB : EPT_MT_UC,
    };
    ept->pml4_pa = src->alloc_page(src->ctx);
    if (ept->pml4_pa == 0)
        return EPT_ERR_NOMEM;
    ept->tables = 1;
    return EPT_OK;
}

static uint64_t alloc_table(struct ept *ept)
{
    uint64_t pa = ept->src.alloc_page(ept->src.ctx);

    if (pa)
        ept->tables++;
    return pa;
}

/* Replaces the large leaf *e (at level) by a table of next-level leaves
 * with the same translation and attributes. The new table is complete
 * before *e points to it, so a failed allocation changes nothing. */
static int split_leaf(struct ept *ept, uint64_t *e, int level)
{
    uint64_t child_size = level_size(level - 1);
    uint64_t base = leaf_addr(*e, level);
    uint64_t attrs = *e & EPTE_LEAF_ATTRS;
    uint64_t pa = alloc_table(ept);
    uint64_t *child;

    if (pa == 0)
        return EPT_ERR_NOMEM;
    child = table_at(ept, pa);
    for (unsigned i = 0; i < EPT_ENTRIES; i++)
        child[i] = leaf_entry(base + i * child_size, attrs, level - 1);
    *e = pa | EPTE_PERMS;
    return EPT_OK;
}

/* Makes *e (at level > 0) point to a table, allocating an empty one or
 * splitting a large leaf; stores the table's address in *table_pa. */
static int ensure_table(struct ept *ept, uint64_t *e, int level, uint64_t *table_pa)
{
    if (!entry_present(*e)) {
        uint64_t pa = alloc_table(ept);

        if (pa == 0)
            return EPT_ERR_NOMEM;
        /* Non-leaf entries grant everything; leaves restrict (29.3.3). */
        *e = pa | EPTE_PERMS;
    } else if (entry_is_leaf(*e, level)) {
        int rc = split_leaf(ept, e, level);

        if (rc != EPT_OK)
            return rc;
    }
    *table_pa = *e & EPTE_ADDR_MASK;
    return EPT_OK;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* End of the level-sized slot containing gpa, clipped to end. */
static uint64_t chunk_end(uint64_t gpa, uint64_t end, int level)
{
    uint64_t size = level_size(level);

    return min_u64(end, (gpa & ~(size - 1)) + size);
}

static bool fits_leaf(const struct ept *ept, int level, uint64_t gpa, uint64_t hpa,
                      uint64_t end, uint64_t e)
{
    uint64_t size = level_size(level);

    if (!leaf_allowed(ept, level) || end - gpa != size || (hpa & (size - 1)))
        return false;
    /* A slot already split into a table is reused, not replaced: its
     * table cannot be freed (the page source has no free). */
    return level == 0 || !entry_present(e) || entry_is_leaf(e, level);
}

static int map_level(struct ept *ept, uint64_t table_pa, int level, uint64_t gpa,
                     uint64_t end, uint64_t hpa, uint64_t attrs)
{
    uint64_t *table = table_at(ept, table_pa);

    while (gpa < end) {
        uint64_t stop = chunk_end(gpa, end, level);
        uint64_t *e = &table[level_index(gpa, level)];

        if (fits_leaf(ept, level, gpa, hpa, stop, *e)) {
            *e = leaf_entry(hpa, attrs, level);
        } else {
            uint64_t next;
            int rc = ensure_table(ept, e, level, &next);

            if (rc == EPT_OK)
                rc = map_level(ept, next, level - 1, gpa, stop, hpa, attrs);
            if (rc != EPT_OK)
                return rc;
        }
        hpa += stop - gpa;
        gpa = stop;
    }
    return EPT_OK;
}

static int unmap_level(struct ept *ept, uint64_t table_pa, int level, uint64_t gpa,
                       uint64_t end)
{
    uint64_t *table = table_at(ept, table_pa);

    while (gpa < end) {
        uint64_t stop = chunk_end(gpa, end, level);
        uint64_t *e = &table[level_index(gpa, level)];
        bool whole_slot = stop - gpa == level_size(level);

        if (entry_present(*e)) {
            if (whole_slot && entry_is_leaf(*e, level)) {
                *e = 0;
            } else {
                uint64_t next;
                int rc = ensure_table(ept, e, level, &next);

                if (rc == EPT_OK)
                    rc = unmap_level(ept, next, level - 1, gpa, stop);
                if (rc != EPT_OK)
                    return rc;
            }
        }
        gpa = stop;
    }
    return EPT_OK;
}

static int check_range(uint64_t gpa, uint64_t size)
{
    if (size == 0 || ((gpa | size) & (EPT_PAGE_4K - 1)))
        return EPT_ERR_ALIGN;
    if (gpa >= EPT_GPA_LIMIT || size > EPT_GPA_LIMIT - gpa)
        return EPT_ERR_RANGE;
    return EPT_OK;
}

static bool valid_perms(const struct ept *ept, unsigned perms)
{
    if (perms == 0)
        return false;
    /* Write without read is always a misconfiguration; execute-only only
     * when the capability exists (29.3.3.1). */
    if ((perms & EPT_WRITE) && !(perms & EPT_READ))
        return false;
    return (perms & EPT_READ) || ept->exec_only;
}

static bool valid_memtype(enum ept_memtype type)
{
    return type == EPT_MT_UC || type == EPT_MT_WC || type == EPT_MT_WT ||
           type == EPT_MT_WP || type == EPT_MT_WB;
}

/* After a change (done or partly done): translations a cache made under
 * the old generation, the change's own window included, are no longer
 * trusted (vmm/guest/guest_tlb.h). Returns rc. */
static int bump_generation(struct ept *ept, int rc)
{
    __atomic_fetch_add(&ept->generation, 1, __ATOMIC_RELEASE);
    return rc;
}

int ept_map(struct ept *ept, uint64_t gpa, uint64_t hpa, uint64_t size,
            unsigned flags, enum ept_memtype type)
{
    int rc = check_range(gpa, size);
    uint64_t attrs;

    if (rc != EPT_OK)
        return rc;
    if (hpa & (EPT_PAGE_4K - 1))
        return EPT_ERR_ALIGN;
    if (hpa >= EPT_HPA_LIMIT || size > EPT_HPA_LIMIT - hpa)
        return EPT_ERR_RANGE;
    if ((flags & ~(EPT_RWX | EPT_IGNORE_PAT)) || !valid_perms(ept, flags & EPT_RWX) ||
        !valid_memtype(type))
        return EPT_ERR_ARG;
    attrs = (flags & EPT_RWX) | ((uint64_t)type << EPTE_MEMTYPE_SHIFT) |
            ((flags & EPT_IGNORE_PAT) ? EPTE_IGNORE_PAT : 0);
    return bump_generation(ept, map_level(ept, ept->pml4_pa, EPT_TOP_LEVEL, gpa, gpa + size,
                                          hpa, attrs));
}

int ept_unmap(struct ept *ept, uint64_t gpa, uint64_t size)
{
    int rc = check_range(gpa, size);

    if (rc != EPT_OK)
        return rc;
    return bump_generation(ept, unmap_level(ept, ept->pml4_pa, EPT_TOP_LEVEL, gpa, gpa + size));
}

bool ept_translate(const struct ept *ept, uint64_t gpa, struct ept_translation *out)
{
    uint64_t table_pa = ept->pml4_pa;
    unsigned perms = EPT_RWX;

    if (gpa >= EPT_GPA_LIMIT)
        return false;
    for (int level = EPT_TOP_LEVEL; level >= 0; level--) {
        uint64_t e = table_at(ept, table_pa)[level_index(gpa, level)];

        if (!entry_present(e))
            return false;
        perms &= (unsigned)(e & EPTE_PERMS);
        if (entry_is_leaf(e, level)) {
            uint64_t size = level_size(level);

            *out = (struct ept_translation){
                .hpa = leaf_addr(e, level) | (gpa & (size - 1)),
                .page_size = size,
                .perms = perms,
                .type = (enum ept_memtype)((e & EPTE_MEMTYPE_MASK) >> EPTE_MEMTYPE_SHIFT),
                .ignore_pat = (e & EPTE_IGNORE_PAT) != 0,
            };
            return true;
        }
        table_pa = e & EPTE_ADDR_MASK;
    }
    return false;
}

uint64_t ept_eptp(const struct ept *ept)
{
    return ept->pml4_pa | ept->eptp_memtype |
           ((uint64_t)(EPT_LEVELS - 1) << EPTP_WALK_SHIFT) |
           (ept->ad_flags ? EPTP_AD_ENABLE : 0);
}

const char *ept_status_text(int status)
{
    switch (status) {
    case EPT_OK:        return "ok";
    case EPT_ERR_NOMEM: return "out of memory for EPT tables";
    case EPT_ERR_ALIGN: return "address or size not 4 KiB aligned";
    case EPT_ERR_RANGE: return "address beyond the EPT range";
    case EPT_ERR_ARG:   return "invalid EPT permissions, memory type or capabilities";
    default:            return "unknown EPT error";
    }
}
