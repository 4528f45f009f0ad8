/* Guest memory reads for exit handlers (see vmx/guest_mem.h). Every GPA
 * goes through the calling VCPU's own domain's EPT, and the host physical
 * address it maps to is reached through Vertigo's identity map (below 4
 * GiB): the same address for domain 0 (identity-mapped), the domain's own
 * RAM block for any other, which can so name nothing outside its RAM.
 * Only write-back pages are RAM: the EPT maps every hole and device range
 * uncacheable (vmx/vmx_domain.c), and a read there from root mode would
 * be a device-register read on the guest's say-so. */
#include "vmx/guest_mem.h"

#include "lib/cpu.h"
#include "vmm/guest/guest_pt.h"
#include "lib/mem.h"
#include "vmm/page_alloc.h"
#include "vmm/vcpu.h"
#include "vmx/vmx_ops.h"

#define HOST_IDENTITY_LIMIT 0x100000000ull
#define CR4_LA57 (1ull << 12)

/* Where the EPT sends gpa, if it is readable guest RAM: the access
 * outcome and, for GUEST_ACCESS_OK, the translation. */
static enum guest_access ram_translate(struct vcpu *v, uint64_t gpa, struct ept_translation *t)
{
    if (!ept_translate(&v->domain->vmx.ept, gpa, t) || !(t->perms & EPT_READ))
        return GUEST_ACCESS_UNMAPPED;
    if (t->type != EPT_MT_WB)
        return GUEST_ACCESS_NOT_RAM;
    return GUEST_ACCESS_OK;
}

static const void *host_pointer(struct vcpu *v, uint64_t gpa)
{
    struct ept_translation t;
    if (ram_translate(v, gpa, &t) != GUEST_ACCESS_OK || t.hpa >= HOST_IDENTITY_LIMIT)
        return NULL;
    return (const void *)t.hpa;
}

enum guest_access guest_phys_ram_page(struct vcpu *v, uint64_t gpa, void **host)
{
    struct ept_translation t;
    enum guest_access a = ram_translate(v, gpa, &t);
    if (a != GUEST_ACCESS_OK)
        return a;
    if (!(t.perms & EPT_WRITE) || t.hpa >= HOST_IDENTITY_LIMIT)
        return GUEST_ACCESS_UNMAPPED;
    *host = (void *)t.hpa;
    return GUEST_ACCESS_OK;
}

bool guest_phys_read(struct vcpu *v, uint64_t gpa, void *buf, size_t len)
{
    uint8_t *out = buf;
    while (len) {
        size_t chunk = PAGE_SIZE - (gpa & (PAGE_SIZE - 1));
        if (chunk > len)
            chunk = len;
        const void *src = host_pointer(v, gpa);
        if (!src)
            return false;
        memcpy(out, src, chunk);
        out += chunk;
        gpa += chunk;
        len -= chunk;
    }
    return true;
}

/* Vertigo's pointer (*host) to len bytes at gpa (within one 4 KiB page)
 * through the cursor's EPT leaf, walking the EPT when gpa lies outside it;
 * anything but GUEST_ACCESS_OK if that is not readable guest RAM. */
static enum guest_access cursor_phys(struct guest_virt_cursor *c, uint64_t gpa, size_t len,
                                     const uint8_t **host)
{
    if (c->leaf_size && gpa - c->leaf_gpa < c->leaf_size) {
        *host = (const uint8_t *)(c->leaf_host + (gpa - c->leaf_gpa));
        return GUEST_ACCESS_OK;
    }
    struct ept_translation t;
    enum guest_access r = ram_translate(c->v, gpa, &t);
    if (r != GUEST_ACCESS_OK)
        return r;
    uint64_t offset = gpa & (t.page_size - 1);
    if (t.hpa - offset + t.page_size <= HOST_IDENTITY_LIMIT) {
        c->leaf_gpa = gpa - offset;
        c->leaf_size = t.page_size;
        c->leaf_host = (uintptr_t)(t.hpa - offset);
    }
    if (t.hpa + len > HOST_IDENTITY_LIMIT)
        return GUEST_ACCESS_UNMAPPED;
    *host = (const uint8_t *)(uintptr_t)t.hpa;
    return GUEST_ACCESS_OK;
}

/* The guest page walk's reads of its paging-structure entries (always
 * aligned); with a translation cache, each is traced for it. */
static bool cursor_read64(void *ctx, uint64_t gpa, uint64_t *value)
{
    struct guest_virt_cursor *c = ctx;
    const uint8_t *p;
    if (gpa & (sizeof(*value) - 1)) {
        c->trace.count = GUEST_TLB_LEVELS + 1;      /* not traceable: not cached */
        return guest_phys_read(c->v, gpa, value, sizeof(*value));
    }
    if (cursor_phys(c, gpa, sizeof(*value), &p) != GUEST_ACCESS_OK)
        return false;
    __builtin_memcpy(value, p, sizeof(*value));     /* one aligned load */
    if (c->tlb)
        guest_tlb_trace_add(&c->trace, (const uint64_t *)(const void *)p, *value);
    return true;
}

