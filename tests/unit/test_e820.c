/* Tests of the guest e820 construction (vmm/loader/e820.c): overlaps, holes,
 * unsorted input, merging, exclusions at range edges and across ranges,
 * the 128-entry limit, and a randomized comparison with a page-by-page
 * reference model of the documented rules. */
#include "tests/unit/unit.h"

#include "vmm/loader/e820.h"

#define KB 1024ull
#define MB (1024ull * KB)

static bool check_entry(const struct e820_table *t, uint32_t i, uint64_t base, uint64_t end,
                        uint32_t type, int line)
{
    if (i >= t->count)
        return unit_fail(__FILE__, line, "entry %u missing (count %u)", i, t->count);
    const struct mem_range *r = &t->entries[i];
    if (r->base != base || r->base + r->length != end || r->type != type)
        return unit_fail(__FILE__, line,
                         "entry %u: [0x%" PRIx64 ", 0x%" PRIx64 ") type %u, expected "
                         "[0x%" PRIx64 ", 0x%" PRIx64 ") type %u",
                         i, r->base, r->base + r->length, r->type, base, end, type);
    return true;
}
#define CHECK_ENTRY(t, i, base, end, type) check_entry((t), (i), (base), (end), (type), __LINE__)

/* Sorted, disjoint, non-empty, and no two adjacent entries of one type. */
static bool well_formed(const struct e820_table *t)
{
    for (uint32_t i = 0; i < t->count; i++) {
        const struct mem_range *r = &t->entries[i];
        if (r->length == 0)
            return false;
        if (i == 0)
            continue;
        const struct mem_range *p = &t->entries[i - 1];
        uint64_t p_end = p->base + p->length;
        if (p_end > r->base || (p_end == r->base && p->type == r->type))
            return false;
    }
    return true;
}

TEST(e820_single_range_unchanged)
{
    struct mem_range fw[] = { { 1 * MB, 127 * MB, MEM_USABLE } };
    struct e820_table t;
    CHECK_EQ(e820_build(&t, fw, 1, NULL, 0), E820_OK);
    CHECK_EQ(t.count, 1);
    CHECK_ENTRY(&t, 0, 1 * MB, 128 * MB, MEM_USABLE);
    CHECK_EQ(e820_usable_bytes(&t), 127 * MB);
}

TEST(e820_unsorted_overlapping_and_holes)
{
    /* Given out of order; the reserved EBDA range overlaps usable low RAM. */
    struct mem_range fw[] = {
        { 1 * MB, 127 * MB, MEM_USABLE },
        { 0xf0000, 0x10000, MEM_RESERVED },
        { 0, 0x9fc00, MEM_USABLE },
        { 0x9f000, 0x1000, MEM_RESERVED },
    };
    struct e820_table t;
    CHECK_EQ(e820_build(&t, fw, 4, NULL, 0), E820_OK);
    CHECK(well_formed(&t));
    CHECK_EQ(t.count, 4);
    CHECK_ENTRY(&t, 0, 0, 0x9f000, MEM_USABLE);
    CHECK_ENTRY(&t, 1, 0x9f000, 0xa0000, MEM_RESERVED);   /* reserved wins, hole after */
    CHECK_ENTRY(&t, 2, 0xf0000, 1 * MB, MEM_RESERVED);
    CHECK_ENTRY(&t, 3, 1 * MB, 128 * MB, MEM_USABLE);
}

