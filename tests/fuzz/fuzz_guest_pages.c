/* libFuzzer target for reading guest-virtual memory from the NMI path
 * through hostile page tables (vmm/guest/guest_pt.c), the EPT (vmx/ept.c), the
 * checked cursor (vmx/guest_mem.c) and the per-CPU translation cache kept
 * across samples (vmm/guest/guest_tlb.c): the page source the stack walks use.
 *
 * A guest of RAM_PAGES pages of real memory, between two inaccessible
 * guard pages, behind a real EPT; the input writes paging-structure
 * entries into it (present or not, user or supervisor, large pages,
 * pointing into RAM, past it, at the EPT's hole or anywhere), picks CR3,
 * the paging mode and the rights, and probes guest-virtual pages. Then it
 * edits entries, moves or unmaps guest pages in the EPT, or moves CR3,
 * and probes again.
 *
 * Checked at every probe: a page handed out is one of the guest's RAM
 * pages, whole (Vertigo never reaches its own memory: the guard pages
 * fault on a stray read); and the translation cache's answer -- kept
 * across probes and across inputs, as it is across samples -- is exactly
 * what a fresh walk of the tables gives (its staleness rule: a cached
 * translation is used only after re-reading what it depended on); and a
 * proof of a page's translation taken in an earlier round
 * (guest_virt_cursor_prove, as the decoded APIC stores keep one) that
 * guest_page_proof_check still accepts names the page a fresh walk
 * gives now. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz_input.h"
#include "tests/unit/host_ept.h"
#include "vmm/guest/guest_tlb.h"
#include "vmm/vcpu.h"
#include "vmx/ept.h"
#include "vmx/guest_mem.h"

#define PAGE        HOST_EPT_PAGE
#define RAM_PAGES   24u
#define HOLE_PAGE   20u             /* guest-physical page the EPT leaves unmapped */
#define POOL_PAGES  32u
#define CR0_PG      (1ull << 31)
#define CR4_LA57    (1ull << 12)
#define PROBES      8u

static uint8_t *ram;
static struct domain dom;
static struct guest_tlb tlb;        /* kept across probes and inputs */
static struct guest_page_proof proofs[PROBES];  /* each probed page's, from its last round */
static bool proved[PROBES];

static uint64_t gpa_of(unsigned int page)
{
    return (uint64_t)(uintptr_t)ram + page * PAGE;
}

/* The EPT as each input starts: RAM identity-mapped but for the hole. */
static void map_ram(void)
{
    if (ept_map(&dom.vmx.ept, gpa_of(0), gpa_of(0), RAM_PAGES * PAGE, EPT_RWX, EPT_MT_WB) ||
        ept_unmap(&dom.vmx.ept, gpa_of(HOLE_PAGE), PAGE))
        abort();
}

static void set_up(void)
{
    ram = host_ept_memory(RAM_PAGES, true);
    host_ept_domain(&dom, POOL_PAGES);
    map_ram();
}

/* A paging-structure entry: mostly one pointing at a RAM page with the
 * input's flag bits (present, writable, user, large page...), else one
 * pointing past RAM or anywhere, or raw. */
static uint64_t entry(struct fuzz_input *in)
{
    uint8_t kind = (uint8_t)fuzz_take(in, 1);
    uint64_t flags = fuzz_take(in, 2) & 0xfff;
    switch (kind % 6) {
    case 0: return fuzz_take(in, 8);
    case 1: return (gpa_of(0) + fuzz_take(in, 4) % (1ull << 34)) | flags;
    case 2: return gpa_of(RAM_PAGES) | flags;
    default: return gpa_of((unsigned int)fuzz_take(in, 1) % RAM_PAGES) | flags;
    }
}

/* Writes of entries into RAM pages at input-chosen slots. */
static void write_entries(struct fuzz_input *in, unsigned int count)
{
    for (unsigned int i = 0; i < count && in->left; i++) {
        unsigned int page = (unsigned int)fuzz_take(in, 1) % RAM_PAGES;
        unsigned int slot = (unsigned int)fuzz_take(in, 2) % 512;
        uint64_t e = entry(in);
        memcpy(ram + page * PAGE + slot * 8, &e, sizeof(e));
    }
}

/* A guest-virtual page whose table indices come from the input (so the
 * walk meets the entries written), sign-extended as canonical addresses
 * are, or raw. */
