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

void guest_tlb_fill(struct guest_tlb *tlb, const struct guest_tlb_key *key,
                    const struct guest_tlb_trace *trace, const uint8_t *host)
{
    struct guest_tlb_entry *e = &tlb->e[GUEST_TLB_SLOT(key->page)];
    if (trace->count > GUEST_TLB_LEVELS || !trace->count) {
        e->host = NULL;                     /* unrecorded: never cached */
        return;
    }
    *e = (struct guest_tlb_entry){ .key = *key, .trace = *trace, .host = host };
}

void guest_tlb_flush(struct guest_tlb *tlb)
{
    for (unsigned int i = 0; i < GUEST_TLB_ENTRIES; i++)
        tlb->e[i].host = NULL;
}
