/* The program's heap (newlib's sbrk): a break that moves inside the
 * start-info page's free range. Portable: unit-tested on the host. */
#ifndef GUESTLIB_UNIKERNEL_UK_HEAP_H
#define GUESTLIB_UNIKERNEL_UK_HEAP_H

#include <stdint.h>

#define UK_HEAP_REFUSED UINT64_MAX

struct uk_heap {
    uint64_t start;     /* lowest break: free_start */
    uint64_t brk;       /* current break, start <= brk <= end */
    uint64_t end;       /* highest break: free_end */
};

/* Moves the break by `increment` bytes (negative gives memory back) and
 * returns the old break, or UK_HEAP_REFUSED (break unchanged) when the new
 * one would leave [start, end]. */
uint64_t uk_heap_grow(struct uk_heap *h, int64_t increment);

#endif