static uint64_t virtual_page(struct fuzz_input *in, bool la57)
{
    uint8_t kind = (uint8_t)fuzz_take(in, 1);
    if (kind % 8 == 0)
        return fuzz_take(in, 8) & ~(PAGE - 1);
    uint64_t va = 0;
    for (unsigned int level = 0; level < (la57 ? 5u : 4u); level++)
        va |= (fuzz_take(in, 2) % 512) << (12 + 9 * level);
    unsigned int top = la57 ? 56 : 47;
    if (va >> top & 1)
        va |= ~0ull << top;
    return va;
}

/* The page source's answer for page: fresh (no cache) or through the
 * cache, then (proof not NULL) the proof of its translation kept in
 * *proof, *has_proof saying whether there is one. A page handed out must
 * be a whole RAM page. */
static const uint8_t *probe(uint64_t page, uint64_t cr3, bool la57, bool user, bool cached,
                            struct guest_page_proof *proof, bool *has_proof)
{
    struct guest_virt_cursor c;
    guest_virt_cursor_setup(&c, &dom.vcpus[0], CR0_PG, cr3, la57 ? CR4_LA57 : 0);
    c.user = user;
    if (cached)
        guest_virt_cursor_claim_tlb(&c, &tlb);
    const uint8_t *host = guest_virt_cursor_page(&c, page);
    if (proof)
        *has_proof = host && guest_virt_cursor_prove(&c, page, proof);
    guest_virt_cursor_release_tlb(&c);
    if (host) {
        uintptr_t at = (uintptr_t)host - (uintptr_t)ram;
        if ((uintptr_t)host < (uintptr_t)ram || at >= RAM_PAGES * PAGE || at % PAGE)
            abort();                    /* not one of the guest's pages */
        volatile uint8_t sink = host[0] ^ host[PAGE - 1];   /* readable, whole */
        (void)sink;
    }
    return host;
}

static void probe_all(const uint64_t *pages, uint64_t cr3, bool la57, bool user)
{
    for (unsigned int i = 0; i < PROBES; i++) {
        const uint8_t *fresh = probe(pages[i], cr3, la57, user, false, NULL, NULL);
        if (proved[i]) {
            const uint8_t *held = guest_page_proof_check(&proofs[i], &dom.vcpus[0], CR0_PG, cr3,
                                                         la57 ? CR4_LA57 : 0);
            if (held && held != fresh)
                abort();                /* a proof held where the tables now say otherwise */
        }
        if (probe(pages[i], cr3, la57, user, true, &proofs[i], &proved[i]) != fresh)
            abort();                    /* the cache answered otherwise than the tables */
        if (proved[i] && proofs[i].page.host != fresh)
            abort();                    /* the proof names another page than the walk's */
    }
}

/* Between the rounds: entries edited, a RAM page moved onto another or
 * unmapped in the EPT, or CR3 moved. */
static void change(struct fuzz_input *in, uint64_t *cr3)
{
    uint8_t what = (uint8_t)fuzz_take(in, 1);
    unsigned int page = (unsigned int)fuzz_take(in, 1) % RAM_PAGES;
    switch (what % 4) {
    case 0:
        if (ept_map(&dom.vmx.ept, gpa_of(page), gpa_of((page + 1 + what / 4) % RAM_PAGES), PAGE,
                    EPT_RWX, EPT_MT_WB))
            abort();
        break;
    case 1:
        if (ept_unmap(&dom.vmx.ept, gpa_of(page), PAGE))
            abort();
        break;
    case 2:
        *cr3 = gpa_of(page) | (fuzz_take(in, 2) & 0xfff);
        break;
    default:
        write_entries(in, 1 + what / 4 % 8);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!ram)
        set_up();
    struct fuzz_input in = { data, size };
    memset(proved, 0, sizeof(proved));
    memset(ram, 0, RAM_PAGES * PAGE);
    map_ram();
    uint8_t flags = (uint8_t)fuzz_take(&in, 1);
    bool la57 = flags & 1, user = flags & 2;
    uint64_t cr3 = gpa_of((unsigned int)fuzz_take(&in, 1) % RAM_PAGES);
    cr3 |= fuzz_take(&in, 2) & 0xfff;       /* PCID, PWT, PCD: no part in a translation */
    write_entries(&in, (unsigned int)fuzz_take(&in, 1));
    uint64_t pages[PROBES];
    for (unsigned int i = 0; i < PROBES; i++)
        pages[i] = virtual_page(&in, la57);
    probe_all(pages, cr3, la57, user);
    for (unsigned int round = 0; round < 3 && in.left; round++) {
        change(&in, &cr3);
        probe_all(pages, cr3, la57, user);
    }
    return 0;
}
