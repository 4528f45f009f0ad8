/* Unit tests of the physical page allocator (vmm/page_alloc.c): building
 * the free list from a memory map with exclusions, alignment and limits,
 * highest-first order, exhaustion, free/merge, double frees, reservations,
 * the range-count limit, and a seeded random sequence checked page by page
 * against a bitmap model. */
#include "tests/unit/unit.h"

#include <stdlib.h>

#include "vmm/page_alloc.h"

#define KiB 0x400ull
#define MiB 0x100000ull
#define GiB 0x40000000ull

static struct boot_info bi;
static struct page_allocator pa;

static void map_reset(void)
{
    memset(&bi, 0, sizeof(bi));
}

static void map_add(uint64_t base, uint64_t end, uint32_t type)
{
    bi.mem[bi.mem_count].base = base;
    bi.mem[bi.mem_count].length = end - base;
    bi.mem[bi.mem_count].type = type;
    bi.mem_count++;
}

/* A typical BIOS machine with 6 GiB: holes, ACPI, reserved, RAM above 4 GiB. */
static void map_typical(void)
{
    map_reset();
    map_add(0x0, 0x9fc00, MEM_USABLE);
    map_add(0x9fc00, 0xa0000, MEM_RESERVED);
    map_add(0xf0000, 0x100000, MEM_RESERVED);
    map_add(0x100000, 0x7fee0000, MEM_USABLE);
    map_add(0x7fee0000, 0x7ff00000, MEM_ACPI_RECLAIM);
    map_add(0x7ff00000, 0x80000000, MEM_USABLE);
    map_add(0xfffc0000, 0x100000000, MEM_RESERVED);
    map_add(0x100000000, 0x180000000, MEM_USABLE);
}

static bool check_free(uint32_t i, uint64_t base, uint64_t end)
{
    if (i >= pa.count)
        return unit_fail(__FILE__, __LINE__, "free range %u missing (count %u)", i, pa.count);
    if (pa.free[i].base == base && pa.free[i].end == end)
        return true;
    return unit_fail(__FILE__, __LINE__,
                     "free range %u: [0x%" PRIx64 ", 0x%" PRIx64 ") want [0x%" PRIx64 ", 0x%" PRIx64 ")",
                     i, pa.free[i].base, pa.free[i].end, base, end);
}

/* Same free list and counters (slots past count are not compared). */
static bool same_state(const struct page_allocator *a, const struct page_allocator *b)
{
    return a->count == b->count && a->total_pages == b->total_pages &&
           a->free_pages == b->free_pages &&
           memcmp(a->free, b->free, a->count * sizeof(a->free[0])) == 0;
}

/* The free list's invariants: sorted, disjoint, not touching, page
 * aligned, and free_pages equal to the pages it holds. */
static bool check_invariants(void)
{
    uint64_t pages = 0;
    bool good = true;

    for (uint32_t i = 0; i < pa.count && good; i++) {
        const struct phys_range *r = &pa.free[i];
        good = CHECK(r->base < r->end) && CHECK(r->base % PAGE_SIZE == 0) &&
               CHECK(r->end % PAGE_SIZE == 0) && CHECK(i == 0 || pa.free[i - 1].end < r->base);
        pages += (r->end - r->base) / PAGE_SIZE;
    }
    return good && CHECK_EQ(pages, pa.free_pages);
}

