/* Unit tests of reading guest memory for hypercalls and stack walks
 * (vmx/guest_mem.c, hosted): a guest whose RAM, device memory and
 * Vertigo's hidden pages sit in one identity-mapped region below 4 GiB (as
 * domain 0's do), behind a real EPT (vmx/ept.c), with the guest's own page
 * tables in its RAM. Checks that only write-back (RAM) pages are read,
 * never device memory or unmapped pages, that page tables in device
 * memory are not walked, that a user-mode reader gets neither a
 * supervisor-only page nor a non-canonical address, and that the stack
 * walks' translation cache never serves a translation whose page tables,
 * CR3, rights or EPT changed. */
#include "tests/unit/unit.h"

#include <stdlib.h>
#include <sys/mman.h>

#include "vertigo/hypercall.h"
#include "vmm/guest/guest_reader.h"
#include "vmm/hypercall.h"
#include "vmm/vcpu.h"
#include "vmx/ept.h"
#include "vmx/apic_store_cache.h"
#include "vmx/guest_mem.h"
#include "vmm/vhw/mmio_decode.h"
#include "vmx/vmx_ops.h"

#define PAGE 4096ull
#define RAM_PAGES   48          /* pages [0, 48): write-back RAM */
#define MMIO_PAGES  8           /* [48, 56): uncacheable device memory */
#define REGION_PAGES 64         /* [56, 64): unmapped (Vertigo's) */
#define POOL_PAGES  32

static uint8_t *region;         /* guest-physical = host address (identity) */
static uint8_t *pool;
static unsigned int pool_used;
static struct domain dom;
static struct guest_tlb stack_tlb;      /* the stack walks' translation cache */

void vmx_instruction_failed(const char *insn, uint64_t operand, int status, void *caller)
{
    fprintf(stderr, "unexpected %s(%#" PRIx64 ") status %d from %p\n", insn, operand,
            status, caller);
    abort();
}

static uint64_t pool_alloc(void *ctx)
{
    (void)ctx;
    if (pool_used >= POOL_PAGES)
        return 0;
    uint8_t *p = pool + pool_used++ * PAGE;
    memset(p, 0, PAGE);
    return (uint64_t)(uintptr_t)p;
}

static void *pool_virt(void *ctx, uint64_t pa)
{
    (void)ctx;
    return (void *)(uintptr_t)pa;
}

static uint64_t gpa_of(unsigned int page)
{
    return (uint64_t)(uintptr_t)region + page * PAGE;
}

static uint64_t *table(unsigned int page)
{
    return (uint64_t *)(region + page * PAGE);
}

static void *map32(size_t pages)
{
    void *p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap(MAP_32BIT)");
        abort();
    }
    return p;
}

/* Guest-virtual layout (4-level paging, PML4 in RAM page 0):
 *   USER_VA         user page          -> RAM page 10 ("user data")
 *   USER_VA + 1p    supervisor page    -> RAM page 11 ("kernel secret")
 *   USER_VA + 2p    user page          -> device page 48
 *   USER_VA + 3p    user page          -> hidden page 56
 *   USER_VA + 4p    user page          -> RAM page 12 (then +5p: device page 49)
 *   OTHER_VA        user page under a page table that lies in device memory */
#define USER_VA  0x0000000000400000ull
#define OTHER_VA 0x0000000000600000ull

static void set_pte(unsigned int pt, uint64_t va, uint64_t pa, uint64_t flags)
{
    table(pt)[(va >> 12) & 511] = pa | flags;
}

static void build_guest(void)
{
    struct vmx_ept_caps caps = { .ept = true, .walk_4level = true, .memtype_wb = true,
                                 .memtype_uc = true, .page_2m = true };
    struct ept_page_source src = { pool_alloc, pool_virt, NULL };
    region = map32(REGION_PAGES);
    pool = map32(POOL_PAGES);
    pool_used = 0;              /* a new pool for every guest: no test runs out */
    memset(&dom, 0, sizeof(dom));
    memset(&stack_tlb, 0, sizeof(stack_tlb));
    dom.vcpu_count = 1;
    dom.vcpus[0].domain = &dom;
    struct ept *e = &dom.vmx.ept;
    CHECK_EQ(ept_init(e, &src, &caps), EPT_OK);
    CHECK_EQ(ept_map(e, gpa_of(0), gpa_of(0), RAM_PAGES * PAGE, EPT_RWX, EPT_MT_WB), EPT_OK);
    CHECK_EQ(ept_map(e, gpa_of(RAM_PAGES), gpa_of(RAM_PAGES), MMIO_PAGES * PAGE, EPT_RWX,
                     EPT_MT_UC), EPT_OK);
    /* PML4 page 0, PDPT page 1, PD page 2, PT page 3 (and PT at device page 50) */
    table(0)[0] = gpa_of(1) | 7;
    table(1)[0] = gpa_of(2) | 7;
    table(2)[(USER_VA >> 21) & 511] = gpa_of(3) | 7;
    table(2)[(OTHER_VA >> 21) & 511] = gpa_of(50) | 7;
    set_pte(3, USER_VA, gpa_of(10), 7);
    set_pte(3, USER_VA + PAGE, gpa_of(11), 3);
    set_pte(3, USER_VA + 2 * PAGE, gpa_of(48), 7);
    set_pte(3, USER_VA + 3 * PAGE, gpa_of(56), 7);
    set_pte(3, USER_VA + 4 * PAGE, gpa_of(12), 7);
    set_pte(3, USER_VA + 5 * PAGE, gpa_of(49), 7);
    memcpy(region + 10 * PAGE, "user data", 10);
    memcpy(region + 11 * PAGE, "kernel secret", 14);
    memcpy(region + 48 * PAGE, "device register", 16);
    memcpy(region + 50 * PAGE, region + 3 * PAGE, PAGE);   /* a PT in device memory */
}

