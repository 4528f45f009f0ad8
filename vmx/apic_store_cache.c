/* The guest's APIC stores, decoded once (see vmx/apic_store_cache.h). */
#include "vmx/apic_store_cache.h"

#include "lib/mem.h"
#include "lib/smp.h"
#include "vmm/page_alloc.h"
#include "vmm/vcpu.h"

/* Linux's LVTPC unmask, self-IPI and EOI, each in the address spaces
 * (CR3s) the guest's PMIs interrupt most. */
#define STORES_PER_VCPU 8u
#define WINDOW 16u              /* bytes compared: every instruction is at most 15 */

struct apic_store {
    struct guest_page_proof proof;
    uint64_t rip;
    uint8_t bytes[WINDOW];
    struct mmio_store st;
    bool valid;
};

/* Per VCPU (index: VCPU id; domain 0 only, whose VCPUs never migrate). */
static struct apic_stores {
    struct apic_store s[STORES_PER_VCPU];
    unsigned int next;          /* the least recently remembered */
} stores[MAX_CPUS];

static struct apic_stores *stores_of(const struct vcpu *v)
{
    return &stores[v->id % MAX_CPUS];
}

/* The first `length` bytes at host are the remembered ones (length <= 15:
 * two 8-byte compares, the window inside the page by apic_store_cache_add). */
static bool same_bytes(const uint8_t *host, const uint8_t *bytes, unsigned int length)
{
    uint64_t a[2], b[2];
    memcpy(a, host, WINDOW);
    memcpy(b, bytes, WINDOW);
    uint64_t low = length >= 8 ? ~0ull : (1ull << (8 * length)) - 1;
    uint64_t high = length > 8 ? (1ull << (8 * (length - 8))) - 1 : 0;
    return !(((a[0] ^ b[0]) & low) | ((a[1] ^ b[1]) & high));
}

bool apic_store_cache_find(const struct vcpu *v, uint64_t rip, uint64_t cr0, uint64_t cr3,
                           uint64_t cr4, struct mmio_store *st)
{
    const struct apic_stores *set = stores_of(v);
    uint64_t root = cr3 & ~(uint64_t)(PAGE_SIZE - 1);
    for (unsigned int i = 0; i < STORES_PER_VCPU; i++) {
        const struct apic_store *s = &set->s[i];
        if (!s->valid || s->rip != rip || s->proof.cr3 != root)
            continue;
        const uint8_t *page = guest_page_proof_check(&s->proof, v, cr0, cr3, cr4);
        if (!page || !same_bytes(page + (rip & (PAGE_SIZE - 1)), s->bytes, s->st.length))
            return false;       /* stale: apic_store_cache_add replaces it */
        *st = s->st;
        return true;
    }
    return false;
}

/* The entry to fill for rip under the proof's CR3: its own if
 * remembered (stale), else the least recently filled. */
static struct apic_store *slot_for(struct apic_stores *set, uint64_t rip, uint64_t root)
{
    for (unsigned int i = 0; i < STORES_PER_VCPU; i++)
        if (set->s[i].valid && set->s[i].rip == rip && set->s[i].proof.cr3 == root)
            return &set->s[i];
    struct apic_store *s = &set->s[set->next];
    set->next = (set->next + 1) % STORES_PER_VCPU;
    return s;
}

void apic_store_cache_add(const struct vcpu *v, uint64_t rip, const struct guest_page_proof *proof,
                          const uint8_t *bytes, const struct mmio_store *st)
{
    if ((rip & (PAGE_SIZE - 1)) + WINDOW > PAGE_SIZE || st->length >= WINDOW)
        return;
    struct apic_store *s = slot_for(stores_of(v), rip, proof->cr3);
    s->proof = *proof;
    s->rip = rip;
    memset(s->bytes, 0, WINDOW);
    memcpy(s->bytes, bytes, st->length);
    s->st = *st;
    s->valid = true;
}