TEST(exclusions_round_outward_usable_rounds_inward)
{
    map_reset();
    map_add(0x0, 0x9fc00, MEM_USABLE);            /* below 1 MiB: never handed out */
    map_add(0x100800, 0x7fe00400, MEM_USABLE);     /* unaligned both ends: rounds inward */
    map_add(0x7fe00400, 0x80000000, MEM_RESERVED);
    map_add(0x100000000, 0x140000000, MEM_USABLE);
    const struct phys_range excl[] = {
        { 0x200000, 0x4801234 },       /* hypervisor image, end unaligned: rounds up */
        { 0x5000010, 0x5800000 },      /* module, start unaligned: rounds down */
        { 0x9000, 0x9800 },            /* multiboot2 info in low memory */
        { 0x13ff00000, 0x150000000 },  /* runs past the end of a usable range */
        { 0xc0000000, 0xc0001000 },    /* touches no usable memory */
        { 0x6000000, 0x6000000 },      /* empty */
    };

    CHECK_EQ(palloc_init(&pa, &bi, excl, sizeof(excl) / sizeof(excl[0])), PALLOC_OK);
    CHECK_EQ(pa.count, 4);
    check_free(0, 0x101000, 0x200000);
    check_free(1, 0x4802000, 0x5000000);
    check_free(2, 0x5800000, 0x7fe00000);
    check_free(3, 0x100000000, 0x13ff00000);
    uint64_t want = ((0x200000 - 0x101000) + (0x5000000 - 0x4802000) + (0x7fe00000 - 0x5800000) +
                     (0x13ff00000 - 0x100000000)) / PAGE_SIZE;
    CHECK_EQ(pa.total_pages, want);
    CHECK_EQ(pa.free_pages, want);
    check_invariants();
}

TEST(overlapping_and_touching_usable_ranges_merge)
{
    map_reset();
    map_add(0x200000, 0x400000, MEM_USABLE);
    map_add(0x400000, 0x600000, MEM_USABLE);      /* touches: merges */
    map_add(0x500000, 0x700000, MEM_USABLE);      /* overlaps: counted once */
    map_add(0x300000, 0x301000, MEM_BAD);         /* ignored: not usable */
    CHECK_EQ(palloc_init(&pa, &bi, NULL, 0), PALLOC_OK);
    CHECK_EQ(pa.count, 1);
    check_free(0, 0x200000, 0x700000);
    CHECK_EQ(pa.total_pages, 0x500000 / PAGE_SIZE);
}

TEST(no_usable_memory)
{
    map_reset();
    map_add(0x0, 0x9f000, MEM_USABLE); /* only low memory */
    CHECK_EQ(palloc_init(&pa, &bi, NULL, 0), PALLOC_ERR_NO_MEMORY);
    CHECK_EQ(pa.count, 0);
    CHECK_EQ(palloc_alloc(&pa, 1, PAGE_SIZE, 0), 0);
}

TEST(highest_first_order)
{
    map_typical();
    CHECK_EQ(palloc_init(&pa, &bi, NULL, 0), PALLOC_OK);
    uint64_t a = palloc_alloc(&pa, 1, PAGE_SIZE, 0);
    uint64_t b = palloc_alloc(&pa, 1, PAGE_SIZE, 0);
    uint64_t c = palloc_alloc(&pa, 4, PAGE_SIZE, 0);
    CHECK_EQ(a, 0x180000000 - PAGE_SIZE);
    CHECK_EQ(b, a - PAGE_SIZE);
    CHECK_EQ(c, b - 4 * PAGE_SIZE);
    CHECK_EQ(pa.free_pages, pa.total_pages - 6);
    check_invariants();
}

TEST(alignment_2mib)
{
    map_reset();
    map_add(0x1000000, 0x1000000 + 3 * MiB + 5 * PAGE_SIZE, MEM_USABLE); /* top not 2 MiB aligned */
    CHECK_EQ(palloc_init(&pa, &bi, NULL, 0), PALLOC_OK);
    uint64_t a = palloc_alloc(&pa, 1, 2 * MiB, 0);
    CHECK_EQ(a, 0x1000000 + 2 * MiB);
    CHECK_EQ(pa.count, 2); /* the pages above the aligned block stay free */
    check_free(0, 0x1000000, 0x1000000 + 2 * MiB);
    check_free(1, 0x1000000 + 2 * MiB + PAGE_SIZE, 0x1000000 + 3 * MiB + 5 * PAGE_SIZE);
    uint64_t big = palloc_alloc(&pa, 512, 2 * MiB, 0); /* a whole 2 MiB page */
    CHECK_EQ(big, 0x1000000);
    CHECK_EQ(big % (2 * MiB), 0);
    CHECK_EQ(palloc_alloc(&pa, 1, 2 * MiB, 0), 0); /* no 2 MiB boundary left free */
    CHECK(palloc_alloc(&pa, 1, PAGE_SIZE, 0) != 0);
    check_invariants();
}