#define GUEST_CR0_PG (1ull << 31)

/* A second address space, CR3 = RAM page 5 (its tables in pages 5 to 8):
 * the first's, with its PT a copy of page pt's and USER_VA mapped to
 * guest-physical pa. */
static void second_address_space(unsigned int pt, uint64_t pa)
{
    memcpy(table(5), table(0), PAGE);
    memcpy(table(6), table(1), PAGE);
    memcpy(table(7), table(2), PAGE);
    memcpy(table(8), table(pt), PAGE);
    table(5)[0] = gpa_of(6) | 7;
    table(6)[0] = gpa_of(7) | 7;
    table(7)[(USER_VA >> 21) & 511] = gpa_of(8) | 7;
    set_pte(8, USER_VA, pa, 7);
}

static void cursor(struct guest_virt_cursor *c, bool user)
{
    guest_virt_cursor_setup(c, &dom.vcpus[0], GUEST_CR0_PG, gpa_of(0), 0);
    c->user = user;
}

static enum guest_access copy(bool user, uint64_t gva, void *buf, size_t len)
{
    struct guest_virt_cursor c;
    cursor(&c, user);
    return guest_virt_cursor_copy(&c, gva, buf, len);
}

TEST(reads_only_ram_with_the_callers_rights)
{
    char buf[32] = "";
    build_guest();
    CHECK_EQ(copy(true, USER_VA, buf, 10), GUEST_ACCESS_OK);
    CHECK_STR(buf, "user data");
    /* the supervisor page: the kernel may read it, user mode may not */
    CHECK_EQ(copy(false, USER_VA + PAGE, buf, 14), GUEST_ACCESS_OK);
    CHECK_STR(buf, "kernel secret");
    memset(buf, 0, sizeof(buf));
    CHECK_EQ(copy(true, USER_VA + PAGE, buf, 14), GUEST_ACCESS_SUPERVISOR);
    CHECK_EQ(buf[0], 0);
    /* device memory and Vertigo's hidden page, for either mode */
    for (int user = 0; user <= 1; user++) {
        CHECK_EQ(copy(user, USER_VA + 2 * PAGE, buf, 4), GUEST_ACCESS_NOT_RAM);
        CHECK_EQ(copy(user, USER_VA + 3 * PAGE, buf, 4), GUEST_ACCESS_UNMAPPED);
        CHECK_EQ(copy(user, OTHER_VA, buf, 4), GUEST_ACCESS_UNMAPPED);   /* PT in MMIO */
        CHECK_EQ(copy(user, 0x0000800000000000ull, buf, 4), GUEST_ACCESS_NONCANONICAL);
        CHECK_EQ(copy(user, 0xffff7fffffffff00ull, buf, 4), GUEST_ACCESS_NONCANONICAL);
    }
    CHECK(memcmp(buf, "devi", 4) != 0);
}

TEST(a_read_across_pages_stops_at_the_first_bad_one)
{
    char buf[16];
    build_guest();
    /* RAM page 12, then device page 49 */
    CHECK_EQ(copy(false, USER_VA + 5 * PAGE - 8, buf, 8), GUEST_ACCESS_OK);
    CHECK_EQ(copy(false, USER_VA + 5 * PAGE - 8, buf, 16), GUEST_ACCESS_NOT_RAM);
    /* user data page, then the supervisor page */
    CHECK_EQ(copy(true, USER_VA + PAGE - 4, buf, 8), GUEST_ACCESS_SUPERVISOR);
    /* a cursor keeps its rights across reads (its page cache too) */
    struct guest_virt_cursor c;
    cursor(&c, true);
    CHECK_EQ(guest_virt_cursor_copy(&c, USER_VA, buf, 4), GUEST_ACCESS_OK);
    CHECK_EQ(guest_virt_cursor_copy(&c, USER_VA + PAGE, buf, 4), GUEST_ACCESS_SUPERVISOR);
    CHECK(!guest_virt_cursor_read(&c, USER_VA + 2 * PAGE, buf, 4));
    CHECK(guest_virt_cursor_read(&c, USER_VA + 8, buf, 4));
}

