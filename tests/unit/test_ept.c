/* Unit tests of the EPT builder (vmx/ept.c): identity maps with the
 * largest page sizes the capabilities and alignment allow, holes punched
 * at unaligned 4 KiB boundaries inside 1 GiB pages, memory types for
 * MMIO, remapping, argument errors, the EPTP value, and page-source
 * failures leaving a consistent hierarchy. Every test ends with a full
 * structural check of the tables (entries well-formed, every table
 * reachable exactly once, table count right). */
#include "tests/unit/unit.h"

#include <stdlib.h>

#include "vmx/ept.h"

#define KiB 0x400ull
#define MiB 0x100000ull
#define GiB 0x40000000ull

/* Paging-structure pages come from this pool; their "physical" addresses
 * start at POOL_BASE so they can never be confused with guest addresses. */
#define POOL_PAGES 64
#define POOL_BASE  0x5000000000ull
#define NO_LIMIT   1000000

struct page_pool {
    uint8_t *mem;
    unsigned used;
    unsigned budget;     /* allocations allowed before failing */
};

static struct page_pool pool;
static struct ept ept;

static uint64_t pool_alloc(void *ctx)
{
    struct page_pool *p = ctx;

    if (p->used >= POOL_PAGES || p->budget == 0)
        return 0;
    p->budget--;
    memset(p->mem + (size_t)p->used * EPT_PAGE_4K, 0, EPT_PAGE_4K);
    return POOL_BASE + (uint64_t)p->used++ * EPT_PAGE_4K;
}

static void *pool_virt(void *ctx, uint64_t pa)
{
    struct page_pool *p = ctx;

    if (pa < POOL_BASE || pa >= POOL_BASE + (uint64_t)p->used * EPT_PAGE_4K ||
        (pa & (EPT_PAGE_4K - 1))) {
        fprintf(stderr, "ept test: phys_to_virt(%#" PRIx64 ") outside the pool\n", pa);
        abort();
    }
    return p->mem + (pa - POOL_BASE);
}

static struct vmx_ept_caps caps_with(bool page_2m, bool page_1g, bool ad)
{
    return (struct vmx_ept_caps){
        .ept = true, .walk_4level = true, .memtype_wb = true, .memtype_uc = true,
        .page_2m = page_2m, .page_1g = page_1g, .ad_flags = ad,
    };
}

static void setup(struct vmx_ept_caps caps, unsigned budget)
{
    struct ept_page_source src = { pool_alloc, pool_virt, &pool };

    if (!pool.mem)
        pool.mem = aligned_alloc(EPT_PAGE_4K, POOL_PAGES * EPT_PAGE_4K);
    pool.used = 0;
    pool.budget = budget;
    CHECK_EQ(ept_init(&ept, &src, &caps), EPT_OK);
}

/* ---- structural check: walks every table reachable from the PML4 ---- */

#define ADDR_MASK 0x000ffffffffff000ull

static unsigned check_table(uint64_t pa, int level, uint8_t *seen)
{
    const uint64_t *t = pool_virt(&pool, pa);
    unsigned tables = 1;
    unsigned idx = (unsigned)((pa - POOL_BASE) / EPT_PAGE_4K);

    if (seen[idx]++)
        unit_fail(__FILE__, __LINE__, "table %#" PRIx64 " reachable twice", pa);
    for (unsigned i = 0; i < 512; i++) {
        uint64_t e = t[i];
        bool large = level > 0 && (e & (1ull << 7));

        if ((e & 7) == 0) {
            if (e)
                unit_fail(__FILE__, __LINE__, "non-present entry %#" PRIx64 " not 0", e);
            continue;
        }
        if ((e & 3) == 2)
            unit_fail(__FILE__, __LINE__, "write-only entry %#" PRIx64, e);
        if (level == 3 && (e & (1ull << 7)))
            unit_fail(__FILE__, __LINE__, "PML4E with bit 7 set");
        if (level == 0 || large) {
            uint64_t size = 1ull << (12 + 9 * level);
            unsigned mt = (unsigned)((e >> 3) & 7);
            if (((e & ADDR_MASK) & (size - 1)) != 0)
                unit_fail(__FILE__, __LINE__, "leaf %#" PRIx64 " misaligned", e);
            if (mt == 2 || mt == 3 || mt == 7)
                unit_fail(__FILE__, __LINE__, "leaf %#" PRIx64 " bad memory type", e);
        } else {
            if (e & 0x78)   /* bits 6:3 reserved in non-leaf entries */
                unit_fail(__FILE__, __LINE__, "non-leaf %#" PRIx64 " reserved bits", e);
            tables += check_table(e & ADDR_MASK, level - 1, seen);
        }
    }
    return tables;
}