void guest_virt_cursor_setup(struct guest_virt_cursor *c, struct vcpu *v, uint64_t cr0,
                             uint64_t cr3, uint64_t cr4)
{
    c->v = v;
    c->pg = (struct guest_paging){
        .cr3 = cr3,
        .la57 = (cr4 & CR4_LA57) != 0,
        .read64 = cursor_read64,
        .ctx = c,
    };
    c->paging = (cr0 & CR0_PG) != 0;
    c->user = false;
    c->page_host = NULL;
    c->leaf_size = 0;
    c->tlb = NULL;
}

void guest_virt_cursor_init(struct guest_virt_cursor *c, struct vcpu *v)
{
    guest_virt_cursor_setup(c, v, vmcs_read(VMCS_GUEST_CR0), vmcs_read(VMCS_GUEST_CR3),
                            vmcs_read(VMCS_GUEST_CR4));
}

/* Host address (*host) of the page at `page` from the tables, remembered
 * in the cursor and the translation cache. */
static __attribute__((noinline)) enum guest_access
cursor_walk_page(struct guest_virt_cursor *c, uint64_t page, const uint8_t **host)
{
    uint64_t gpa = page;
    enum guest_access r = c->paging ? guest_pt_walk(&c->pg, page, c->user, &gpa)
                                    : GUEST_ACCESS_OK;
    if (r == GUEST_ACCESS_OK)
        r = cursor_phys(c, gpa & ~(uint64_t)(PAGE_SIZE - 1), PAGE_SIZE, host);
    if (r != GUEST_ACCESS_OK)
        return r;
    c->page_gva = page;
    c->page_host = *host;
    if (c->tlb) {
        struct guest_tlb_key key = guest_virt_cursor_key(c, page);
        guest_tlb_fill(c->tlb, &key, &c->trace, *host);
    }
    return r;
}

/* Host address (*host) of the page holding gva, from the cursor's last
 * page, the translation cache or the tables; anything but
 * GUEST_ACCESS_OK if the page is not readable. */
static enum guest_access cursor_page(struct guest_virt_cursor *c, uint64_t gva,
                                     const uint8_t **host)
{
    uint64_t page = gva & ~(uint64_t)(PAGE_SIZE - 1);
    if (c->page_host && c->page_gva == page) {
        *host = c->page_host;
        return GUEST_ACCESS_OK;
    }
    if ((*host = guest_virt_cursor_cached(c, page)) != NULL) {
        c->page_gva = page;
        c->page_host = *host;
        return GUEST_ACCESS_OK;
    }
    return cursor_walk_page(c, page, host);
}

/* The epoch of the cache's context (the EPT's generation read before any
 * translation of this walk: a change during the walk leaves what the walk
 * cached unusable afterwards) and this walk's top-level table in the key;
 * the page and the rights go in at each lookup. Of CR3 only the table's
 * address counts: its low 12 bits (the PCID with CR4.PCIDE, else PWT and
 * PCD) tag or cache the processor's own TLB and never change a
 * translation (SDM Vol. 3A, 4.5 and 4.10.1), and Linux gives a process
 * another PCID from time to time: keyed with them, one address space
 * took several entries and missed after each change. */
void guest_virt_cursor_claim_tlb(struct guest_virt_cursor *c, struct guest_tlb *tlb)
{
    if (!c->paging)
        return;
    const struct ept *ept = &c->v->domain->vmx.ept;
    c->tlb = guest_tlb_claim(tlb, ept, __atomic_load_n(&ept->generation, __ATOMIC_ACQUIRE),
                             c->pg.la57);
    if (c->tlb)
        c->key = guest_tlb_key(c->tlb, 0, false, c->pg.cr3 & ~(uint64_t)(PAGE_SIZE - 1));
}

void guest_virt_cursor_release_tlb(struct guest_virt_cursor *c)
{
    if (c->tlb)
        guest_tlb_release(c->tlb);
    c->tlb = NULL;
}

const uint8_t *guest_virt_cursor_walk(struct guest_virt_cursor *c, uint64_t page)
{
    const uint8_t *host;
    return cursor_walk_page(c, page, &host) == GUEST_ACCESS_OK ? host : NULL;
}

/* Whole 8-byte words (a stack frame is two) by plain moves, the rest by
 * memcpy: a stack walk reads 16 bytes a frame. */