TEST(physical_reads_are_ram_only)
{
    char buf[8];
    build_guest();
    struct vcpu *v = &dom.vcpus[0];
    CHECK(guest_phys_read(v, gpa_of(10), buf, 8));
    CHECK(!guest_phys_read(v, gpa_of(48), buf, 8));
    CHECK(!guest_phys_read(v, gpa_of(56), buf, 8));
    CHECK(!guest_phys_read(v, gpa_of(RAM_PAGES) - 4, buf, 8));     /* runs into MMIO */
}

/* End to end: a user-mode verdict whose reason is on the supervisor page
 * gets -VERTIGO_EACCES and leaves no trace; from the kernel it is read. */
TEST(hypercalls_through_the_cursor)
{
    build_guest();
    struct guest_virt_cursor c;
    struct hypercall_args a = { .nr = VERTIGO_HC_SET_VERDICT, .arg = { 1, USER_VA + PAGE },
                                .cpl = 3 };
    cursor(&c, true);
    CHECK_EQ(hypercall_dispatch(&dom, &a, guest_virt_cursor_copy, &c),
             (uint64_t)-VERTIGO_EACCES);
    CHECK_EQ(dom.verdict, GUEST_VERDICT_NONE);
    a.arg[1] = USER_VA + 2 * PAGE;
    CHECK_EQ(hypercall_dispatch(&dom, &a, guest_virt_cursor_copy, &c),
             (uint64_t)-VERTIGO_EMMIO);
    a.arg[1] = 0xfff0000000000000ull;
    CHECK_EQ(hypercall_dispatch(&dom, &a, guest_virt_cursor_copy, &c),
             (uint64_t)-VERTIGO_EFAULT);
    CHECK_EQ(dom.verdict, GUEST_VERDICT_NONE);
    a.arg[1] = USER_VA + PAGE;
    a.cpl = 0;
    cursor(&c, false);
    CHECK_EQ(hypercall_dispatch(&dom, &a, guest_virt_cursor_copy, &c), 0);
    CHECK_STR(dom.verdict_text, "kernel secret");
}

/* ---- The stack walks' translation cache (vmm/guest/guest_tlb.h) ---------------- */

static struct guest_tlb *tlb(void)
{
    return &stack_tlb;
}

/* One walk's look at the page of gva under root cr3 with the cache, as
 * pmu_arch_guest_stack does: a fresh cursor, the cache claimed and given
 * back. The page's first bytes, or NULL if it is unreadable. */
static const char *walk_page(uint64_t cr3, bool user, uint64_t gva)
{
    struct guest_virt_cursor c;
    guest_virt_cursor_setup(&c, &dom.vcpus[0], GUEST_CR0_PG, cr3, 0);
    c.user = user;
    guest_virt_cursor_claim_tlb(&c, tlb());
    CHECK(c.tlb == tlb());
    const char *p = (const char *)guest_virt_cursor_page(&c, gva & ~(PAGE - 1));
    guest_virt_cursor_release_tlb(&c);
    return p;
}

/* Every input of the page walk is checked before a cached translation is
 * used again: the page-table entries at each level (accessed and dirty
 * bits aside), CR3, the access rights and the EPT. */
TEST(cached_translations_never_outlive_what_they_came_from)
{
    build_guest();
    memcpy(region + 12 * PAGE, "other data", 11);
    CHECK_STR(walk_page(gpa_of(0), true, USER_VA), "user data");
    CHECK_EQ(tlb()->misses, 1u);
    CHECK_STR(walk_page(gpa_of(0), true, USER_VA + 8), "user data");
    CHECK_EQ(tlb()->hits, 1u);
    /* the processor setting accessed and dirty bits changes nothing */
    table(3)[(USER_VA >> 12) & 511] |= 0x60;
    table(0)[0] |= 0x20;
    CHECK_STR(walk_page(gpa_of(0), true, USER_VA), "user data");
    CHECK_EQ(tlb()->hits, 2u);
    /* the guest edits the PTE (no TLB flush Vertigo could see) */
    set_pte(3, USER_VA, gpa_of(12), 7);
    CHECK_STR(walk_page(gpa_of(0), true, USER_VA), "other data");
    /* ... or a table higher up: a PD entry to a copy of the PT mapping page 10 */
    memcpy(table(4), table(3), PAGE);
    set_pte(4, USER_VA, gpa_of(10), 7);
    table(2)[(USER_VA >> 21) & 511] = gpa_of(4) | 7;
    CHECK_STR(walk_page(gpa_of(0), true, USER_VA), "user data");
    /* ... or makes it not present, or supervisor-only */
    set_pte(4, USER_VA, gpa_of(10), 0);
    CHECK(walk_page(gpa_of(0), true, USER_VA) == NULL);
    set_pte(4, USER_VA, gpa_of(10), 3);
    CHECK(walk_page(gpa_of(0), true, USER_VA) == NULL);
    CHECK_STR(walk_page(gpa_of(0), false, USER_VA), "user data");
    CHECK(walk_page(gpa_of(0), true, USER_VA) == NULL);      /* a supervisor hit is not a user's */
    set_pte(4, USER_VA, gpa_of(10), 7);
    /* another CR3: its own tables, mapping the page elsewhere */
    second_address_space(4, gpa_of(12));
    CHECK_STR(walk_page(gpa_of(0), true, USER_VA), "user data");
    CHECK_STR(walk_page(gpa_of(5), true, USER_VA), "other data");
    CHECK_STR(walk_page(gpa_of(0), true, USER_VA), "user data");
    /* Vertigo takes the page away from the guest: the EPT's generation */
    uint64_t hits = tlb()->hits;
    CHECK_EQ(ept_unmap(&dom.vmx.ept, gpa_of(10), PAGE), EPT_OK);
    CHECK(walk_page(gpa_of(0), true, USER_VA) == NULL);
    CHECK_EQ(ept_map(&dom.vmx.ept, gpa_of(10), gpa_of(10), PAGE, EPT_RWX, EPT_MT_WB), EPT_OK);
    CHECK_STR(walk_page(gpa_of(0), true, USER_VA), "user data");
    CHECK_STR(walk_page(gpa_of(0), true, USER_VA), "user data");
    CHECK_EQ(tlb()->hits, hits + 1);
}

