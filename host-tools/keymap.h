/* A hash map from keys of three 64-bit words to 32-bit values, for the
 * symbolizer's lookups by (domain, pid), (domain, CR3), (domain, kind,
 * pid, epoch), an interned pointer, ...: O(1) expected per lookup, so no
 * lookup grows with what the log holds. Open addressing, at most half
 * full; memory grows with the keys stored and is never shrunk. */
#ifndef HOST_TOOLS_KEYMAP_H
#define HOST_TOOLS_KEYMAP_H

#include <stddef.h>
#include <stdint.h>

#define KEYMAP_NONE UINT32_MAX

struct keymap_slot;

struct keymap {
    struct keymap_slot *slots;
    size_t cap, used;
};

/* The value stored under key (a, b, c); if there is none, stores fresh
 * there and returns it, or returns KEYMAP_NONE when fresh is KEYMAP_NONE.
 * Exits with "out of memory" when growing fails. */
uint32_t keymap_get(struct keymap *m, uint64_t a, uint64_t b, uint64_t c, uint32_t fresh);

/* Replaces the value stored under key (a, b, c), or stores it. */
void keymap_set(struct keymap *m, uint64_t a, uint64_t b, uint64_t c, uint32_t value);

/* Frees the table; m is empty and usable afterwards. */
void keymap_free(struct keymap *m);

#endif
