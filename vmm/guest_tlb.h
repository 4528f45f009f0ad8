/* A small per-CPU cache of guest page translations for the NMI path's
 * stack walks, kept across samples: a kernel stack walk's pages (and the
 * user stack it crosses into) are nearly always those of a recent sample,
 * and walking the guest's page tables (each level read through the EPT)
 * costs several times the rest of the walk.
 *
 * Staleness rule: an entry is only ever used after proving it still
 * holds. It remembers the inputs of the page walk that made it -- CR3,
 * the paging mode, the access rights, the EPT and its generation (bumped on
 * every EPT change, so Vertigo's addresses of guest memory are still
 * right) and, for every paging-structure entry the walk read, Vertigo's
 * address of that entry and the value it held. A lookup compares them
 * all, re-reading each paging-structure entry from guest memory: if the
 * guest changed CR3, edited any level of the tables on the way (even
 * without flushing its TLB) or Vertigo changed the EPT, the lookup
 * misses and the caller walks the tables again. The translation is a
 * function of exactly those inputs, so a hit returns what a fresh walk
 * would (only the accessed and dirty bits, which the processor sets and
 * which play no part in a read's translation, are ignored; a walk whose
 * reads could not all be recorded is not cached). A guest
 * editing its tables on another CPU during the lookup is the race a
 * fresh walk has too.
 *
 * One walk at a time: guest_tlb_claim refuses while the cache is in use,
 * so a sample taken in an NMI that interrupted another sample's walk on
 * the same CPU walks without it. Portable. */
#ifndef VMM_GUEST_TLB_H
#define VMM_GUEST_TLB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GUEST_TLB_WAYS     2u       /* entries per set, most recently filled first */
#define GUEST_TLB_SETS     32u      /* see guest_tlb_set */
#define GUEST_TLB_ENTRIES  (GUEST_TLB_WAYS * GUEST_TLB_SETS)
#define GUEST_TLB_LEVELS   5u       /* paging-structure entries of a walk, at most */

/* What a page walk depends on besides the paging-structure entries. */
struct guest_tlb_key {
    uint64_t page;              /* guest-virtual, 4 KiB aligned */
    uint64_t cr3;
    const void *ept;            /* the domain's EPT (a cache serves one CPU, any domain) ... */
    uint64_t ept_generation;    /* ... as it stood */
    bool la57, user;
};

/* The paging-structure entries one walk read: Vertigo's address and the
 * value of each, outermost first. `count` above GUEST_TLB_LEVELS: the
 * walk read something it could not record, and is not cached. */
struct guest_tlb_trace {
    unsigned int count;
    const uint64_t *entry[GUEST_TLB_LEVELS];
    uint64_t value[GUEST_TLB_LEVELS];
};

struct guest_tlb_entry {
    struct guest_tlb_key key;
    struct guest_tlb_trace trace;
    const uint8_t *host;        /* Vertigo's address of the page; NULL: empty */
};

struct guest_tlb {
    uint32_t busy;              /* a walk holds it */
    struct guest_tlb_entry e[GUEST_TLB_ENTRIES];
    uint64_t hits, misses;      /* for tests and benchmarks */
};

/* The set a key may sit in. Kernel stacks are 16 KiB aligned and walked
 * near their top, so their page numbers alone would share a quarter of
 * the sets; folding in higher bits of the page and the CR3 spreads them,
 * and two ways keep a kernel stack and the user stack a walk crosses into
 * even when they meet in one set. Any function would be correct (a
 * lookup compares the whole key): this one only makes hits likelier. */
static inline unsigned int guest_tlb_set(const struct guest_tlb_key *key)
{
    uint64_t pfn = key->page >> 12;
    return (unsigned int)((pfn ^ (pfn >> 2) ^ (pfn >> 8) ^ (key->cr3 >> 12)) % GUEST_TLB_SETS);
}

static inline struct guest_tlb_entry *guest_tlb_set_of(struct guest_tlb *tlb,
                                                       const struct guest_tlb_key *key)
{
    return &tlb->e[guest_tlb_set(key) * GUEST_TLB_WAYS];
}

/* The cache for one walk, or NULL if a walk interrupted on this CPU
 * holds it. Give it back with guest_tlb_release. */
struct guest_tlb *guest_tlb_claim(struct guest_tlb *tlb);
void guest_tlb_release(struct guest_tlb *tlb);

/* Records one paging-structure entry the walk read (at Vertigo's address
 * `entry`, holding `value`). */
static inline void guest_tlb_trace_add(struct guest_tlb_trace *t, const uint64_t *entry,
                                       uint64_t value)
{
    if (t->count < GUEST_TLB_LEVELS) {
        t->entry[t->count] = entry;
        t->value[t->count] = value;
    }
    t->count++;
}

#define GUEST_TLB_PTE_IGNORED ((1ull << 5) | (1ull << 6))  /* accessed, dirty */

/* True if entry e is for key and still holds (see the staleness rule).
 * Branch-free past the key: every recorded paging-structure entry is
 * re-read and compared (guest_tlb_fill pads a trace shorter than
 * GUEST_TLB_LEVELS with copies of its first entry, so the loop has a
 * fixed count and unrolls). */
static inline bool guest_tlb_holds(const struct guest_tlb_entry *e,
                                   const struct guest_tlb_key *key)
{
    if (!e->host || ((e->key.page ^ key->page) | (e->key.cr3 ^ key->cr3) |
                     (e->key.ept_generation ^ key->ept_generation)) ||
        e->key.ept != key->ept || e->key.la57 != key->la57 || e->key.user != key->user)
        return false;
    uint64_t changed = 0;
    _Static_assert(GUEST_TLB_LEVELS == 5, "the unroll count below");
#pragma GCC unroll 5
    for (unsigned int i = 0; i < GUEST_TLB_LEVELS; i++)
        changed |= __atomic_load_n(e->trace.entry[i], __ATOMIC_RELAXED) ^ e->trace.value[i];
    return !(changed & ~GUEST_TLB_PTE_IGNORED);
}

/* Vertigo's address of the page of key, if an entry for it still holds
 * (see the staleness rule above); NULL otherwise. Inline: it is the
 * stack walk's way to each new page. */
static inline const uint8_t *guest_tlb_lookup(struct guest_tlb *tlb,
                                              const struct guest_tlb_key *key)
{
    const struct guest_tlb_entry *set = guest_tlb_set_of(tlb, key);
    for (unsigned int w = 0; w < GUEST_TLB_WAYS; w++) {
        if (guest_tlb_holds(&set[w], key)) {
            tlb->hits++;
            return set[w].host;
        }
    }
    tlb->misses++;
    return NULL;
}

/* Remembers a successful walk's result `host` for key, with its trace. */
void guest_tlb_fill(struct guest_tlb *tlb, const struct guest_tlb_key *key,
                    const struct guest_tlb_trace *trace, const uint8_t *host);

/* Forgets every entry. */
void guest_tlb_flush(struct guest_tlb *tlb);

#endif
