/* Stabbing queries over grouped address ranges (see range_index.h).
 *
 * The distinct end points p[0] < ... < p[m-1] cut the key space into
 * m - 1 elementary intervals [p[i], p[i+1]), the leaves of an iterative
 * segment tree (leaf i is node n + i, node k's parent is k / 2). A range
 * covering leaves [l, r) is listed in the O(log n) nodes that decompose
 * [l, r); the nodes on the path from a point's leaf to the root list
 * exactly the ranges containing that point. Ranges are inserted in
 * priority order, so every node's list is sorted by priority. */
#define _GNU_SOURCE   /* qsort_r */
#include "host-tools/range_index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct point {
    uint64_t group, addr;
};

struct range_index {
    struct point *points;
    size_t leaves;               /* points - 1, or 0 */
    uint32_t *node_first;        /* node k's ranges: ids[node_first[k] .. node_first[k + 1]) */
    uint32_t *ids;               /* positions in the build array, by priority per node */
    uint64_t *prio;              /* per position */
};

static void *xalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size);
    if (!p) {
        fprintf(stderr, "vertigo: out of memory\n");
        exit(1);
    }
    return p;
}

static int point_cmp(const void *a, const void *b)
{
    const struct point *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Index of the last point <= p, or -1. */
static ptrdiff_t point_floor(const struct range_index *ix, struct point p)
{
    size_t lo = 0, hi = ix->leaves + 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (point_cmp(&ix->points[mid], &p) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (ptrdiff_t)lo - 1;
}

static bool non_empty(const struct range_item *r)
{
    return r->end > r->start;
}

/* The distinct end points of the non-empty items, sorted. */
static size_t collect_points(struct range_index *ix, const struct range_item *items, size_t n)
{
    size_t m = 0;
    ix->points = xalloc(2 * n, sizeof(*ix->points));
    for (size_t i = 0; i < n; i++) {
        if (!non_empty(&items[i]))
            continue;
        ix->points[m++] = (struct point){ items[i].group, items[i].start };
        ix->points[m++] = (struct point){ items[i].group, items[i].end };
    }
    qsort(ix->points, m, sizeof(*ix->points), point_cmp);
    size_t unique = 0;
    for (size_t i = 0; i < m; i++)
        if (!unique || point_cmp(&ix->points[unique - 1], &ix->points[i]))
            ix->points[unique++] = ix->points[i];
    return unique;
}

static int by_prio(const void *a, const void *b, void *items_arg)
{
    const struct range_item *items = items_arg;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (items[x].prio != items[y].prio)
        return items[x].prio < items[y].prio ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Calls add(ix, node, id) for each node decomposing item id's leaves. */
static void each_node(struct range_index *ix, const struct range_item *r, uint32_t id,
                      void (*add)(struct range_index *ix, size_t node, uint32_t id))
{
    size_t l = (size_t)point_floor(ix, (struct point){ r->group, r->start });
    size_t h = (size_t)point_floor(ix, (struct point){ r->group, r->end });
    for (l += ix->leaves, h += ix->leaves; l < h; l >>= 1, h >>= 1) {
        if (l & 1)
            add(ix, l++, id);
        if (h & 1)
            add(ix, --h, id);
    }
}

static void count_node(struct range_index *ix, size_t node, uint32_t id)
{
    (void)id;
    ix->node_first[node + 1]++;
}

static void fill_node(struct range_index *ix, size_t node, uint32_t id)
{
    ix->ids[ix->node_first[node]++] = id;
}

struct range_index *range_index_build(const struct range_item *items, size_t n)
{
    struct range_index *ix = xalloc(1, sizeof(*ix));
    size_t m = collect_points(ix, items, n);
    ix->leaves = m > 1 ? m - 1 : 0;
    size_t nodes = 2 * ix->leaves + 1;
    ix->node_first = xalloc(nodes + 1, sizeof(*ix->node_first));
    ix->prio = xalloc(n, sizeof(*ix->prio));
    uint32_t *order = xalloc(n, sizeof(*order));
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        ix->prio[i] = items[i].prio;
        if (non_empty(&items[i]))
            order[used++] = (uint32_t)i;
    }
    qsort_r(order, used, sizeof(*order), by_prio, (void *)items);
    for (size_t i = 0; ix->leaves && i < used; i++)
        each_node(ix, &items[order[i]], order[i], count_node);
    for (size_t k = 0; k < nodes; k++)
        ix->node_first[k + 1] += ix->node_first[k];
    ix->ids = xalloc(ix->node_first[nodes], sizeof(*ix->ids));
    /* Filling advances node_first[k] to node k + 1's start: shift back. */
    for (size_t i = 0; ix->leaves && i < used; i++)
        each_node(ix, &items[order[i]], order[i], fill_node);
    memmove(ix->node_first + 1, ix->node_first, nodes * sizeof(*ix->node_first));
    ix->node_first[0] = 0;
    free(order);
    return ix;
}

void range_index_free(struct range_index *ix)
{
    if (!ix)
        return;
    free(ix->points);
    free(ix->node_first);
    free(ix->ids);
    free(ix->prio);
    free(ix);
}

/* In node's list (sorted by priority): how many are below limit. */
static size_t below(const struct range_index *ix, const uint32_t *list, size_t count, uint64_t limit)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix->prio[list[mid]] < limit)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

bool range_index_stab(const struct range_index *ix, uint64_t group, uint64_t addr, uint64_t limit,
                      size_t *lowest, size_t *highest)
{
    ptrdiff_t leaf = point_floor(ix, (struct point){ group, addr });
    if (leaf < 0 || (size_t)leaf >= ix->leaves)
        return false;
    bool found = false;
    size_t lo = 0, hi = 0;
    for (size_t node = ix->leaves + (size_t)leaf; node >= 1; node >>= 1) {
        const uint32_t *list = ix->ids + ix->node_first[node];
        size_t n = below(ix, list, ix->node_first[node + 1] - ix->node_first[node], limit);
        if (!n)
            continue;
        if (!found || ix->prio[list[0]] < ix->prio[lo])
            lo = list[0];
        if (!found || ix->prio[list[n - 1]] > ix->prio[hi])
            hi = list[n - 1];
        found = true;
    }
    if (found) {
        *lowest = lo;
        *highest = hi;
    }
    return found;
}
