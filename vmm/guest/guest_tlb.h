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
 * The EPT and paging mode are a whole cache's context, not each entry's:
 * the cache stands for one (EPT, EPT generation, LA57) at a time, named by
 * a small epoch number that every entry's tag carries. A claim for
 * another context (another domain's EPT on this CPU, or the EPT changed)
 * moves to a new epoch, so every entry made under the old one stops
 * matching without being touched; when the epoch number wraps, the cache
 * is emptied, so no epoch number ever names two contexts at once. A
 * lookup so compares two words (the tag: page, epoch, rights; and CR3)
 * and re-reads the recorded paging-structure entries -- through
 * Vertigo's addresses of them, which the unchanged EPT generation proves
 * are still the domain's RAM.
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
#define GUEST_TLB_SETS     64u      /* see guest_tlb_set */
#define GUEST_TLB_ENTRIES  (GUEST_TLB_WAYS * GUEST_TLB_SETS)
#define GUEST_TLB_LEVELS   5u       /* paging-structure entries of a walk, at most */
#define GUEST_TLB_EPOCHS   2048u    /* epoch numbers 1 .. 2047 (tag bits 11:1) */
#define GUEST_TLB_USER     1u       /* tag bit 0: read with user-mode rights */

/* What a cached page walk depends on besides the paging-structure
 * entries and the cache's context. An entry's tag 0 is empty (no epoch
 * is 0). */
struct guest_tlb_key {
    uint64_t tag;               /* guest-virtual page | epoch << 1 | GUEST_TLB_USER if user */
    uint64_t cr3;               /* the top-level table's address (CR3's bits 51:12) */
};

/* The paging-structure entries one walk read: Vertigo's address and the
 * value of each, outermost first. `count` above GUEST_TLB_LEVELS: the
 * walk read something it could not record, and is not cached. */
struct guest_tlb_trace {
    unsigned int count;
    const uint64_t *entry[GUEST_TLB_LEVELS];
    uint64_t value[GUEST_TLB_LEVELS];
};

/* 128 bytes: a set's address is a shift of its number. */
struct __attribute__((aligned(128))) guest_tlb_entry {
    struct guest_tlb_key key;
    const uint8_t *host;        /* Vertigo's address of the page */
    struct guest_tlb_trace trace;
};

struct guest_tlb {
    uint32_t busy;              /* a walk holds it */
    uint32_t epoch;             /* the context's epoch number; 0: never claimed */
    const void *ept;            /* the context: the domain's EPT ... */
    uint64_t ept_generation;    /* ... as it stood ... */
    bool la57;                  /* ... and the paging mode */
    struct guest_tlb_entry e[GUEST_TLB_ENTRIES];
    uint64_t hits, misses;      /* for tests and benchmarks */
};

/* The set a key may sit in. Kernel stacks are 16 KiB aligned and walked
 * near their top, so their page numbers' two low bits alone would leave
 * three quarters of the sets unused; folding in higher bits of the page
 * and the CR3 spreads them,
 * and two ways keep a kernel stack and the user stack a walk crosses into
 * even when they meet in one set. Any function would be correct (a
 * lookup compares the whole key): this one only makes hits likelier. */
static inline unsigned int guest_tlb_set(const struct guest_tlb_key *key)
{
    uint64_t pfn = key->tag >> 12;
    return (unsigned int)((pfn ^ (pfn >> 6) ^ (key->cr3 >> 12)) % GUEST_TLB_SETS);
}

static inline struct guest_tlb_entry *guest_tlb_set_of(struct guest_tlb *tlb,
                                                       const struct guest_tlb_key *key)
{
    return &tlb->e[guest_tlb_set(key) * GUEST_TLB_WAYS];
}

/* Moves tlb to a new epoch for the context (guest_tlb_claim's rare path). */
void guest_tlb_new_epoch(struct guest_tlb *tlb, const void *ept, uint64_t ept_generation,
                         bool la57);

/* The cache for one walk in the context (the domain's EPT `ept` at
 * generation `ept_generation`, read before any translation of the walk;
 * LA57), or NULL if a walk interrupted on this CPU holds it. Give it
 * back with guest_tlb_release. Inline: every sample claims it. */
static inline struct guest_tlb *guest_tlb_claim(struct guest_tlb *tlb, const void *ept,
                                                uint64_t ept_generation, bool la57)
{
    if (__atomic_exchange_n(&tlb->busy, 1u, __ATOMIC_ACQUIRE))
        return NULL;
    if (__builtin_expect(!tlb->epoch || tlb->ept != ept || tlb->ept_generation != ept_generation ||
                         tlb->la57 != la57, 0))
        guest_tlb_new_epoch(tlb, ept, ept_generation, la57);
    return tlb;
}

static inline void guest_tlb_release(struct guest_tlb *tlb)
{
    __atomic_store_n(&tlb->busy, 0u, __ATOMIC_RELEASE);
}

#define GUEST_TLB_PAGE_MASK (~(uint64_t)0xfff)  /* a tag's page bits: nothing else may
                                                 reach the epoch's */

/* The key of the guest-virtual page holding `page` read with user-mode
 * rights (`user`) or not under cr3, in claimed tlb's context. */
static inline struct guest_tlb_key guest_tlb_key(const struct guest_tlb *tlb, uint64_t page,
                                                 bool user, uint64_t cr3)
{
    return (struct guest_tlb_key){ .tag = (page & GUEST_TLB_PAGE_MASK) |
                                          (uint64_t)tlb->epoch << 1 |
                                          (user ? GUEST_TLB_USER : 0),
                                   .cr3 = cr3 };
}

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
    if ((e->key.tag ^ key->tag) | (e->key.cr3 ^ key->cr3))
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

/* The cache of CPU cpu's sample stack walks: one per CPU (a walk and the
 * guest it reads stand on one CPU; the cache's context names the domain's
 * EPT), kept across samples. cpu is taken modulo MAX_CPUS. */
struct guest_tlb *guest_tlb_of_cpu(unsigned int cpu);

/* CPU cpu's cache of the pages exit handlers fetch the guest's
 * instruction from to emulate it (an MMIO access: the guest's APIC
 * writes, mostly a few accessors in its kernel), apart from the stack
 * walks' so that neither evicts the other's pages nor counts in the
 * other's hits. cpu is taken modulo MAX_CPUS. */
struct guest_tlb *guest_tlb_fetch_of_cpu(unsigned int cpu);

/* How often CPU cpu's stack walks found a page's translation in its cache
 * and how often they walked the guest's page tables, since boot. */
void guest_tlb_counts(unsigned int cpu, uint64_t *hits, uint64_t *misses);

#endif