TEST(limit_below_4gib)
{
    map_typical();
    CHECK_EQ(palloc_init(&pa, &bi, NULL, 0), PALLOC_OK);
    uint64_t a = palloc_alloc(&pa, 16, PAGE_SIZE, 4 * GiB);
    CHECK_EQ(a, 0x80000000 - 16 * PAGE_SIZE); /* highest below 4 GiB */
    uint64_t b = palloc_alloc(&pa, 1, PAGE_SIZE, 0x7ff00800); /* unaligned limit */
    CHECK_EQ(b, 0x7fee0000 - PAGE_SIZE); /* [0x7ff00000, limit) is less than a page */
    uint64_t c = palloc_alloc(&pa, 1, PAGE_SIZE, 0x180000000);
    CHECK_EQ(c, 0x180000000 - PAGE_SIZE);
    CHECK_EQ(palloc_alloc(&pa, 1, PAGE_SIZE, 1 * MiB), 0); /* nothing below 1 MiB */
    check_invariants();
}

TEST(bad_arguments_rejected)
{
    map_typical();
    CHECK_EQ(palloc_init(&pa, &bi, NULL, 0), PALLOC_OK);
    struct page_allocator before = pa;
    CHECK_EQ(palloc_alloc(&pa, 0, PAGE_SIZE, 0), 0);
    CHECK_EQ(palloc_alloc(&pa, 1, 3 * PAGE_SIZE, 0), 0);   /* not a power of two */
    CHECK_EQ(palloc_alloc(&pa, 1, 512, 0), 0);             /* below a page */
    CHECK_EQ(palloc_alloc(&pa, UINT64_MAX, PAGE_SIZE, 0), 0);
    CHECK(!palloc_free(&pa, 0x123, 1));                     /* unaligned */
    CHECK(!palloc_free(&pa, 0x200000000, 0));
    CHECK(!palloc_free(&pa, 0xfffffffffffff000, 2));        /* wraps */
    CHECK(same_state(&before, &pa));
}

TEST(exhaustion_returns_zero_and_keeps_state)
{
    map_reset();
    map_add(0x200000, 0x210000, MEM_USABLE); /* 16 pages */
    map_add(0x400000, 0x404000, MEM_USABLE); /* 4 pages */
    CHECK_EQ(palloc_init(&pa, &bi, NULL, 0), PALLOC_OK);
    CHECK_EQ(palloc_alloc(&pa, 17, PAGE_SIZE, 0), 0);   /* 20 free but not contiguous */
    CHECK_EQ(palloc_alloc(&pa, 1, PAGE_SIZE, 0x200000), 0);
    CHECK_EQ(pa.free_pages, 20);
    CHECK_EQ(pa.count, 2);
    CHECK_EQ(palloc_alloc(&pa, 16, PAGE_SIZE, 0), 0x200000);
    CHECK_EQ(palloc_alloc(&pa, 4, PAGE_SIZE, 0), 0x400000);
    struct page_allocator before = pa;
    CHECK_EQ(palloc_alloc(&pa, 1, PAGE_SIZE, 0), 0);
    CHECK(same_state(&before, &pa));
    CHECK_EQ(pa.free_pages, 0);
}

TEST(free_merges_back)
{
    map_typical();
    CHECK_EQ(palloc_init(&pa, &bi, NULL, 0), PALLOC_OK);
    struct page_allocator fresh = pa;
    uint64_t a = palloc_alloc(&pa, 8, PAGE_SIZE, 0);
    uint64_t b = palloc_alloc(&pa, 8, PAGE_SIZE, 0);
    uint64_t c = palloc_alloc(&pa, 8, PAGE_SIZE, 0);
    CHECK(palloc_free(&pa, b, 8)); /* a hole between free memory and a */
    CHECK_EQ(pa.count, fresh.count + 1);
    CHECK(palloc_free(&pa, a, 8)); /* joins b's hole and the range end */
    CHECK_EQ(pa.count, fresh.count + 1);
    CHECK(palloc_free(&pa, c, 8)); /* fills the last gap: everything merges */
    CHECK_EQ(pa.count, fresh.count);
    CHECK(same_state(&fresh, &pa));
    check_invariants();
}

