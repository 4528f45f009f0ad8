/* Stabbing queries for the symbolizer: which of a fixed set of address
 * ranges contain a point. Each range belongs to a group (a process, a
 * domain) and has a priority; a query names a group and an address and
 * gets the lowest- and the highest-priority range containing it among
 * those below a priority limit. One index serves every group at once
 * (points are (group, address) pairs, ordered group first).
 *
 * A segment tree over the ranges' distinct end points whose nodes list
 * the ranges covering them in priority order: building n ranges takes
 * O(n log n) time and memory, a query O(log^2 n), whatever the ranges
 * (nested, overlapping, identical). */
#ifndef HOST_TOOLS_RANGE_INDEX_H
#define HOST_TOOLS_RANGE_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Addresses [start, end) of group; ranges with end <= start are empty. */
struct range_item {
    uint64_t group;
    uint64_t start, end;
    uint64_t prio;
};

struct range_index;

/* Indexes items[0..n) (the array is not kept). Exits with "out of
 * memory" when the allocation fails; never returns NULL. */
struct range_index *range_index_build(const struct range_item *items, size_t n);

void range_index_free(struct range_index *ix);

/* Among the ranges of group containing addr whose priority is below
 * limit: the position in the build array of one with the lowest and of
 * one with the highest priority. False (outputs untouched) if none. */
bool range_index_stab(const struct range_index *ix, uint64_t group, uint64_t addr, uint64_t limit,
                      size_t *lowest, size_t *highest);

#endif
