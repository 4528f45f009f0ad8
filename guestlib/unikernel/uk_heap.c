/* The program's heap: see uk_heap.h. */
#include "guestlib/unikernel/uk_heap.h"

uint64_t uk_heap_grow(struct uk_heap *h, int64_t increment)
{
    uint64_t old = h->brk;
    /* Magnitudes as unsigned: -INT64_MIN does not fit an int64_t. */
    uint64_t size = increment < 0 ? 0 - (uint64_t)increment : (uint64_t)increment;

    if (increment < 0 ? size > old - h->start : size > h->end - old)
        return UK_HEAP_REFUSED;
    h->brk = increment < 0 ? old - size : old + size;
    return old;
}