TEST(e820_overlap_precedence)
{
    struct mem_range fw[] = {
        { 0, 16 * MB, MEM_USABLE },
        { 4 * MB, 4 * MB, MEM_ACPI_RECLAIM },
        { 6 * MB, 4 * MB, MEM_ACPI_NVS },      /* NVS beats reclaim and usable */
        { 9 * MB, 2 * MB, MEM_RESERVED },      /* NVS beats reserved at 9-10 */
        { 12 * MB, 1 * MB, MEM_BAD },
    };
    struct e820_table t;
    CHECK_EQ(e820_build(&t, fw, 5, NULL, 0), E820_OK);
    CHECK(well_formed(&t));
    CHECK_EQ(t.count, 7);
    CHECK_ENTRY(&t, 0, 0, 4 * MB, MEM_USABLE);
    CHECK_ENTRY(&t, 1, 4 * MB, 6 * MB, MEM_ACPI_RECLAIM);
    CHECK_ENTRY(&t, 2, 6 * MB, 10 * MB, MEM_ACPI_NVS);
    CHECK_ENTRY(&t, 3, 10 * MB, 11 * MB, MEM_RESERVED);
    CHECK_ENTRY(&t, 4, 11 * MB, 12 * MB, MEM_USABLE);
    CHECK_ENTRY(&t, 5, 12 * MB, 13 * MB, MEM_BAD);
    CHECK_ENTRY(&t, 6, 13 * MB, 16 * MB, MEM_USABLE);
}

TEST(e820_adjacent_ranges_merge)
{
    struct mem_range fw[] = {
        { 2 * MB, 1 * MB, MEM_USABLE },
        { 1 * MB, 1 * MB, MEM_USABLE },
        { 3 * MB, 1 * MB, MEM_RESERVED },
        { 4 * MB, 1 * MB, MEM_RESERVED },
    };
    struct e820_table t;
    CHECK_EQ(e820_build(&t, fw, 4, NULL, 0), E820_OK);
    CHECK_EQ(t.count, 2);
    CHECK_ENTRY(&t, 0, 1 * MB, 3 * MB, MEM_USABLE);
    CHECK_ENTRY(&t, 1, 3 * MB, 5 * MB, MEM_RESERVED);
}

TEST(e820_exclusion_in_middle)
{
    struct mem_range fw[] = { { 1 * MB, 127 * MB, MEM_USABLE } };
    struct phys_range ex[] = { { 64 * MB, 65 * MB } };
    struct e820_table t;
    CHECK_EQ(e820_build(&t, fw, 1, ex, 1), E820_OK);
    CHECK_EQ(t.count, 3);
    CHECK_ENTRY(&t, 0, 1 * MB, 64 * MB, MEM_USABLE);
    CHECK_ENTRY(&t, 1, 64 * MB, 65 * MB, MEM_RESERVED);
    CHECK_ENTRY(&t, 2, 65 * MB, 128 * MB, MEM_USABLE);
    CHECK_EQ(e820_usable_bytes(&t), 126 * MB);
}

TEST(e820_exclusion_at_range_edges)
{
    struct mem_range fw[] = { { 1 * MB, 127 * MB, MEM_USABLE } };
    struct phys_range ex[] = { { 127 * MB, 128 * MB }, { 1 * MB, 2 * MB } };
    struct e820_table t;
    CHECK_EQ(e820_build(&t, fw, 1, ex, 2), E820_OK);
    CHECK_EQ(t.count, 3);
    CHECK_ENTRY(&t, 0, 1 * MB, 2 * MB, MEM_RESERVED);
    CHECK_ENTRY(&t, 1, 2 * MB, 127 * MB, MEM_USABLE);
    CHECK_ENTRY(&t, 2, 127 * MB, 128 * MB, MEM_RESERVED);
}

TEST(e820_exclusion_spanning_ranges_and_hole)
{
    struct mem_range fw[] = {
        { 0, 640 * KB, MEM_USABLE },
        { 1 * MB, 15 * MB, MEM_USABLE },
        { 16 * MB, 1 * MB, MEM_ACPI_NVS },
        { 17 * MB, 111 * MB, MEM_USABLE },
    };
    /* From inside low RAM, across the VGA hole and the NVS range, into high RAM. */
    struct phys_range ex[] = { { 512 * KB, 20 * MB } };
    struct e820_table t;
    CHECK_EQ(e820_build(&t, fw, 4, ex, 1), E820_OK);
    CHECK(well_formed(&t));
    CHECK_EQ(t.count, 6);
    CHECK_ENTRY(&t, 0, 0, 512 * KB, MEM_USABLE);
    CHECK_ENTRY(&t, 1, 512 * KB, 640 * KB, MEM_RESERVED);  /* hole 640K-1M stays a hole */
    CHECK_ENTRY(&t, 2, 1 * MB, 16 * MB, MEM_RESERVED);
    CHECK_ENTRY(&t, 3, 16 * MB, 17 * MB, MEM_ACPI_NVS);    /* NVS keeps its type */
    CHECK_ENTRY(&t, 4, 17 * MB, 20 * MB, MEM_RESERVED);
    CHECK_ENTRY(&t, 5, 20 * MB, 128 * MB, MEM_USABLE);
}

