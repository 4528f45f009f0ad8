/* Protobuf writing for the exports that are protobuf messages (pprof's
 * Profile, Perfetto's Trace): a growable buffer with the wire format's
 * varints, keys and length-delimited fields, and a table of strings that
 * numbers each distinct string once (pprof's string table, Perfetto's
 * interned strings). Written by hand from the protobuf encoding rules
 * (varints, field key = number << 3 | wire type). */
#ifndef HOST_TOOLS_PB_WRITE_H
#define HOST_TOOLS_PB_WRITE_H

#include <stddef.h>
#include <stdint.h>

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

struct pb {
    uint8_t *data;
    size_t len, cap;
};

void pb_put(struct pb *b, const void *data, size_t len);
void pb_varint(struct pb *b, uint64_t v);
void pb_key(struct pb *b, unsigned field, unsigned wire);
/* A varint field; zero is the default and is left out. */
void pb_uint(struct pb *b, unsigned field, uint64_t v);
void pb_bytes(struct pb *b, unsigned field, const void *data, size_t len);
/* Appends sub as a length-delimited field and empties it. */
void pb_msg(struct pb *b, unsigned field, struct pb *sub);

struct strings {
    const char **list;
    size_t count, cap;
    uint32_t *slot;              /* index + 1 */
    size_t slot_cap;
    char **own;                  /* copies made by str_keep */
    size_t own_count, own_cap;
};

/* The index of s in t, numbering new strings 0, 1, 2, ... in order (s
 * must live as long as t: see str_keep). */
uint64_t str_id(struct strings *t, const char *s);
/* A copy of s (a temporary buffer's text) that lives as long as t: the
 * one in t already, or a new one. */
const char *str_keep(struct strings *t, const char *s);
void strings_free(struct strings *t);

#endif