TEST(double_free_rejected)
{
    map_typical();
    CHECK_EQ(palloc_init(&pa, &bi, NULL, 0), PALLOC_OK);
    uint64_t a = palloc_alloc(&pa, 4, PAGE_SIZE, 0);
    CHECK(palloc_free(&pa, a, 4));
    struct page_allocator before = pa;
    CHECK(!palloc_free(&pa, a, 4));                 /* whole block again */
    CHECK(!palloc_free(&pa, a + PAGE_SIZE, 1));     /* one page inside it */
    uint64_t b = palloc_alloc(&pa, 4, PAGE_SIZE, 0);
    CHECK_EQ(b, a);
    CHECK(!palloc_free(&pa, b - PAGE_SIZE, 2));     /* straddles free memory below b */
    CHECK(palloc_free(&pa, b, 4));
    CHECK(same_state(&before, &pa));
}

TEST(reserve_splits_a_range)
{
    map_reset();
    map_add(0x1000000, 0x2000000, MEM_USABLE);
    CHECK_EQ(palloc_init(&pa, &bi, NULL, 0), PALLOC_OK);
    CHECK(palloc_reserve(&pa, 0x1400100, 0x1500001)); /* rounds outward */
    CHECK_EQ(pa.count, 2);
    check_free(0, 0x1000000, 0x1400000);
    check_free(1, 0x1501000, 0x2000000);
    CHECK_EQ(pa.free_pages, (0x1000000 - 0x101000) / PAGE_SIZE);
    CHECK(palloc_reserve(&pa, 0x1300000, 0x1600000)); /* covers a gap and two edges */
    check_free(0, 0x1000000, 0x1300000);
    check_free(1, 0x1600000, 0x2000000);
    CHECK(palloc_reserve(&pa, 0x0, 0x1000000));         /* nothing free there */
    CHECK_EQ(pa.count, 2);
    /* Allocation skips reserved memory. */
    CHECK_EQ(palloc_alloc(&pa, 1, PAGE_SIZE, 0x1600000), 0x1300000 - PAGE_SIZE);
    check_invariants();
}

/* 128 usable ranges, each split into three by two exclusions: 384 > 256. */
TEST(too_many_ranges)
{
    static struct phys_range excl[2 * BOOT_MAX_MEM_RANGES];

    map_reset();
    for (uint64_t i = 0; i < BOOT_MAX_MEM_RANGES; i++) {
        uint64_t base = GiB + i * 16 * MiB;
        map_add(base, base + 8 * MiB, MEM_USABLE);
        excl[2 * i].base = base + 2 * MiB;
        excl[2 * i].end = base + 3 * MiB;
        excl[2 * i + 1].base = base + 5 * MiB;
        excl[2 * i + 1].end = base + 6 * MiB;
    }
    CHECK_EQ(palloc_init(&pa, &bi, excl, 2 * BOOT_MAX_MEM_RANGES), PALLOC_ERR_TOO_MANY_RANGES);
    /* With one split each the list holds exactly 256 ranges. */
    CHECK_EQ(palloc_init(&pa, &bi, excl, BOOT_MAX_MEM_RANGES), PALLOC_OK);
    CHECK_EQ(pa.count, PALLOC_MAX_RANGES);
    struct page_allocator before = pa;
    uint64_t top = pa.free[pa.count - 1].base;
    CHECK(!palloc_reserve(&pa, top + 4 * PAGE_SIZE, top + 5 * PAGE_SIZE)); /* would split */
    CHECK(same_state(&before, &pa));
    /* A full list still serves allocations that take a whole range's end. */
    CHECK(palloc_alloc(&pa, 1, PAGE_SIZE, 0) != 0);
    /* ... but cannot record a freed block that touches nothing. */
    CHECK(!palloc_free(&pa, 0x100000, 1) || pa.count < PALLOC_MAX_RANGES);
    check_invariants();
}

/* ---- randomized comparison with a bitmap model ------------------------ */

#define MODEL_BASE  (16 * MiB)
#define MODEL_PAGES 2048u

static bool model_free[MODEL_PAGES];
static uint64_t rng_state = 0x853c49e6748fea9bull;