static void check_structure(void)
{
    uint8_t seen[POOL_PAGES] = {0};

    CHECK_EQ(check_table(ept.pml4_pa, 3, seen), ept.tables);
    CHECK_EQ(ept.tables, pool.used);   /* nothing allocated is orphaned */
}

/* ---- translation helpers ---- */

static bool mapped_as(uint64_t gpa, uint64_t hpa, uint64_t page_size,
                      enum ept_memtype type, unsigned perms)
{
    struct ept_translation t;

    if (!ept_translate(&ept, gpa, &t))
        return unit_fail(__FILE__, __LINE__, "gpa %#" PRIx64 " not mapped", gpa);
    if (t.hpa != hpa || t.page_size != page_size || t.type != type || t.perms != perms)
        return unit_fail(__FILE__, __LINE__,
                         "gpa %#" PRIx64 ": hpa %#" PRIx64 " size %#" PRIx64 " type %d perms %u, "
                         "expected hpa %#" PRIx64 " size %#" PRIx64 " type %d perms %u",
                         gpa, t.hpa, t.page_size, t.type, t.perms,
                         hpa, page_size, type, perms);
    return true;
}

static bool identity(uint64_t gpa, uint64_t page_size)
{
    return mapped_as(gpa, gpa, page_size, EPT_MT_WB, EPT_RWX);
}

static bool unmapped(uint64_t gpa)
{
    struct ept_translation t;

    if (ept_translate(&ept, gpa, &t))
        return unit_fail(__FILE__, __LINE__, "gpa %#" PRIx64 " unexpectedly mapped", gpa);
    return true;
}

static void map_identity_4g(void)
{
    CHECK_EQ(ept_map(&ept, 0, 0, 4 * GiB, EPT_RWX, EPT_MT_WB), EPT_OK);
}

TEST(identity_4g_uses_1g_pages)
{
    setup(caps_with(true, true, true), NO_LIMIT);
    map_identity_4g();
    CHECK_EQ(ept.tables, 2);          /* PML4 + one PDPT */
    identity(0, EPT_PAGE_1G);
    identity(0x3fffffff, EPT_PAGE_1G);
    identity(0x40000000, EPT_PAGE_1G);
    identity(0xfee00000, EPT_PAGE_1G);
    identity(0xffffffff, EPT_PAGE_1G);
    unmapped(4 * GiB);
    unmapped(EPT_GPA_LIMIT - 1);
    unmapped(EPT_GPA_LIMIT);
    check_structure();
}

TEST(eptp_value)
{
    setup(caps_with(true, true, true), NO_LIMIT);
    CHECK_EQ(ept_eptp(&ept), ept.pml4_pa | 0x5e);   /* WB(6) | walk 4 (3<<3) | A/D */
    CHECK_EQ(ept.pml4_pa, POOL_BASE);
    setup(caps_with(true, true, false), NO_LIMIT);
    CHECK_EQ(ept_eptp(&ept), POOL_BASE | 0x1e);
    struct vmx_ept_caps uc_only = caps_with(true, true, false);
    uc_only.memtype_wb = false;
    setup(uc_only, NO_LIMIT);
    CHECK_EQ(ept_eptp(&ept), POOL_BASE | 0x18);
}