TEST(e820_exclusion_rounded_out_to_pages)
{
    struct mem_range fw[] = { { 1 * MB, 1 * MB, MEM_USABLE } };
    struct phys_range ex[] = { { 0x100800, 0x101001 } };
    struct e820_table t;
    CHECK_EQ(e820_build(&t, fw, 1, ex, 1), E820_OK);
    CHECK_EQ(t.count, 2);
    CHECK_ENTRY(&t, 0, 0x100000, 0x102000, MEM_RESERVED);
    CHECK_ENTRY(&t, 1, 0x102000, 0x200000, MEM_USABLE);
}

TEST(e820_exclusion_in_hole_stays_hole)
{
    struct mem_range fw[] = { { 0, 1 * MB, MEM_USABLE }, { 4 * MB, 4 * MB, MEM_USABLE } };
    struct phys_range ex[] = { { 2 * MB, 3 * MB }, { 5 * MB, 5 * MB } /* empty: ignored */ };
    struct e820_table t;
    CHECK_EQ(e820_build(&t, fw, 2, ex, 2), E820_OK);
    CHECK_EQ(t.count, 2);
    CHECK_ENTRY(&t, 0, 0, 1 * MB, MEM_USABLE);
    CHECK_ENTRY(&t, 1, 4 * MB, 8 * MB, MEM_USABLE);
}

TEST(e820_zero_length_and_wrapping_ranges)
{
    struct mem_range fw[] = {
        { 1 * MB, 0, MEM_RESERVED },                  /* ignored */
        { 1 * MB, 3 * MB, MEM_USABLE },
        { UINT64_MAX - 4095, 8192, MEM_RESERVED },    /* wraps: clamped at 2^64 - 1 */
    };
    struct e820_table t;
    CHECK_EQ(e820_build(&t, fw, 3, NULL, 0), E820_OK);
    CHECK_EQ(t.count, 2);
    CHECK_ENTRY(&t, 0, 1 * MB, 4 * MB, MEM_USABLE);
    CHECK_ENTRY(&t, 1, UINT64_MAX - 4095, UINT64_MAX, MEM_RESERVED);
}

TEST(e820_entry_limit)
{
    struct mem_range fw[E820_MAX_ENTRIES + 1];
    for (uint32_t i = 0; i < E820_MAX_ENTRIES + 1; i++)
        fw[i] = (struct mem_range){ (uint64_t)i * 2 * MB, 1 * MB, MEM_USABLE };
    struct e820_table t;
    CHECK_EQ(e820_build(&t, fw, E820_MAX_ENTRIES, NULL, 0), E820_OK);
    CHECK_EQ(t.count, E820_MAX_ENTRIES);
    CHECK_EQ(e820_build(&t, fw, E820_MAX_ENTRIES + 1, NULL, 0), E820_ERR_TOO_MANY_ENTRIES);
    /* An exclusion splitting one range pushes 127 ranges over the limit too. */
    struct phys_range ex[] = { { 256 * KB, 512 * KB } };
    CHECK_EQ(e820_build(&t, fw, E820_MAX_ENTRIES - 1, ex, 1), E820_ERR_TOO_MANY_ENTRIES);
}