static void copy_chunk(uint8_t *out, const uint8_t *src, size_t len)
{
    if (len % sizeof(uint64_t)) {
        memcpy(out, src, len);
        return;
    }
    for (size_t i = 0; i < len; i += sizeof(uint64_t))
        __builtin_memcpy(out + i, src + i, sizeof(uint64_t));
}

enum guest_access guest_virt_cursor_copy(void *cursor, uint64_t gva, void *buf, size_t len)
{
    struct guest_virt_cursor *c = cursor;
    uint8_t *out = buf;
    while (len) {
        size_t offset = gva & (PAGE_SIZE - 1);
        size_t chunk = PAGE_SIZE - offset;
        if (chunk > len)
            chunk = len;
        const uint8_t *host;
        enum guest_access r = cursor_page(c, gva, &host);
        if (r != GUEST_ACCESS_OK)
            return r;
        copy_chunk(out, host + offset, chunk);
        out += chunk;
        gva += chunk;
        len -= chunk;
    }
    return GUEST_ACCESS_OK;
}

/* A stack walk reads a word or two at a time, nearly always from the
 * page it read last: those reads take the cached page's words directly. */
bool guest_virt_cursor_read(void *cursor, uint64_t gva, void *buf, size_t len)
{
    struct guest_virt_cursor *c = cursor;
    uint64_t offset = gva & (PAGE_SIZE - 1);
    if (c->page_host && (gva - offset) == c->page_gva && offset + len <= PAGE_SIZE &&
        (len == sizeof(uint64_t) || len == 2 * sizeof(uint64_t))) {
        const uint8_t *in = c->page_host + offset;
        __builtin_memcpy(buf, in, sizeof(uint64_t));
        if (len > sizeof(uint64_t))
            __builtin_memcpy((uint8_t *)buf + sizeof(uint64_t), in + sizeof(uint64_t),
                             sizeof(uint64_t));
        return true;
    }
    return guest_virt_cursor_copy(cursor, gva, buf, len) == GUEST_ACCESS_OK;
}

size_t guest_virt_cursor_fetch(struct guest_virt_cursor *c, uint64_t rip, uint8_t *buf,
                               size_t max)
{
    if (guest_virt_cursor_copy(c, rip, buf, max) == GUEST_ACCESS_OK)
        return max;
    size_t n = 0;
    while (n < max && guest_virt_cursor_copy(c, rip + n, buf + n, 1) == GUEST_ACCESS_OK)
        n++;
    return n;
}

size_t guest_virt_fetch(struct vcpu *v, uint64_t rip, uint8_t *buf, size_t max)
{
    return guest_virt_fetch_proved(v, rip, buf, max, NULL, NULL);
}

bool guest_virt_cursor_prove(const struct guest_virt_cursor *c, uint64_t page,
                             struct guest_page_proof *proof)
{
    if (!c->tlb)
        return false;
    struct guest_tlb_key key = guest_virt_cursor_key(c, page);
    const struct guest_tlb_entry *set = guest_tlb_set_of(c->tlb, &key);
    for (unsigned int w = 0; w < GUEST_TLB_WAYS; w++) {
        if (!guest_tlb_holds(&set[w], &key))
            continue;
        proof->page = set[w];
        proof->ept = c->tlb->ept;
        proof->ept_generation = c->tlb->ept_generation;
        proof->cr3 = c->key.cr3;
        proof->la57 = c->pg.la57;
        return true;
    }
    return false;
}

const uint8_t *guest_page_proof_check(const struct guest_page_proof *proof, const struct vcpu *v,
                                      uint64_t cr0, uint64_t cr3, uint64_t cr4)
{
    const struct ept *ept = &v->domain->vmx.ept;
    if (!(cr0 & CR0_PG) || proof->cr3 != (cr3 & ~(uint64_t)(PAGE_SIZE - 1)) ||
        proof->la57 != ((cr4 & CR4_LA57) != 0) || proof->ept != ept ||
        proof->ept_generation != __atomic_load_n(&ept->generation, __ATOMIC_ACQUIRE))
        return NULL;
    return guest_tlb_holds(&proof->page, &proof->page.key) ? proof->page.host : NULL;
}

size_t guest_virt_fetch_proved(struct vcpu *v, uint64_t rip, uint8_t *buf, size_t max,
                               struct guest_page_proof *proof, bool *proved)
{
    struct guest_virt_cursor c;
    guest_virt_cursor_init(&c, v);
    guest_virt_cursor_claim_tlb(&c, guest_tlb_fetch_of_cpu(v->cpu));
    size_t n = guest_virt_cursor_fetch(&c, rip, buf, max);
    if (proved)
        *proved = n && guest_virt_cursor_prove(&c, rip & GUEST_TLB_PAGE_MASK, proof);
    guest_virt_cursor_release_tlb(&c);
    return n;
}
