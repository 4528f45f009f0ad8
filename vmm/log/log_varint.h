/* LEB128 varints and zigzag signed mapping used inside log records.
 * Header-only so the encoder and the decoder inline them. */
#ifndef VMM_LOG_VARINT_H
#define VMM_LOG_VARINT_H

#include <stdbool.h>
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

/* Bytes log_varint_put would write for v: one per 7 bits of the value's
 * highest set bit; x / 7 is (x * 37) >> 8 for the x up to 70 used here. */
#define LOG_VARINT_DIV7_MUL   37u
#define LOG_VARINT_DIV7_SHIFT 8u
static inline size_t log_varint_size(uint64_t v)
{
    unsigned int bits = 64u - (unsigned int)__builtin_clzll(v | 1u);
    return ((bits + 6u) * LOG_VARINT_DIV7_MUL) >> LOG_VARINT_DIV7_SHIFT;
}

/* ---- The wide writer: PDEP where the CPU has it ---------------------------
 * log_varint_put's loop costs a handful of instructions per byte; where
 * BMI2 is present, PDEP spreads the 7-bit groups of a value below 2^56
 * over eight bytes at once, the continuation bits are or-ed in and the
 * eight bytes are stored in one go. Same bytes as log_varint_put. */

/* True if the CPU has BMI2 (PDEP). The hypervisor sets it from CPUID at
 * start-up (log_hv_init), before any record is written; false until then
 * and in host tools (log_varint_put_wide then uses log_varint_put). */
extern bool log_varint_pdep;

#define LOG_VARINT_WIDE_MAX_BITS 56u                    /* eight 7-bit groups */
#define LOG_VARINT_GROUPS        0x7f7f7f7f7f7f7f7full  /* PDEP mask */
#define LOG_VARINT_CONTINUATION  0x8080808080808080ull

/* log_varint_put for a slot of LOG_VARINT_MAX bytes: may write all eight
 * bytes at out (those past the varint's length are scratch, overwritten
 * by what follows), so out must have 8 writable bytes. The length comes
 * from the spread value itself: its highest set bit is in the last byte. */
static inline size_t log_varint_put_wide(uint8_t *out, uint64_t v)
{
#if defined(__x86_64__)
    if (log_varint_pdep && !(v >> LOG_VARINT_WIDE_MAX_BITS)) {
        uint64_t spread;
        __asm__("pdepq %2, %1, %0" : "=r"(spread) : "r"(v), "r"(LOG_VARINT_GROUPS));
        unsigned int last = (63u - (unsigned int)__builtin_clzll(spread | 1u)) & ~7u;
        spread |= ((1ull << last) - 1u) & LOG_VARINT_CONTINUATION;  /* bytes before the last */
        __builtin_memcpy(out, &spread, sizeof(spread));
        return last / 8u + 1u;
    }
#endif
    return log_varint_put(out, v);
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
