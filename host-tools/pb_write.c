/* Protobuf writing for the exports (see pb_write.h). */
#include "host-tools/pb_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host-tools/out_of_memory.h"
#include "host-tools/vertigo.h"

#define STRING_TABLE_MIN 1024u


void pb_put(struct pb *b, const void *data, size_t len)
{
    if (b->len + len > b->cap) {
        b->cap = (b->len + len) * 2 + 64;
        b->data = realloc(b->data, b->cap);
        if (!b->data) {
            fprintf(stderr, "vertigo export: out of memory\n");
            exit(VERTIGO_EXIT_USAGE);
        }
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
}

void pb_varint(struct pb *b, uint64_t v)
{
    uint8_t out[10];
    size_t n = 0;
    do {
        out[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        out[n++] |= v ? 0x80 : 0;
    } while (v);
    pb_put(b, out, n);
}

void pb_key(struct pb *b, unsigned field, unsigned wire)
{
    pb_varint(b, (uint64_t)field << 3 | wire);
}

/* A varint field; zero is the default and is left out. */
void pb_uint(struct pb *b, unsigned field, uint64_t v)
{
    if (!v)
        return;
    pb_key(b, field, WIRE_VARINT);
    pb_varint(b, v);
}

void pb_bytes(struct pb *b, unsigned field, const void *data, size_t len)
{
    pb_key(b, field, WIRE_LEN);
    pb_varint(b, len);
    pb_put(b, data, len);
}

/* Appends sub as a length-delimited field and empties it. */
void pb_msg(struct pb *b, unsigned field, struct pb *sub)
{
    pb_bytes(b, field, sub->data, sub->len);
    sub->len = 0;
}

/* ---- String table ----------------------------------------------------- */


static uint64_t str_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    while (*s)
        h = (h ^ (uint8_t)*s++) * 0x100000001b3ull;
    return h;
}

static void strings_rehash(struct strings *t)
{
    free(t->slot);
    t->slot_cap = t->slot_cap ? t->slot_cap * 2 : STRING_TABLE_MIN;
    t->slot = calloc(t->slot_cap, sizeof(*t->slot));
    if (!t->slot)
        vertigo_out_of_memory();
    for (size_t i = 0; i < t->count; i++) {
        size_t j = str_hash(t->list[i]) & (t->slot_cap - 1);
        while (t->slot[j])
            j = (j + 1) & (t->slot_cap - 1);
        t->slot[j] = (uint32_t)i + 1;
    }
}

/* The string table index of s (index 0 is ""). */
uint64_t str_id(struct strings *t, const char *s)
{
    if ((t->count + 1) * 2 > t->slot_cap)
        strings_rehash(t);
    size_t j = str_hash(s) & (t->slot_cap - 1);
    for (; t->slot[j]; j = (j + 1) & (t->slot_cap - 1))
        if (!strcmp(t->list[t->slot[j] - 1], s))
            return t->slot[j] - 1;
    if (t->count == t->cap) {
        t->cap = t->cap ? t->cap * 2 : STRING_TABLE_MIN;
        t->list = realloc(t->list, t->cap * sizeof(*t->list));
        if (!t->list)
            vertigo_out_of_memory();
    }
    t->list[t->count] = s;
    t->slot[j] = (uint32_t)++t->count;
    return t->count - 1;
}

/* A copy of s (a temporary buffer's text) that lives as long as t: the
 * one in t already, or a new one. */
const char *str_keep(struct strings *t, const char *s)
{
    for (size_t j = t->slot_cap ? str_hash(s) & (t->slot_cap - 1) : 0;
         t->slot_cap && t->slot[j]; j = (j + 1) & (t->slot_cap - 1))
        if (!strcmp(t->list[t->slot[j] - 1], s))
            return t->list[t->slot[j] - 1];
    if (t->own_count == t->own_cap) {
        t->own_cap = t->own_cap ? t->own_cap * 2 : STRING_TABLE_MIN;
        t->own = realloc(t->own, t->own_cap * sizeof(*t->own));
    }
    char *copy = t->own ? strdup(s) : NULL;
    if (!copy)
        vertigo_out_of_memory();
    t->own[t->own_count++] = copy;
    str_id(t, copy);
    return copy;
}


void strings_free(struct strings *t)
{
    for (size_t i = 0; i < t->own_count; i++)
        free(t->own[i]);
    free(t->own);
    free(t->list);
    free(t->slot);
    memset(t, 0, sizeof(*t));
}