TEST(punch_holes_inside_a_1g_page)
{
    setup(caps_with(true, true, true), NO_LIMIT);
    map_identity_4g();

    /* Two pages in the second GiB: 1G -> 2M table -> 4K table. */
    CHECK_EQ(ept_unmap(&ept, 0x40123000, 2 * EPT_PAGE_4K), EPT_OK);
    CHECK_EQ(ept.tables, 4);
    identity(0x3fffffff, EPT_PAGE_1G);
    identity(0x40000000, EPT_PAGE_4K);
    identity(0x40122fff, EPT_PAGE_4K);
    unmapped(0x40123000);
    unmapped(0x40124fff);
    identity(0x40125000, EPT_PAGE_4K);
    identity(0x401fffff, EPT_PAGE_4K);
    identity(0x40200000, EPT_PAGE_2M);
    identity(0x7fffffff, EPT_PAGE_2M);
    identity(0x80000000, EPT_PAGE_1G);

    /* A hole straddling a 2 MiB boundary splits two 2 MiB pages. */
    CHECK_EQ(ept_unmap(&ept, 0x405ff000, 2 * EPT_PAGE_4K), EPT_OK);
    CHECK_EQ(ept.tables, 6);
    identity(0x405fe000, EPT_PAGE_4K);
    identity(0x405fefff, EPT_PAGE_4K);
    unmapped(0x405ff000);
    unmapped(0x40600fff);
    identity(0x40601000, EPT_PAGE_4K);
    identity(0x407fffff, EPT_PAGE_4K);
    identity(0x40800000, EPT_PAGE_2M);

    /* A whole 2 MiB page goes without a new table. */
    CHECK_EQ(ept_unmap(&ept, 0x40800000, 2 * MiB), EPT_OK);
    CHECK_EQ(ept.tables, 6);
    unmapped(0x40800000);
    unmapped(0x409fffff);
    identity(0x40a00000, EPT_PAGE_2M);

    /* First page of the last GiB (hypervisor image at an odd place). */
    CHECK_EQ(ept_unmap(&ept, 0xc0000000, EPT_PAGE_4K), EPT_OK);
    CHECK_EQ(ept.tables, 8);
    unmapped(0xc0000000);
    identity(0xc0001000, EPT_PAGE_4K);
    identity(0xc0200000, EPT_PAGE_2M);
    identity(0xbfffffff, EPT_PAGE_1G);

    /* Unmapping what is already unmapped, and beyond 4 GiB, is fine. */
    CHECK_EQ(ept_unmap(&ept, 0x40123000, EPT_PAGE_4K), EPT_OK);
    CHECK_EQ(ept_unmap(&ept, 8 * GiB, 2 * GiB), EPT_OK);
    CHECK_EQ(ept.tables, 8);
    check_structure();
}

TEST(mmio_ranges_get_uncacheable)
{
    setup(caps_with(true, true, true), NO_LIMIT);
    map_identity_4g();
    /* IOAPIC page: UC, no execute. */
    CHECK_EQ(ept_map(&ept, 0xfec00000, 0xfec00000, EPT_PAGE_4K, EPT_READ | EPT_WRITE,
                     EPT_MT_UC), EPT_OK);
    /* 16 MiB framebuffer: UC via 2 MiB pages. */
    CHECK_EQ(ept_map(&ept, 0xe0000000, 0xe0000000, 16 * MiB, EPT_READ | EPT_WRITE,
                     EPT_MT_UC), EPT_OK);
    CHECK_EQ(ept.tables, 4);
    mapped_as(0xfec00000, 0xfec00000, EPT_PAGE_4K, EPT_MT_UC, EPT_READ | EPT_WRITE);
    mapped_as(0xfec00fff, 0xfec00fff, EPT_PAGE_4K, EPT_MT_UC, EPT_READ | EPT_WRITE);
    identity(0xfebff000, EPT_PAGE_2M);    /* previous 2 MiB slot: untouched */
    identity(0xfec00000 - 1, EPT_PAGE_2M);
    identity(0xfec01000, EPT_PAGE_4K);
    identity(0xfee00000, EPT_PAGE_2M);
    mapped_as(0xe0000000, 0xe0000000, EPT_PAGE_2M, EPT_MT_UC, EPT_READ | EPT_WRITE);
    mapped_as(0xe0ffffff, 0xe0ffffff, EPT_PAGE_2M, EPT_MT_UC, EPT_READ | EPT_WRITE);
    identity(0xe1000000, EPT_PAGE_2M);
    identity(0xdfffffff, EPT_PAGE_2M);

    struct ept_translation t;
    CHECK_EQ(ept_map(&ept, 0x100000, 0x100000, 2 * MiB, EPT_RWX | EPT_IGNORE_PAT,
                     EPT_MT_WB), EPT_OK);
    CHECK(ept_translate(&ept, 0x100000, &t) && t.ignore_pat);
    CHECK(ept_translate(&ept, 0x400000, &t) && !t.ignore_pat);
    CHECK(ept_translate(&ept, 0x400000, &t) && t.page_size == EPT_PAGE_2M);
    check_structure();
}

