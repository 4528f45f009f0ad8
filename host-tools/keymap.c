/* Hash map of three-word keys (see keymap.h): linear probing over slots
 * that hold the key and value + 1 (0 = empty). */
#include "host-tools/keymap.h"

#include <stdio.h>
#include <stdlib.h>

#define KEYMAP_MIN_CAP 64u
#define HASH_MUL 0x9e3779b97f4a7c15ull

struct keymap_slot {
    uint64_t key[3];
    uint32_t value_plus1;
};

static uint64_t hash_key(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t h = a * HASH_MUL;
    h = (h ^ (h >> 29) ^ b) * HASH_MUL;
    h = (h ^ (h >> 29) ^ c) * HASH_MUL;
    return h ^ (h >> 32);
}

static struct keymap_slot *find(const struct keymap *m, uint64_t a, uint64_t b, uint64_t c)
{
    size_t mask = m->cap - 1, i = hash_key(a, b, c) & mask;
    for (;; i = (i + 1) & mask) {
        struct keymap_slot *s = &m->slots[i];
        if (!s->value_plus1 || (s->key[0] == a && s->key[1] == b && s->key[2] == c))
            return s;
    }
}

static void grow(struct keymap *m)
{
    struct keymap bigger = { .cap = m->cap ? 2 * m->cap : KEYMAP_MIN_CAP, .used = m->used };
    bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots));
    if (!bigger.slots) {
        fprintf(stderr, "vertigo: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].value_plus1)
            *find(&bigger, m->slots[i].key[0], m->slots[i].key[1], m->slots[i].key[2]) = m->slots[i];
    free(m->slots);
    *m = bigger;
}

uint32_t keymap_get(struct keymap *m, uint64_t a, uint64_t b, uint64_t c, uint32_t fresh)
{
    if ((m->used + 1) * 2 > m->cap)
        grow(m);
    struct keymap_slot *s = find(m, a, b, c);
    if (s->value_plus1)
        return s->value_plus1 - 1;
    if (fresh == KEYMAP_NONE)
        return KEYMAP_NONE;
    *s = (struct keymap_slot){ { a, b, c }, fresh + 1 };
    m->used++;
    return fresh;
}

void keymap_set(struct keymap *m, uint64_t a, uint64_t b, uint64_t c, uint32_t value)
{
    if ((m->used + 1) * 2 > m->cap)
        grow(m);
    struct keymap_slot *s = find(m, a, b, c);
    m->used += !s->value_plus1;
    *s = (struct keymap_slot){ { a, b, c }, value + 1 };
}

void keymap_free(struct keymap *m)
{
    free(m->slots);
    *m = (struct keymap){ 0 };
}