TEST(e820_nothing_usable_left)
{
    struct mem_range fw[] = { { 1 * MB, 1 * MB, MEM_USABLE }, { 0, 4 * KB, MEM_RESERVED } };
    struct phys_range ex[] = { { 0, 2 * MB } };
    struct e820_table t;
    CHECK_EQ(e820_build(&t, fw, 2, ex, 1), E820_ERR_NO_USABLE_RAM);
    CHECK_EQ(e820_build(&t, NULL, 0, NULL, 0), E820_ERR_NO_USABLE_RAM);
    CHECK_EQ(t.count, 0);
    CHECK(strstr(e820_strerror(E820_ERR_TOO_MANY_ENTRIES), "128") != NULL);
    CHECK(e820_strerror((enum e820_status)99) != NULL);
}

/* ---- randomized comparison with a page-granular reference ------------- */

#define REF_PAGES 64u

static uint32_t lcg_state = 12345;

static uint32_t rnd(uint32_t n)
{
    lcg_state = lcg_state * 1103515245u + 12345u;
    return (lcg_state >> 16) % n;
}

static uint32_t ref_rank(uint32_t type)
{
    static const uint32_t rank[] = { 0, 1, 3, 2, 4, 5 };
    return type <= MEM_BAD ? rank[type] : 6 + type;
}

/* The documented rules applied page by page; 0 = hole. */
static void reference(const struct mem_range *fw, size_t n, const struct phys_range *ex,
                      size_t m, uint32_t *page_type)
{
    for (uint32_t p = 0; p < REF_PAGES; p++) {
        uint64_t a = (uint64_t)p * PAGE_SIZE;
        uint32_t type = 0;
        for (size_t i = 0; i < n; i++) {
            if (a >= fw[i].base && a < fw[i].base + fw[i].length &&
                (type == 0 || ref_rank(fw[i].type) > ref_rank(type)))
                type = fw[i].type;
        }
        for (size_t i = 0; i < m; i++) {
            if (a >= ex[i].base && a < ex[i].end &&
                (type == MEM_USABLE || type == MEM_ACPI_RECLAIM))
                type = MEM_RESERVED;
        }
        page_type[p] = type;
    }
}

static uint32_t type_at(const struct e820_table *t, uint64_t a)
{
    for (uint32_t i = 0; i < t->count; i++) {
        if (a >= t->entries[i].base && a < t->entries[i].base + t->entries[i].length)
            return t->entries[i].type;
    }
    return 0;
}

TEST(e820_randomized_against_reference)
{
    static const uint32_t types[] = { MEM_USABLE, MEM_USABLE, MEM_USABLE, MEM_RESERVED,
                                      MEM_ACPI_RECLAIM, MEM_ACPI_NVS, MEM_BAD, 12 };
    int mismatches = 0, malformed = 0;
    for (int iter = 0; iter < 2000; iter++) {
        struct mem_range fw[8];
        struct phys_range ex[4];
        size_t n = 1 + rnd(8), m = rnd(5);
        for (size_t i = 0; i < n; i++) {
            uint32_t s = rnd(REF_PAGES), len = 1 + rnd(REF_PAGES - s);
            fw[i] = (struct mem_range){ (uint64_t)s * PAGE_SIZE, (uint64_t)len * PAGE_SIZE,
                                        types[rnd(8)] };
        }
        for (size_t i = 0; i < m; i++) {
            uint32_t s = rnd(REF_PAGES), len = 1 + rnd(REF_PAGES - s);
            ex[i] = (struct phys_range){ (uint64_t)s * PAGE_SIZE, (uint64_t)(s + len) * PAGE_SIZE };
        }
        uint32_t want[REF_PAGES];
        reference(fw, n, ex, m, want);
        struct e820_table t;
        enum e820_status st = e820_build(&t, fw, n, ex, m);
        bool any_usable = false;
        for (uint32_t p = 0; p < REF_PAGES; p++)
            any_usable |= want[p] == MEM_USABLE;
        if (st != (any_usable ? E820_OK : E820_ERR_NO_USABLE_RAM))
            mismatches++;
        if (!well_formed(&t))
            malformed++;
        for (uint32_t p = 0; p < REF_PAGES; p++) {
            if (type_at(&t, (uint64_t)p * PAGE_SIZE) != want[p]) {
                mismatches++;
                break;
            }
        }
    }
    CHECK_EQ(mismatches, 0);
    CHECK_EQ(malformed, 0);
}