TEST(page_sizes_follow_capabilities)
{
    setup(caps_with(true, false, false), NO_LIMIT);    /* 2M, no 1G */
    map_identity_4g();
    CHECK_EQ(ept.tables, 6);          /* PML4, PDPT, 4 PDs */
    identity(0x40000000, EPT_PAGE_2M);
    identity(0xffffffff, EPT_PAGE_2M);
    check_structure();

    setup(caps_with(false, false, false), NO_LIMIT);   /* 4K only */
    CHECK_EQ(ept_map(&ept, 0, 0, 16 * MiB, EPT_RWX, EPT_MT_WB), EPT_OK);
    CHECK_EQ(ept.tables, 11);         /* PML4, PDPT, PD, 8 PTs */
    identity(0xfff000, EPT_PAGE_4K);
    unmapped(16 * MiB);
    check_structure();
}

TEST(page_sizes_follow_alignment)
{
    setup(caps_with(true, true, true), NO_LIMIT);
    /* hpa only 2 MiB aligned: 512 2 MiB pages instead of one 1 GiB page. */
    CHECK_EQ(ept_map(&ept, 1 * GiB, 2 * GiB + 2 * MiB, 1 * GiB, EPT_RWX, EPT_MT_WB), EPT_OK);
    CHECK_EQ(ept.tables, 3);
    mapped_as(1 * GiB, 2 * GiB + 2 * MiB, EPT_PAGE_2M, EPT_MT_WB, EPT_RWX);
    mapped_as(2 * GiB - 1, 3 * GiB + 2 * MiB - 1, EPT_PAGE_2M, EPT_MT_WB, EPT_RWX);
    /* hpa 4 KiB aligned only: 4 KiB pages. */
    CHECK_EQ(ept_map(&ept, 2 * MiB, 2 * MiB + 4 * KiB, 4 * MiB, EPT_RWX, EPT_MT_WB), EPT_OK);
    CHECK_EQ(ept.tables, 6);          /* PD for GiB 0, 2 PTs */
    mapped_as(2 * MiB, 2 * MiB + 4 * KiB, EPT_PAGE_4K, EPT_MT_WB, EPT_RWX);
    mapped_as(6 * MiB - 1, 6 * MiB + 4 * KiB - 1, EPT_PAGE_4K, EPT_MT_WB, EPT_RWX);
    unmapped(6 * MiB);
    unmapped(2 * MiB - 1);
    /* Unaligned range ends: 4K head, 2M middle, 4K tail. */
    CHECK_EQ(ept_map(&ept, 8 * MiB - 4 * KiB, 8 * MiB - 4 * KiB, 2 * MiB + 8 * KiB,
                     EPT_READ, EPT_MT_WT), EPT_OK);
    mapped_as(8 * MiB - 4 * KiB, 8 * MiB - 4 * KiB, EPT_PAGE_4K, EPT_MT_WT, EPT_READ);
    mapped_as(9 * MiB, 9 * MiB, EPT_PAGE_2M, EPT_MT_WT, EPT_READ);
    mapped_as(10 * MiB, 10 * MiB, EPT_PAGE_4K, EPT_MT_WT, EPT_READ);
    unmapped(10 * MiB + 4 * KiB);
    check_structure();
}

