/* Reading guest memory from exit handlers: guest-physical reads checked
 * against the domain's EPT (never Vertigo's memory, never device memory:
 * only pages the EPT maps readable and write-back, which is how it maps
 * guest RAM), and guest-virtual reads through the guest's current page
 * tables, with the processor's canonical-address and user/supervisor
 * checks (vmm/guest/guest_pt.h). */
#ifndef VMX_GUEST_MEM_H
#define VMX_GUEST_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/guest/guest_pt.h"
#include "vmm/guest/guest_tlb.h"

struct vcpu;

/* Many small guest-virtual reads while the guest stands still (one stack
 * walk in an exit or NMI handler): the paging registers are read once, the
 * host address of the last page read is kept, and so is the last EPT leaf
 * the guest's page tables were read through, so reads within one page walk
 * the guest's tables once and the EPT's tables rarely. Valid until the next VM
 * entry (the guest may change its tables or CR3 once it runs). A cursor
 * given a translation cache (guest_virt_cursor_claim_tlb) also looks pages
 * up there before walking, and remembers its walks there: the cache
 * proves an entry still holds before each use (vmm/guest/guest_tlb.h). */
struct guest_virt_cursor {
    struct vcpu *v;
    struct guest_paging pg;
    bool paging;                /* CR0.PG: else guest-virtual = guest-physical */
    bool user;                  /* read with user-mode access rights (U/S) */
    uint64_t page_gva;          /* page that page_host maps */
    const uint8_t *page_host;   /* NULL: nothing cached */
    uint64_t leaf_gpa;          /* last readable EPT leaf (4K, 2M or 1G) ... */
    uint64_t leaf_size;         /* ... its size, 0: nothing cached ... */
    uintptr_t leaf_host;        /* ... and Vertigo's address of its start */
    struct guest_tlb *tlb;      /* NULL: none */
    struct guest_tlb_key key;   /* tlb's key for this cursor, the page and rights left 0 */
    struct guest_tlb_trace trace;   /* the paging-structure entries of the walk under way */
};

/* A fresh cursor for v's guest with these paging registers, reading with
 * supervisor rights (guest_virt_cursor_init takes them from the VMCS). */
void guest_virt_cursor_setup(struct guest_virt_cursor *c, struct vcpu *v, uint64_t cr0,
                             uint64_t cr3, uint64_t cr4);

/* Reads CR0, CR3 and CR4 of the current VMCS (v's) into a fresh cursor
 * that reads with supervisor rights; set c->user afterwards to read as
 * guest user mode does (a hypercall from CPL 3). */
void guest_virt_cursor_init(struct guest_virt_cursor *c, struct vcpu *v);

/* Lets cursor c (set up, paging on) look pages up in and add them to the
 * translation cache tlb for this walk, unless a walk interrupted on this
 * CPU holds it (then c walks without). Give it back with
 * guest_virt_cursor_release_tlb before the guest runs again. */
void guest_virt_cursor_claim_tlb(struct guest_virt_cursor *c, struct guest_tlb *tlb);
void guest_virt_cursor_release_tlb(struct guest_virt_cursor *c);

/* The translation cache's key of the page at `page` for cursor c (c->tlb
 * claimed): the claim's epoch and CR3, the page (masked: an offset in it
 * must never reach the epoch's bits of the tag) and the rights. */
static inline struct guest_tlb_key guest_virt_cursor_key(const struct guest_virt_cursor *c,
                                                         uint64_t page)
{
    return (struct guest_tlb_key){ .tag = c->key.tag | (page & GUEST_TLB_PAGE_MASK) |
                                          (c->user ? GUEST_TLB_USER : 0),
                                   .cr3 = c->key.cr3 };
}

/* Vertigo's address of the page at page-aligned `page` if cursor c has
 * claimed a translation cache and an entry there still holds for it
 * (vmm/guest/guest_tlb.h: proven at each lookup), else NULL (the trace then
 * starts empty for the walk of the tables that follows). Inline: it is
 * the stack walk's way to each new page. */
static inline __attribute__((always_inline)) const uint8_t *
guest_virt_cursor_cached(struct guest_virt_cursor *c, uint64_t page)
{
    if (!c->tlb)
        return NULL;
    struct guest_tlb_key key = guest_virt_cursor_key(c, page);
    const uint8_t *host = guest_tlb_lookup(c->tlb, &key);
    if (!host)
        c->trace.count = 0;
    return host;
}

/* Vertigo's address of the readable page at page-aligned `page` through
 * the guest's page tables (remembered in the cursor and its translation
 * cache), or NULL: guest_virt_cursor_page's slow path, after a cache
 * miss (or with none). */
const uint8_t *guest_virt_cursor_walk(struct guest_virt_cursor *c, uint64_t page);