static uint64_t rng_next(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static uint64_t model_addr(uint32_t page)
{
    return MODEL_BASE + (uint64_t)page * PAGE_SIZE;
}

static bool model_run_free(uint32_t first, uint64_t n)
{
    for (uint64_t p = first; p < first + n; p++)
        if (!model_free[p])
            return false;
    return true;
}

/* The highest aligned run of n free pages below limit, or 0. */
static uint64_t model_alloc(uint64_t n, uint64_t align, uint64_t limit)
{
    for (int64_t p = (int64_t)MODEL_PAGES - (int64_t)n; p >= 0; p--) {
        uint64_t addr = model_addr((uint32_t)p);
        if (addr % align != 0 || (limit && addr + n * PAGE_SIZE > limit))
            continue;
        if (model_run_free((uint32_t)p, n))
            return addr;
    }
    return 0;
}

static bool model_matches(void)
{
    for (uint32_t p = 0; p < MODEL_PAGES; p++) {
        uint64_t addr = model_addr(p);
        bool in_list = false;
        for (uint32_t i = 0; i < pa.count; i++)
            in_list |= addr >= pa.free[i].base && addr < pa.free[i].end;
        if (in_list != model_free[p])
            return unit_fail(__FILE__, __LINE__, "page 0x%" PRIx64 ": allocator %d, model %d", addr,
                             in_list, model_free[p]);
    }
    return true;
}

static int full_fallbacks;

static bool random_step(void)
{
    uint64_t n = 1 + rng_next() % 24;
    uint64_t align = PAGE_SIZE << (rng_next() % 5);
    uint32_t page = (uint32_t)(rng_next() % MODEL_PAGES);

    if (rng_next() % 2) {
        uint64_t limit = rng_next() % 3 ? 0 : model_addr((uint32_t)(rng_next() % MODEL_PAGES));
        uint64_t want = model_alloc(n, align, limit);
        bool full = pa.count == PALLOC_MAX_RANGES;
        uint64_t got = palloc_alloc(&pa, n, align, limit);
        /* With a full list, a block that would split a range is skipped:
         * then any free aligned run below the limit (or none) is fine. */
        bool lower_ok = full && got < want &&
                        (got == 0 || (got % align == 0 && (!limit || got + n * PAGE_SIZE <= limit) &&
                                      model_run_free((uint32_t)((got - MODEL_BASE) / PAGE_SIZE), n)));
        if (got != want && !lower_ok) {
            printf("    alloc n=%" PRIu64 " align=0x%" PRIx64 " limit=0x%" PRIx64 " count=%u\n", n,
                   align, limit, pa.count);
            return CHECK_EQ(got, want);
        }
        full_fallbacks += got != want;
        for (uint64_t p = 0; got && p < n; p++)
            model_free[(got - MODEL_BASE) / PAGE_SIZE + p] = false;
        return true;
    }
    n = page + n > MODEL_PAGES ? MODEL_PAGES - page : n;
    bool can = true;
    for (uint64_t p = page; p < page + n; p++)
        can = can && !model_free[p];
    bool done = palloc_free(&pa, model_addr(page), n);
    if (done != can && !(can && !done && pa.count == PALLOC_MAX_RANGES))
        return unit_fail(__FILE__, __LINE__, "free 0x%" PRIx64 " x%" PRIu64 ": %d want %d",
                         model_addr(page), n, done, can);
    for (uint64_t p = page; done && p < page + n; p++)
        model_free[p] = true;
    return true;
}

TEST(random_operations_match_bitmap_model)
{
    map_reset();
    map_add(MODEL_BASE, model_addr(MODEL_PAGES), MEM_USABLE);
    CHECK_EQ(palloc_init(&pa, &bi, NULL, 0), PALLOC_OK);
    for (uint32_t p = 0; p < MODEL_PAGES; p++)
        model_free[p] = true;
    for (int i = 0; i < 20000; i++) {
        if (!random_step() || !check_invariants() || (i % 64 == 0 && !model_matches())) {
            printf("    diverged at step %d\n", i);
            return;
        }
    }
    model_matches();
    printf("    %d allocations fell back to a lower run with a full list\n", full_fallbacks);
}