/* The cache's context is the EPT, its generation and the paging mode,
 * named by an epoch in every entry's tag: a claim in another context (the
 * EPT of another domain on this CPU) retires every entry, and coming back
 * does not revive them; when the epoch number wraps the cache is emptied,
 * so an entry filled under an epoch number never matches when that number
 * names a later context. */
TEST(a_context_change_retires_every_entry_and_a_wrapped_epoch_empties_the_cache)
{
    static const char other_ept;
    build_guest();
    CHECK_STR(walk_page(gpa_of(0), true, USER_VA), "user data");
    CHECK_STR(walk_page(gpa_of(0), true, USER_VA), "user data");
    CHECK_EQ(tlb()->misses, 1u);
    CHECK_EQ(tlb()->hits, 1u);
    const uint32_t epoch = tlb()->epoch;
    /* a walk of another domain on this CPU */
    CHECK(guest_tlb_claim(tlb(), &other_ept, 0, false) == tlb());
    CHECK_EQ(tlb()->epoch, epoch + 1);
    guest_tlb_release(tlb());
    CHECK_STR(walk_page(gpa_of(0), true, USER_VA), "user data");
    CHECK_EQ(tlb()->misses, 2u);            /* walked again, in a new epoch */
    CHECK_EQ(tlb()->epoch, epoch + 2);
    CHECK_STR(walk_page(gpa_of(0), true, USER_VA), "user data");
    CHECK_EQ(tlb()->hits, 2u);
    /* GUEST_TLB_EPOCHS - 1 context changes later the number comes back
     * (the last change is this domain's own claim): the cache was emptied
     * at the wrap, so the entry of the same number is not used */
    for (unsigned int i = 0; i < GUEST_TLB_EPOCHS - 2; i++) {
        CHECK(guest_tlb_claim(tlb(), i & 1 ? (const void *)&dom : &other_ept, i, false) == tlb());
        guest_tlb_release(tlb());
    }
    CHECK_STR(walk_page(gpa_of(0), true, USER_VA), "user data");
    CHECK_EQ(tlb()->epoch, epoch + 2);
    CHECK_EQ(tlb()->misses, 3u);
    CHECK_EQ(tlb()->hits, 2u);
    /* 5-level paging is another context too */
    CHECK(guest_tlb_claim(tlb(), &dom.vmx.ept, dom.vmx.ept.generation, true) == tlb());
    guest_tlb_release(tlb());
    CHECK_STR(walk_page(gpa_of(0), true, USER_VA), "user data");
    CHECK_EQ(tlb()->misses, 4u);
}

/* CR3's low 12 bits (a PCID, or PWT and PCD) change no translation: the
 * same tables under another PCID hit the same entry; other tables
 * (another CR3 address) do not. */
TEST(a_pcid_change_keeps_the_cached_translation)
{
    build_guest();
    CHECK_STR(walk_page(gpa_of(0) | 1, false, USER_VA), "user data");
    CHECK_STR(walk_page(gpa_of(0) | 2, false, USER_VA), "user data");
    CHECK_STR(walk_page(gpa_of(0) | 0x18, false, USER_VA), "user data");
    CHECK_EQ(tlb()->misses, 1u);
    CHECK_EQ(tlb()->hits, 2u);
    memcpy(table(5), table(0), PAGE);
    CHECK_STR(walk_page(gpa_of(5) | 1, false, USER_VA), "user data");
    CHECK_EQ(tlb()->misses, 2u);
}

/* A hostile page table never makes a cached page reach outside the
 * domain's RAM: a page the walk refuses (device memory, Vertigo's hidden
 * page, an address past the domain's RAM, a table in device memory) is
 * not cached, and a cached page whose PTE the guest turns to such a page
 * is walked again and refused. */
