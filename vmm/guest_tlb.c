/* The NMI path's cache of guest page translations (see vmm/guest_tlb.h). */
#include "vmm/guest_tlb.h"

struct guest_tlb *guest_tlb_claim(struct guest_tlb *tlb)
{
    if (__atomic_exchange_n(&tlb->busy, 1u, __ATOMIC_ACQUIRE))
        return NULL;
    return tlb;
}

void guest_tlb_release(struct guest_tlb *tlb)
{
    __atomic_store_n(&tlb->busy, 0u, __ATOMIC_RELEASE);
}

static bool same_key(const struct guest_tlb_key *a, const struct guest_tlb_key *b)
{
    return a->page == b->page && a->cr3 == b->cr3 && a->ept == b->ept &&
           a->ept_generation == b->ept_generation && a->la57 == b->la57 && a->user == b->user;
}

/* The new entry goes first in its set; the others move down one way, the
 * last one out, unless one of them is for the same key (stale: the walk
 * did not use it), which the new one replaces. A walk that could not be
 * recorded only drops such a stale entry. */
void guest_tlb_fill(struct guest_tlb *tlb, const struct guest_tlb_key *key,
                    const struct guest_tlb_trace *trace, const uint8_t *host)
{
    struct guest_tlb_entry *set = guest_tlb_set_of(tlb, key);
    unsigned int w = 0;
    while (w < GUEST_TLB_WAYS - 1 && !(set[w].host && same_key(&set[w].key, key)))
        w++;
    if (trace->count > GUEST_TLB_LEVELS || !trace->count) {
        if (set[w].host && same_key(&set[w].key, key))
            set[w].host = NULL;             /* unrecorded: never cached */
        return;
    }
    for (; w > 0; w--)
        set[w] = set[w - 1];
    set[0] = (struct guest_tlb_entry){ .key = *key, .trace = *trace, .host = host };
    for (unsigned int i = trace->count; i < GUEST_TLB_LEVELS; i++) {
        set[0].trace.entry[i] = trace->entry[0];    /* padding: re-read, always equal */
        set[0].trace.value[i] = trace->value[0];
    }
}

void guest_tlb_flush(struct guest_tlb *tlb)
{
    for (unsigned int i = 0; i < GUEST_TLB_ENTRIES; i++)
        tlb->e[i].host = NULL;
}