TEST(remap_replaces_translation)
{
    setup(caps_with(true, true, true), NO_LIMIT);
    CHECK_EQ(ept_map(&ept, 0, 0, 2 * MiB, EPT_RWX, EPT_MT_WB), EPT_OK);
    CHECK_EQ(ept_map(&ept, 0x1000, 0x900000, EPT_PAGE_4K, EPT_READ, EPT_MT_UC), EPT_OK);
    mapped_as(0x1000, 0x900000, EPT_PAGE_4K, EPT_MT_UC, EPT_READ);
    identity(0x0, EPT_PAGE_4K);
    identity(0x2000, EPT_PAGE_4K);
    /* Mapping a whole 2 MiB again over the split slot reuses its table. */
    unsigned before = ept.tables;
    CHECK_EQ(ept_map(&ept, 0, 0, 2 * MiB, EPT_RWX, EPT_MT_WB), EPT_OK);
    CHECK_EQ(ept.tables, before);
    identity(0x1000, EPT_PAGE_4K);
    check_structure();
}

TEST(argument_errors)
{
    struct vmx_ept_caps caps = caps_with(true, true, true);

    setup(caps, NO_LIMIT);
    CHECK_EQ(ept_map(&ept, 0x800, 0, EPT_PAGE_4K, EPT_RWX, EPT_MT_WB), EPT_ERR_ALIGN);
    CHECK_EQ(ept_map(&ept, 0, 0x800, EPT_PAGE_4K, EPT_RWX, EPT_MT_WB), EPT_ERR_ALIGN);
    CHECK_EQ(ept_map(&ept, 0, 0, 0x800, EPT_RWX, EPT_MT_WB), EPT_ERR_ALIGN);
    CHECK_EQ(ept_map(&ept, 0, 0, 0, EPT_RWX, EPT_MT_WB), EPT_ERR_ALIGN);
    CHECK_EQ(ept_map(&ept, EPT_GPA_LIMIT - EPT_PAGE_4K, 0, 2 * EPT_PAGE_4K, EPT_RWX,
                     EPT_MT_WB), EPT_ERR_RANGE);
    CHECK_EQ(ept_map(&ept, 0, EPT_HPA_LIMIT - EPT_PAGE_4K, 2 * EPT_PAGE_4K, EPT_RWX,
                     EPT_MT_WB), EPT_ERR_RANGE);
    CHECK_EQ(ept_map(&ept, 0, 0, EPT_PAGE_4K, EPT_WRITE, EPT_MT_WB), EPT_ERR_ARG);
    CHECK_EQ(ept_map(&ept, 0, 0, EPT_PAGE_4K, EPT_WRITE | EPT_EXEC, EPT_MT_WB), EPT_ERR_ARG);
    CHECK_EQ(ept_map(&ept, 0, 0, EPT_PAGE_4K, EPT_EXEC, EPT_MT_WB), EPT_ERR_ARG);
    CHECK_EQ(ept_map(&ept, 0, 0, EPT_PAGE_4K, 0, EPT_MT_WB), EPT_ERR_ARG);
    CHECK_EQ(ept_map(&ept, 0, 0, EPT_PAGE_4K, EPT_RWX, (enum ept_memtype)2), EPT_ERR_ARG);
    CHECK_EQ(ept_map(&ept, 0, 0, EPT_PAGE_4K, EPT_RWX | (1u << 8), EPT_MT_WB), EPT_ERR_ARG);
    CHECK_EQ(ept_unmap(&ept, 0x1800, EPT_PAGE_4K), EPT_ERR_ALIGN);
    CHECK_EQ(ept_unmap(&ept, EPT_GPA_LIMIT, EPT_PAGE_4K), EPT_ERR_RANGE);
    CHECK_EQ(ept.tables, 1);          /* nothing was built */
    unmapped(0);

    caps.exec_only = true;
    setup(caps, NO_LIMIT);
    CHECK_EQ(ept_map(&ept, 0, 0, EPT_PAGE_4K, EPT_EXEC, EPT_MT_WB), EPT_OK);
    mapped_as(0, 0, EPT_PAGE_4K, EPT_MT_WB, EPT_EXEC);
    check_structure();

    struct ept_page_source src = { pool_alloc, pool_virt, &pool };
    struct ept other;
    caps.ept = false;
    CHECK_EQ(ept_init(&other, &src, &caps), EPT_ERR_ARG);
    caps = caps_with(true, true, true);
    caps.walk_4level = false;
    CHECK_EQ(ept_init(&other, &src, &caps), EPT_ERR_ARG);
    pool.budget = 0;
    caps = caps_with(true, true, true);
    CHECK_EQ(ept_init(&other, &src, &caps), EPT_ERR_NOMEM);
    CHECK_STR(ept_status_text(EPT_ERR_NOMEM), "out of memory for EPT tables");
}