TEST(the_cache_never_holds_a_page_outside_ram)
{
    build_guest();
    const uint64_t bad[] = { USER_VA + 2 * PAGE, USER_VA + 3 * PAGE, OTHER_VA };
    for (unsigned int i = 0; i < 3; i++) {
        CHECK(walk_page(gpa_of(0), false, bad[i]) == NULL);
        CHECK(walk_page(gpa_of(0), false, bad[i]) == NULL);
    }
    CHECK_EQ(tlb()->hits, 0u);
    CHECK_STR(walk_page(gpa_of(0), false, USER_VA), "user data");
    CHECK_STR(walk_page(gpa_of(0), false, USER_VA), "user data");
    CHECK_EQ(tlb()->hits, 1u);
    const uint64_t outside[] = { gpa_of(48), gpa_of(56), gpa_of(REGION_PAGES + 16),
                                 0x000ffffffffff000ull };
    for (unsigned int i = 0; i < 4; i++) {
        set_pte(3, USER_VA, outside[i], 7);
        CHECK(walk_page(gpa_of(0), false, USER_VA) == NULL);
        CHECK(walk_page(gpa_of(0), false, USER_VA) == NULL);
    }
    CHECK_EQ(tlb()->hits, 1u);
    set_pte(3, USER_VA, gpa_of(10), 7);
    CHECK_STR(walk_page(gpa_of(0), false, USER_VA), "user data");
}

/* A stack walk's read across two pages through the reader over a cursor
 * with the cache, twice (the second time from the cache): both pages are
 * checked, a read running into device memory is refused both times. */
TEST(a_read_across_two_cached_pages_checks_both)
{
    build_guest();
    memcpy(region + 11 * PAGE, "kernel secret", 14);
    memcpy(region + 11 * PAGE - 4, "abcd", 4);          /* the last bytes of page 10 */
    memcpy(region + 13 * PAGE - 4, "wxyz", 4);          /* of page 12 */
    for (unsigned int round = 0; round < 2; round++) {
        struct guest_virt_cursor c;
        struct guest_reader rd;
        guest_virt_cursor_setup(&c, &dom.vcpus[0], GUEST_CR0_PG, gpa_of(0), 0);
        guest_virt_cursor_claim_tlb(&c, tlb());
        guest_reader_init(&rd, guest_virt_cursor_page, &c);
        const uint8_t *p = guest_reader_at(&rd, USER_VA + PAGE - 4, 8);
        CHECK(p != NULL && memcmp(p, "abcdkern", 8) == 0);
        CHECK(guest_reader_at(&rd, USER_VA + 5 * PAGE - 4, 8) == NULL);   /* into page 49 */
        p = guest_reader_at(&rd, USER_VA + 5 * PAGE - 8, 8);              /* page 12 alone */
        CHECK(p != NULL && memcmp(p + 4, "wxyz", 4) == 0);
        guest_virt_cursor_release_tlb(&c);
    }
    CHECK_EQ(tlb()->hits, 3u);      /* pages 10, 11, 12 from the cache the second time ... */
    CHECK_EQ(tlb()->misses, 5u);    /* ... walked the first; the refused 49 walked both times */
}

/* guest_virt_fetch's core: the instruction's bytes through a cursor with
 * the cache claimed, as an exit handler fetches the guest's MMIO
 * instruction. */
static size_t fetch(uint64_t rip, uint8_t *buf, size_t max)
{
    struct guest_virt_cursor c;
    guest_virt_cursor_setup(&c, &dom.vcpus[0], GUEST_CR0_PG, gpa_of(0), 0);
    guest_virt_cursor_claim_tlb(&c, tlb());
    size_t n = guest_virt_cursor_fetch(&c, rip, buf, max);
    guest_virt_cursor_release_tlb(&c);
    return n;
}

/* An instruction fetched again comes from the cache, and never from a page
 * the guest has since remapped; one at the end of the last readable page
 * is as many bytes as that page holds, the same from the cache as walked. */
TEST(an_instruction_fetch_uses_the_cache_and_stops_at_the_first_unreadable_byte)
{
    build_guest();
    uint8_t insn[15];
    memcpy(region + 10 * PAGE, "\x89\x14\x25\xb0\x00\x5f\xff", 7);     /* mov %edx,(addr) */
    memcpy(region + 12 * PAGE, "\xc7\x04\x25\xb0\x00\x5f\xff", 7);
    memcpy(region + 13 * PAGE - 3, "\x89\x10\x90", 3);       /* the last bytes of page 12 */
    for (unsigned int round = 0; round < 2; round++) {
        memset(insn, 0, sizeof(insn));
        CHECK_EQ(fetch(USER_VA, insn, sizeof(insn)), 15u);
        CHECK(memcmp(insn, "\x89\x14\x25\xb0\x00\x5f\xff", 7) == 0);
    }
    CHECK_EQ(tlb()->misses, 1u);
    CHECK_EQ(tlb()->hits, 1u);
    set_pte(3, USER_VA, gpa_of(12), 7);     /* the guest remaps the page (no flush seen) */
    CHECK_EQ(fetch(USER_VA, insn, sizeof(insn)), 15u);
    CHECK(memcmp(insn, "\xc7\x04\x25\xb0\x00\x5f\xff", 7) == 0);
    CHECK_EQ(tlb()->hits, 1u);
    for (unsigned int round = 0; round < 2; round++) {
        memset(insn, 0, sizeof(insn));
        CHECK_EQ(fetch(USER_VA + 5 * PAGE - 3, insn, sizeof(insn)), 3u);    /* then page 49 */
        CHECK(memcmp(insn, "\x89\x10\x90", 3) == 0);
        CHECK_EQ(insn[3], 0u);
    }
    CHECK(fetch(USER_VA + 2 * PAGE, insn, sizeof(insn)) == 0);               /* device memory */
}

