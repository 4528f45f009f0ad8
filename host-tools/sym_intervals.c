/* Answers by address interval (see sym_internal.h): sorted boundaries,
 * a slot per interval between two of them. */
#include "host-tools/sym_internal.h"

#include <stdlib.h>

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

void sym_bounds_push(uint64_t **bounds, size_t *n, size_t *cap, uint64_t v)
{
    *bounds = sym_grow(*bounds, cap, *n + 1, sizeof(**bounds));
    (*bounds)[(*n)++] = v;
}

void sym_intervals_build(struct sym_intervals *iv, uint64_t *bounds, size_t n)
{
    if (n)
        qsort(bounds, n, sizeof(*bounds), u64_cmp);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (!kept || bounds[i] != bounds[kept - 1])
            bounds[kept++] = bounds[i];
    iv->bounds = bounds;
    iv->count = kept;
    iv->slots = sym_calloc(kept + 1, sizeof(*iv->slots));
    iv->built = true;
}

uint32_t *sym_intervals_slot(struct sym_intervals *iv, uint64_t addr)
{
    size_t lo = 0, hi = iv->count;       /* the bounds at or below addr */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (iv->bounds[mid] <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return &iv->slots[lo];
}

void sym_intervals_free(struct sym_intervals *iv)
{
    free(iv->bounds);
    free(iv->slots);
    *iv = (struct sym_intervals){ 0 };
}
