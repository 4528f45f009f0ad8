/* The NMI path's cache of guest page translations (see vmm/guest/guest_tlb.h). */
#include "vmm/guest/guest_tlb.h"

#include "lib/smp.h"

static struct guest_tlb stack_tlb[MAX_CPUS];
static struct guest_tlb fetch_tlb[MAX_CPUS];

/* Epoch 1 comes first and after each wrap, with the cache emptied: an
 * entry left from the last time a number was used can never match. */
void guest_tlb_new_epoch(struct guest_tlb *tlb, const void *ept, uint64_t ept_generation,
                         bool la57)
{
    tlb->epoch = tlb->epoch % (GUEST_TLB_EPOCHS - 1) + 1;
    if (tlb->epoch == 1)
        guest_tlb_flush(tlb);
    tlb->ept = ept;
    tlb->ept_generation = ept_generation;
    tlb->la57 = la57;
}

static bool same_key(const struct guest_tlb_key *a, const struct guest_tlb_key *b)
{
    return a->tag == b->tag && a->cr3 == b->cr3;
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
    while (w < GUEST_TLB_WAYS - 1 && !same_key(&set[w].key, key))
        w++;
    if (trace->count > GUEST_TLB_LEVELS || !trace->count) {
        if (same_key(&set[w].key, key))
            set[w].key.tag = 0;             /* unrecorded: never cached */
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
        tlb->e[i].key.tag = 0;
}

struct guest_tlb *guest_tlb_of_cpu(unsigned int cpu)
{
    return &stack_tlb[cpu % MAX_CPUS];
}

struct guest_tlb *guest_tlb_fetch_of_cpu(unsigned int cpu)
{
    return &fetch_tlb[cpu % MAX_CPUS];
}

void guest_tlb_counts(unsigned int cpu, uint64_t *hits, uint64_t *misses)
{
    const struct guest_tlb *tlb = &stack_tlb[cpu % MAX_CPUS];
    *hits = __atomic_load_n(&tlb->hits, __ATOMIC_RELAXED);
    *misses = __atomic_load_n(&tlb->misses, __ATOMIC_RELAXED);
}