/* A fetch's proof of its page (guest_virt_cursor_prove), and a decoded
 * APIC store remembered on it (vmx/apic_store_cache.c): found again while
 * the paging registers, the EPT, every paging-structure entry of the walk
 * and the instruction's own bytes are what they were; not after the guest
 * edits its tables, switches CR3 to tables mapping other bytes, turns
 * paging off or changes LA57, Vertigo changes the EPT, or the guest
 * rewrites the instruction; a page the cache could not record proves
 * nothing. */
static bool fetch_proved(uint64_t cr3, uint64_t rip, uint8_t *buf, struct guest_page_proof *proof)
{
    struct guest_virt_cursor c;
    guest_virt_cursor_setup(&c, &dom.vcpus[0], GUEST_CR0_PG, cr3, 0);
    guest_virt_cursor_claim_tlb(&c, tlb());
    bool proved = guest_virt_cursor_fetch(&c, rip, buf, 15) == 15 &&
                  guest_virt_cursor_prove(&c, rip & ~(PAGE - 1), proof);
    guest_virt_cursor_release_tlb(&c);
    return proved;
}

static bool store_found(uint64_t cr0, uint64_t cr3, uint64_t cr4, uint64_t rip,
                        struct mmio_store *st)
{
    memset(st, 0, sizeof(*st));
    return apic_store_cache_find(&dom.vcpus[0], rip, cr0, cr3, cr4, st);
}

TEST(a_remembered_apic_store_holds_exactly_while_its_fetch_would_give_it)
{
    build_guest();
    const uint64_t rip = USER_VA + 0x40;
    memcpy(region + 10 * PAGE + 0x40, "\x89\x14\x25\xb0\x00\x5f\xff\x90", 8);  /* mov %edx,(addr) */
    memcpy(region + 12 * PAGE + 0x40, "\xc7\x04\x25\xb0\x00\x5f\xff\x00\x04\x00\x00", 11);
    uint8_t insn[15];
    struct guest_page_proof proof;
    struct mmio_store st, found;
    CHECK(fetch_proved(gpa_of(0), rip, insn, &proof));
    CHECK(mmio_decode_store(insn, sizeof(insn), &st) && st.length == 7 && st.from_register);
    CHECK(guest_page_proof_check(&proof, &dom.vcpus[0], GUEST_CR0_PG, gpa_of(0) | 0x5, 0) ==
          region + 10 * PAGE);                                  /* a PCID changes nothing */
    CHECK(!store_found(GUEST_CR0_PG, gpa_of(0), 0, rip, &found));
    apic_store_cache_add(&dom.vcpus[0], rip, &proof, insn, &st);
    CHECK(store_found(GUEST_CR0_PG, gpa_of(0), 0, rip, &found));
    CHECK(found.length == 7 && found.from_register && found.reg == st.reg);
    CHECK(!store_found(GUEST_CR0_PG, gpa_of(0), 0, rip + 1, &found));     /* another RIP */
    CHECK(!store_found(0, gpa_of(0), 0, rip, &found));                    /* paging off */
    CHECK(!store_found(GUEST_CR0_PG, gpa_of(0), 1ull << 12, rip, &found)); /* LA57 */
    region[10 * PAGE + 0x47] = 0xcc;            /* a byte past the instruction */
    CHECK(store_found(GUEST_CR0_PG, gpa_of(0), 0, rip, &found));
    region[10 * PAGE + 0x42] = 0x05;            /* the instruction's own: rewritten */
    CHECK(!store_found(GUEST_CR0_PG, gpa_of(0), 0, rip, &found));
    region[10 * PAGE + 0x42] = 0x25;
    CHECK(store_found(GUEST_CR0_PG, gpa_of(0), 0, rip, &found));
    set_pte(3, USER_VA, gpa_of(12), 7);         /* remapped: other bytes there */
    CHECK(!store_found(GUEST_CR0_PG, gpa_of(0), 0, rip, &found));
    CHECK(fetch_proved(gpa_of(0), rip, insn, &proof));
    CHECK(mmio_decode_store(insn, sizeof(insn), &st) && st.length == 11 && !st.from_register);
    apic_store_cache_add(&dom.vcpus[0], rip, &proof, insn, &st);
    CHECK(store_found(GUEST_CR0_PG, gpa_of(0), 0, rip, &found));
    CHECK(found.length == 11 && !found.from_register && found.immediate == 0x400);
    /* another CR3 whose tables map the first page: remembered beside it */
    second_address_space(3, gpa_of(10));
    CHECK(!store_found(GUEST_CR0_PG, gpa_of(5), 0, rip, &found));
    CHECK(fetch_proved(gpa_of(5), rip, insn, &proof));
    CHECK(mmio_decode_store(insn, sizeof(insn), &st) && st.length == 7);
    apic_store_cache_add(&dom.vcpus[0], rip, &proof, insn, &st);
    CHECK(store_found(GUEST_CR0_PG, gpa_of(5), 0, rip, &found) && found.length == 7);
    CHECK(store_found(GUEST_CR0_PG, gpa_of(0), 0, rip, &found) && found.length == 11);
    /* Vertigo changes the EPT (even back as it was): no longer proven */
    CHECK_EQ(ept_unmap(&dom.vmx.ept, gpa_of(12), PAGE), EPT_OK);
    CHECK_EQ(ept_map(&dom.vmx.ept, gpa_of(12), gpa_of(12), PAGE, EPT_RWX, EPT_MT_WB), EPT_OK);
    CHECK(!store_found(GUEST_CR0_PG, gpa_of(0), 0, rip, &found));
    /* an instruction whose 16-byte window crosses the page's end: not kept */
    memcpy(region + 10 * PAGE + PAGE - 9, "\x89\x14\x25\xb0\x00\x5f\xff", 7);
    CHECK(fetch_proved(gpa_of(5), USER_VA + PAGE - 9, insn, &proof));
    CHECK(mmio_decode_store(insn, sizeof(insn), &st) && st.length == 7);
    apic_store_cache_add(&dom.vcpus[0], USER_VA + PAGE - 9, &proof, insn, &st);
    CHECK(!store_found(GUEST_CR0_PG, gpa_of(5), 0, USER_VA + PAGE - 9, &found));
    /* a walk the cache could not record proves nothing */
    struct guest_virt_cursor c;
    guest_virt_cursor_setup(&c, &dom.vcpus[0], GUEST_CR0_PG, gpa_of(0), 0);
    CHECK(!guest_virt_cursor_prove(&c, USER_VA, &proof));                  /* no cache claimed */
}