/* Vertigo's address of the readable 4 KiB guest-virtual page at
 * page-aligned `page` through cursor c, or NULL: a guest_page_fn
 * (vmm/guest/guest_reader.h) with ctx = the cursor, for stack walks. The
 * reader asks only for pages other than its window, so the cursor's last
 * page is not looked at. Inline: a walk's first page is looked up by a
 * direct call, with the cache's hit path in line. */
static inline const uint8_t *guest_virt_cursor_page(void *cursor, uint64_t page)
{
    struct guest_virt_cursor *c = cursor;
    const uint8_t *host = guest_virt_cursor_cached(c, page);
    return host ? host : guest_virt_cursor_walk(c, page);
}

/* Copies len bytes from guest-virtual gva through cursor c. Returns
 * GUEST_ACCESS_OK, or why the first unreadable byte is not readable
 * (vmm/guest/guest_pt.h: unmapped, non-canonical, supervisor-only for a user
 * cursor, or not RAM); buf may then hold a part of the bytes. Matches
 * guest_copy_fn (vmm/hypercall.h) with ctx = the cursor. */
enum guest_access guest_virt_cursor_copy(void *cursor, uint64_t gva, void *buf, size_t len);

/* guest_virt_cursor_copy as a bool: true if every byte was copied.
 * Matches guest_read_fn with ctx = the cursor. */
bool guest_virt_cursor_read(void *cursor, uint64_t gva, void *buf, size_t len);

/* Copies len bytes from guest-physical gpa; false if any byte is not
 * guest RAM. */
bool guest_phys_read(struct vcpu *v, uint64_t gpa, void *buf, size_t len);

/* Vertigo's pointer (*host) to the 4 KiB page of guest RAM at page-aligned
 * gpa, for Vertigo to write: GUEST_ACCESS_OK, GUEST_ACCESS_NOT_RAM for
 * device memory, GUEST_ACCESS_UNMAPPED for a page the EPT does not map
 * readable and writable for the guest (Vertigo's own memory, holes). */
enum guest_access guest_phys_ram_page(struct vcpu *v, uint64_t gpa, void **host);

/* The bytes of the instruction at guest-virtual `rip` through cursor c:
 * all `max` when they are mapped, else as many as are (an instruction at
 * the end of the last mapped page). Returns how many were read. */
size_t guest_virt_cursor_fetch(struct guest_virt_cursor *c, uint64_t rip, uint8_t *buf,
                               size_t max);

/* guest_virt_cursor_fetch for v's guest as it stands at this exit, its
 * pages looked up in this CPU's fetch cache (guest_tlb_fetch_of_cpu),
 * which proves each hit still holds: an exit that emulates an access
 * fetches the same few instructions again and again, and walks the
 * guest's tables (every level through the EPT) only on a miss. */
size_t guest_virt_fetch(struct vcpu *v, uint64_t rip, uint8_t *buf, size_t max);

/* The proof that a guest-virtual page still translates as it did when a
 * cursor read it, kept across VM entries by what remembers something it
 * read there (vmx/apic_store_cache.h): the translation cache's entry for
 * the page, copied (the paging-structure entries the walk read, with
 * their values, and Vertigo's address of the page), and the context the
 * cache stood for then (the domain's EPT and its generation, CR3, LA57).
 * It holds exactly when a lookup of the cache would. */
struct guest_page_proof {
    struct guest_tlb_entry page;
    const void *ept;
    uint64_t ept_generation;
    uint64_t cr3;               /* CR3's bits 51:12, as the cache's keys */
    bool la57;
};

/* After cursor c (its translation cache claimed) read the page at
 * page-aligned `page`: the proof of its translation; false if the cache
 * holds none for it (the walk could not be recorded). */
bool guest_virt_cursor_prove(const struct guest_virt_cursor *c, uint64_t page,
                             struct guest_page_proof *proof);

/* Vertigo's address of proof's page if it still holds for v's guest with
 * these paging registers (paging on, the same CR3 and LA57, the domain's
 * EPT unchanged, every paging-structure entry the walk read holding what
 * it held: vmm/guest/guest_tlb.h's staleness rule), else NULL. */
const uint8_t *guest_page_proof_check(const struct guest_page_proof *proof, const struct vcpu *v,
                                      uint64_t cr0, uint64_t cr3, uint64_t cr4);

/* guest_virt_fetch, and in *proof the proof of the page of the
 * instruction's first byte; *proved false if there is none (proved NULL:
 * no proof asked for, guest_virt_fetch). */
size_t guest_virt_fetch_proved(struct vcpu *v, uint64_t rip, uint8_t *buf, size_t max,
                               struct guest_page_proof *proof, bool *proved);

#endif
