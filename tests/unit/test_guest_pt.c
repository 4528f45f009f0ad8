/* Unit tests for the guest page-table walker, on a simulated guest RAM. */
#include "tests/unit/unit.h"
#include "vmm/guest/guest_pt.h"

#define RAM_SIZE (64 * 4096)
static uint64_t ram[RAM_SIZE / 8];

static bool read64(void *ctx, uint64_t gpa, uint64_t *value)
{
    (void)ctx;
    if (gpa + 8 > RAM_SIZE || (gpa & 7))
        return false;
    *value = ram[gpa / 8];
    return true;
}

static void set_entry(uint64_t table_page, unsigned int index, uint64_t value)
{
    ram[table_page * 512 + index] = value;
}

/* PML4 at page 1, PDPT page 2, PD page 3, PT page 4. */
static struct guest_paging setup(void)
{
    memset(ram, 0, sizeof(ram));
    struct guest_paging pg = { .cr3 = 1 * 4096, .la57 = false, .read64 = read64 };
    return pg;
}

TEST(walk_4k_page)
{
    struct guest_paging pg = setup();
    uint64_t gva = 0x00007f0012345678ull, gpa = 0;
    set_entry(1, (gva >> 39) & 511, 2 * 4096 | 7);
    set_entry(2, (gva >> 30) & 511, 3 * 4096 | 7);
    set_entry(3, (gva >> 21) & 511, 4 * 4096 | 7);
    set_entry(4, (gva >> 12) & 511, 0xabcd000ull | 7 | (1ull << 63));
    CHECK(guest_pt_translate(&pg, gva, &gpa));
    CHECK_EQ(gpa, 0xabcd678);
}

TEST(walk_large_pages)
{
    struct guest_paging pg = setup();
    uint64_t gva2m = 0xffffffff81234567ull, gva1g = 0xffff888040123456ull, gpa = 0;
    set_entry(1, (gva2m >> 39) & 511, 2 * 4096 | 3);
    set_entry(2, (gva2m >> 30) & 511, 3 * 4096 | 3);
    set_entry(3, (gva2m >> 21) & 511, 0x1000000ull | 0x83);
    CHECK(guest_pt_translate(&pg, gva2m, &gpa));
    CHECK_EQ(gpa, 0x1000000 + (gva2m & 0x1fffff));
    set_entry(1, (gva1g >> 39) & 511, 5 * 4096 | 3);
    set_entry(5, (gva1g >> 30) & 511, 0x40000000ull | 0x83);
    CHECK(guest_pt_translate(&pg, gva1g, &gpa));
    CHECK_EQ(gpa, 0x40000000 + (gva1g & 0x3fffffff));
}

TEST(not_present_and_unreadable_tables)
{
    struct guest_paging pg = setup();
    uint64_t gva = 0x400000, gpa = 0x1234;
    CHECK(!guest_pt_translate(&pg, gva, &gpa));          /* empty PML4 */
    CHECK_EQ(gpa, 0x1234);
    set_entry(1, 0, 0x7fff0000ull | 3);                   /* PDPT outside RAM */
    CHECK(!guest_pt_translate(&pg, gva, &gpa));
    set_entry(1, 0, 2 * 4096 | 3);
    set_entry(2, 0, 3 * 4096 | 2);                        /* not present */
    CHECK(!guest_pt_translate(&pg, gva, &gpa));
}

TEST(five_level_uses_one_more_table)
{
    struct guest_paging pg = setup();
    pg.la57 = true;
    uint64_t gva = 0x1000, gpa = 0;
    set_entry(1, 0, 2 * 4096 | 3);
    set_entry(2, 0, 3 * 4096 | 3);
    set_entry(3, 0, 4 * 4096 | 3);
    set_entry(4, 0, 0x200000ull | 0x83);                  /* page 4 is the PD: 2 MiB page */
    CHECK(guest_pt_translate(&pg, gva, &gpa));
    CHECK_EQ(gpa, 0x201000);
    pg.la57 = false;                  /* 4-level: page 4 is a PT, its entry 1 is empty */
    CHECK(!guest_pt_translate(&pg, gva, &gpa));
    pg.la57 = true;
    set_entry(4, 0, 5 * 4096 | 3);
    set_entry(5, 1, 0x9000 | 3);
    CHECK(guest_pt_translate(&pg, gva, &gpa));
    CHECK_EQ(gpa, 0x9000);
}