/* A sample taken in an NMI that interrupted another sample's walk on the
 * same CPU walks without the cache, and reads right. */
TEST(a_walk_interrupted_on_its_cpu_keeps_the_cache)
{
    build_guest();
    struct guest_virt_cursor outer, inner;
    guest_virt_cursor_setup(&outer, &dom.vcpus[0], GUEST_CR0_PG, gpa_of(0), 0);
    guest_virt_cursor_claim_tlb(&outer, tlb());
    CHECK(outer.tlb == tlb());
    guest_virt_cursor_setup(&inner, &dom.vcpus[0], GUEST_CR0_PG, gpa_of(0), 0);
    guest_virt_cursor_claim_tlb(&inner, tlb());
    CHECK(inner.tlb == NULL);
    CHECK_STR((const char *)guest_virt_cursor_page(&inner, USER_VA), "user data");
    CHECK_EQ(tlb()->misses + tlb()->hits, 0u);
    guest_virt_cursor_release_tlb(&inner);
    CHECK_STR((const char *)guest_virt_cursor_page(&outer, USER_VA), "user data");
    CHECK_EQ(tlb()->misses, 1u);
    guest_virt_cursor_release_tlb(&outer);
    CHECK_STR(walk_page(gpa_of(0), false, USER_VA), "user data");
    CHECK_EQ(tlb()->hits, 1u);
    /* without paging there is nothing to cache */
    guest_virt_cursor_setup(&inner, &dom.vcpus[0], 0, 0, 0);
    guest_virt_cursor_claim_tlb(&inner, tlb());
    CHECK(inner.tlb == NULL);
}

/* Two ways per set: a kernel stack page and a user stack page meeting in
 * one set both stay; a third page there evicts the least recently filled;
 * a stale entry is replaced in place; a walk that could not be recorded
 * drops the page's entry. */
