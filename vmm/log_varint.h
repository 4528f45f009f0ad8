/* LEB128 varints and zigzag signed mapping used inside log records.
 * Header-only so the encoder and the decoder inline them. */
#ifndef VMM_LOG_VARINT_H
#define VMM_LOG_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define LOG_VARINT_MORE 0x80u
#define LOG_VARINT_BITS 0x7fu

/* Writes v as an unsigned LEB128 varint at out (room for 10 bytes);
 * returns the bytes written (1..10). Values below 2^14 (most fields)
 * take straight-line code; longer ones a loop of one store per byte. */
static inline size_t log_varint_put(uint8_t *out, uint64_t v)
{
    if (v <= LOG_VARINT_BITS) {
        out[0] = (uint8_t)v;
        return 1;
    }
    out[0] = (uint8_t)(v | LOG_VARINT_MORE);
    v >>= 7;
    if (v <= LOG_VARINT_BITS) {
        out[1] = (uint8_t)v;
        return 2;
    }
    size_t n = 1;
    do {
        out[n++] = (uint8_t)(v | LOG_VARINT_MORE);
        v >>= 7;
    } while (v > LOG_VARINT_BITS);
    out[n++] = (uint8_t)v;
    return n;
}

/* Bytes log_varint_put would write for v. */
static inline size_t log_varint_size(uint64_t v)
{
    size_t n = 1;
    while (v > LOG_VARINT_BITS) {
        v >>= 7;
        n++;
    }
    return n;
}

/* Reads a varint from [*p, end); advances *p. Returns 0 on success, -1 if
 * the input ends inside the varint or it is longer than 64 bits. */
static inline int log_varint_get(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    const uint8_t *q = *p;
    uint64_t result = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (q == end)
            return -1;
        uint8_t byte = *q++;
        if (shift == 63 && byte > 1)
            return -1;
        result |= (uint64_t)(byte & LOG_VARINT_BITS) << shift;
        if (!(byte & LOG_VARINT_MORE)) {
            *p = q;
            *v = result;
            return 0;
        }
    }
    return -1;
}

/* Maps signed to unsigned so small magnitudes stay small: 0,-1,1,-2 -> 0,1,2,3. */
static inline uint64_t log_zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t log_unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1u);
}

#endif