TEST(non_canonical_addresses_are_refused_before_the_walk)
{
    struct guest_paging pg = setup();
    uint64_t gpa = 0x1234;
    CHECK(guest_pt_canonical(0x00007fffffffffffull, false));
    CHECK(guest_pt_canonical(0xffff800000000000ull, false));
    CHECK(!guest_pt_canonical(0x0000800000000000ull, false));
    CHECK(!guest_pt_canonical(0x8000000000000000ull, false));
    CHECK(!guest_pt_canonical(0xfffe800000000000ull, false));
    CHECK(guest_pt_canonical(0x00ff800000000000ull, true));     /* 57-bit: fine */
    CHECK(!guest_pt_canonical(0x0100000000000000ull, true));
    /* every table maps everything: only the canonical check can refuse */
    for (unsigned int i = 0; i < 512; i++) {
        set_entry(1, i, 2 * 4096 | 7);
        set_entry(2, i, 0x40000000ull | 0x87);
    }
    CHECK_EQ(guest_pt_walk(&pg, 0x0000800000001000ull, false, &gpa), GUEST_ACCESS_NONCANONICAL);
    CHECK_EQ(guest_pt_walk(&pg, 0x8000000000001000ull, true, &gpa), GUEST_ACCESS_NONCANONICAL);
    CHECK_EQ(gpa, 0x1234);
    CHECK_EQ(guest_pt_walk(&pg, 0xffff800000001000ull, false, &gpa), GUEST_ACCESS_OK);
    CHECK_EQ(gpa, 0x40001000);
}

TEST(user_access_needs_user_bit_at_every_level)
{
    struct guest_paging pg = setup();
    uint64_t gva = 0x00007f0012345678ull, gpa = 0;
    const unsigned int tables[4] = { 1, 2, 3, 4 };
    const unsigned int shift[4] = { 39, 30, 21, 12 };
    for (unsigned int cleared = 0; cleared < 5; cleared++) {
        for (unsigned int l = 0; l < 4; l++) {
            uint64_t next = l < 3 ? (uint64_t)(tables[l] + 1) * 4096 : 0xabcd000ull;
            uint64_t flags = l == cleared ? 3 : 7;              /* U/S clear at one level */
            set_entry(tables[l], (gva >> shift[l]) & 511, next | flags);
        }
        enum guest_access want = cleared < 4 ? GUEST_ACCESS_SUPERVISOR : GUEST_ACCESS_OK;
        CHECK_EQ(guest_pt_walk(&pg, gva, true, &gpa), want);
        CHECK_EQ(guest_pt_walk(&pg, gva, false, &gpa), GUEST_ACCESS_OK);   /* kernel may */
        CHECK_EQ(gpa, 0xabcd678);
    }
    /* a supervisor-only 2 MiB page */
    set_entry(3, (gva >> 21) & 511, 0x1000000ull | 0x83);
    CHECK_EQ(guest_pt_walk(&pg, gva, true, &gpa), GUEST_ACCESS_SUPERVISOR);
    CHECK_EQ(guest_pt_walk(&pg, gva, false, &gpa), GUEST_ACCESS_OK);
}

TEST(bit7_is_pat_in_a_pte_and_reserved_in_the_pml4)
{
    struct guest_paging pg = setup();
    uint64_t gva = 0x00007f0012345678ull, gpa = 0;
    set_entry(1, (gva >> 39) & 511, 2 * 4096 | 7);
    set_entry(2, (gva >> 30) & 511, 3 * 4096 | 7);
    set_entry(3, (gva >> 21) & 511, 4 * 4096 | 7);
    set_entry(4, (gva >> 12) & 511, 0xabcd000ull | 0x87);      /* PAT bit set */
    CHECK_EQ(guest_pt_walk(&pg, gva, true, &gpa), GUEST_ACCESS_OK);
    CHECK_EQ(gpa, 0xabcd678);
    set_entry(1, (gva >> 39) & 511, 2 * 4096 | 0x87);          /* PS in a PML4E */
    CHECK_EQ(guest_pt_walk(&pg, gva, false, &gpa), GUEST_ACCESS_UNMAPPED);
}