TEST(a_set_keeps_two_pages_and_evicts_the_older)
{
    static struct guest_tlb t;
    memset(&t, 0, sizeof(t));
    uint64_t pte = 0x1007, pages[3], n = 0;
    CHECK(guest_tlb_claim(&t, &t, 1, false) == &t);
    struct guest_tlb_key key = guest_tlb_key(&t, 0, false, 0x5000);
    const uint64_t epoch = key.tag;
    struct guest_tlb_trace trace = { .count = 1, .entry = { &pte }, .value = { 0x1007 } };
    const uint8_t host[3][1] = { { 0 }, { 1 }, { 2 } };
    key.tag = epoch | 0xffffc90000013000ull;
    unsigned int set = guest_tlb_set(&key);
    for (uint64_t p = 0x7ffffffd0000ull; n < 3; p += PAGE) {
        key.tag = epoch | p;
        if (guest_tlb_set(&key) == set)
            pages[n++] = p;
    }
    for (unsigned int i = 0; i < 3; i++) {
        key.tag = epoch | pages[i];
        guest_tlb_fill(&t, &key, &trace, host[i]);
    }
    key.tag = epoch | pages[0];
    CHECK(guest_tlb_lookup(&t, &key) == NULL);          /* the oldest went */
    key.tag = epoch | pages[1];
    CHECK(guest_tlb_lookup(&t, &key) == host[1]);
    key.tag = epoch | pages[2];
    CHECK(guest_tlb_lookup(&t, &key) == host[2]);
    pte = 0x2007;                                       /* the guest edits the PTE */
    CHECK(guest_tlb_lookup(&t, &key) == NULL);
    trace.value[0] = 0x2007;
    guest_tlb_fill(&t, &key, &trace, host[0]);          /* walked again: replaces it */
    CHECK(guest_tlb_lookup(&t, &key) == host[0]);
    key.tag = epoch | pages[1];
    CHECK(guest_tlb_lookup(&t, &key) == NULL);          /* pages[1]'s PTE changed too */
    struct guest_tlb_trace unrecorded = { .count = GUEST_TLB_LEVELS + 1 };
    key.tag = epoch | pages[2];
    guest_tlb_fill(&t, &key, &unrecorded, host[1]);
    CHECK(guest_tlb_lookup(&t, &key) == NULL);          /* nothing cached for it */
}

/* A domain beside domain 0: its EPT maps guest-physical [0, 8 pages) to a
 * block of host memory (region pages 20..27), nothing else. Physical and
 * virtual reads (its page tables in its RAM) reach the block through its
 * own EPT; a guest-physical address outside its RAM, the host address of
 * another domain's page included, is unmapped for it. */
TEST(a_private_domain_reads_only_its_own_ram)
{
    static struct domain priv;
    struct vmx_ept_caps caps = { .ept = true, .walk_4level = true, .memtype_wb = true,
                                 .page_2m = true };
    struct ept_page_source src = { pool_alloc, pool_virt, NULL };
    uint8_t *block;
    char buf[16];

    build_guest();
    block = region + 20 * PAGE;
    memset(&priv, 0, sizeof(priv));
    priv.id = 1;
    priv.vcpu_count = 1;
    priv.vcpus[0].domain = &priv;
    CHECK_EQ(ept_init(&priv.vmx.ept, &src, &caps), EPT_OK);
    CHECK_EQ(ept_map(&priv.vmx.ept, 0, gpa_of(20), 8 * PAGE, EPT_RWX, EPT_MT_WB), EPT_OK);
    uint64_t *pml4 = (uint64_t *)block, *pdpt = (uint64_t *)(block + PAGE);
    uint64_t *pd = (uint64_t *)(block + 2 * PAGE), *pt = (uint64_t *)(block + 3 * PAGE);
    pml4[0] = 1 * PAGE | 7;
    pdpt[0] = 2 * PAGE | 7;
    pd[(USER_VA >> 21) & 511] = 3 * PAGE | 7;
    pt[(USER_VA >> 12) & 511] = 5 * PAGE | 7;               /* its own RAM */
    pt[((USER_VA >> 12) + 1) & 511] = 8 * PAGE | 7;         /* just past it */
    pt[((USER_VA >> 12) + 2) & 511] = gpa_of(10) | 7;       /* domain 0's page */
    memcpy(block + 5 * PAGE, "private data", 13);

    struct vcpu *v = &priv.vcpus[0];
    CHECK(guest_phys_read(v, 5 * PAGE, buf, 13) && strcmp(buf, "private data") == 0);
    CHECK(!guest_phys_read(v, 8 * PAGE, buf, 8));
    CHECK(!guest_phys_read(v, 8 * PAGE - 4, buf, 8));      /* runs off its RAM */
    CHECK(!guest_phys_read(v, gpa_of(10), buf, 8));

    struct guest_virt_cursor c;
    guest_virt_cursor_setup(&c, v, GUEST_CR0_PG, 0, 0);
    memset(buf, 0, sizeof(buf));
    CHECK_EQ(guest_virt_cursor_copy(&c, USER_VA, buf, 13), GUEST_ACCESS_OK);
    CHECK_STR(buf, "private data");
    guest_virt_cursor_setup(&c, v, GUEST_CR0_PG, 0, 0);
    CHECK(guest_virt_cursor_copy(&c, USER_VA + PAGE, buf, 8) != GUEST_ACCESS_OK);
    guest_virt_cursor_setup(&c, v, GUEST_CR0_PG, 0, 0);
    CHECK(guest_virt_cursor_copy(&c, USER_VA + 2 * PAGE, buf, 8) != GUEST_ACCESS_OK);
}