/* Checks every 4 KiB page of [lo, hi): mapped identity if outside
 * [hole_lo, hole_hi), unmapped inside it. */
static void check_pages(uint64_t lo, uint64_t hi, uint64_t hole_lo, uint64_t hole_hi)
{
    int bad = 0;

    for (uint64_t gpa = lo; gpa < hi && bad < 5; gpa += EPT_PAGE_4K) {
        struct ept_translation t;
        bool present = ept_translate(&ept, gpa, &t);
        bool in_hole = gpa >= hole_lo && gpa < hole_hi;

        if (in_hole ? present : !(present && t.hpa == gpa && t.perms == EPT_RWX))
            bad += !unit_fail(__FILE__, __LINE__, "page %#" PRIx64 " in wrong state", gpa);
    }
}

TEST(allocation_failure_during_unmap_keeps_old_state)
{
    setup(caps_with(true, true, true), 2 + 1);    /* PML4, PDPT, one more */
    map_identity_4g();
    CHECK_EQ(ept_unmap(&ept, 0x40123000, EPT_PAGE_4K), EPT_ERR_NOMEM);
    CHECK_EQ(ept.tables, 3);          /* the 1G page became 2M pages */
    identity(0x40000000, EPT_PAGE_2M);
    check_pages(0x40000000, 0x40400000, 0, 0);    /* nothing unmapped yet */
    check_structure();

    pool.budget = NO_LIMIT;           /* memory again: the retry finishes */
    CHECK_EQ(ept_unmap(&ept, 0x40123000, EPT_PAGE_4K), EPT_OK);
    CHECK_EQ(ept.tables, 4);
    check_pages(0x40000000, 0x40400000, 0x40123000, 0x40124000);
    check_structure();
}

TEST(allocation_failure_during_map_maps_a_prefix)
{
    setup(caps_with(false, false, false), 5);     /* PML4, PDPT, PD, 2 PTs */
    CHECK_EQ(ept_map(&ept, 0, 0, 8 * MiB, EPT_RWX, EPT_MT_WB), EPT_ERR_NOMEM);
    CHECK_EQ(ept.tables, 5);
    check_pages(0, 8 * MiB, 4 * MiB, 8 * MiB);    /* first 4 MiB new, rest old */
    check_structure();

    pool.budget = NO_LIMIT;
    CHECK_EQ(ept_map(&ept, 0, 0, 8 * MiB, EPT_RWX, EPT_MT_WB), EPT_OK);
    CHECK_EQ(ept.tables, 7);
    check_pages(0, 8 * MiB, 0, 0);
    check_structure();
}

TEST(allocation_failure_while_remapping_mixes_old_and_new)
{
    setup(caps_with(true, false, false), 2 + 1);  /* PML4, PDPT, 1 PD */
    CHECK_EQ(ept_map(&ept, 0, 0, 4 * MiB, EPT_RWX, EPT_MT_WB), EPT_OK);
    /* Remap 4 KiB-misaligned onto other host pages: needs 2 PTs, has 0. */
    CHECK_EQ(ept_map(&ept, 0, 0x10001000, 4 * MiB, EPT_READ, EPT_MT_UC), EPT_ERR_NOMEM);
    identity(0, EPT_PAGE_2M);         /* old state intact */
    identity(2 * MiB, EPT_PAGE_2M);
    pool.budget = 1;
    CHECK_EQ(ept_map(&ept, 0, 0x10001000, 4 * MiB, EPT_READ, EPT_MT_UC), EPT_ERR_NOMEM);
    mapped_as(0, 0x10001000, EPT_PAGE_4K, EPT_MT_UC, EPT_READ);           /* new */
    mapped_as(2 * MiB - 1, 0x10201000 - 1, EPT_PAGE_4K, EPT_MT_UC, EPT_READ);
    identity(2 * MiB, EPT_PAGE_2M);   /* old */
    check_structure();
}
