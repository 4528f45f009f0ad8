/* The decoder's fast path for sample records, the bulk of a profiling
 * log (docs/log-format.md, "Records"). It reads each varint with one
 * 8-byte load: the first byte without the continuation bit ends it, and
 * the 7-bit groups of its bytes are packed together by one PEXT whose
 * mask, from a table by length, takes just those groups, where the CPU
 * has a fast PEXT (BMI2; not AMD before Zen 3, which microcodes it), else
 * a table keeps the varint's bytes and three shift/mask steps pack: no
 * loop per byte. A call stack's deltas may take 9 or 10 bytes (far
 * addresses), read with a second look at those bytes. Every function
 * takes `pext` as a constant, so the decoder holds one copy of the loop
 * for each (logdec.c). A sample it decodes is exactly what
 * logdec_parse_fields would produce, every range of "Validation" checked;
 * anything else (another type, a length, RIP or CR3 of more than 8
 * bytes, a field out of range, a record cut short) it declines without
 * consuming a byte, and the general path decodes the record and reports
 * what is wrong. The block's CRC was checked before, once for all its
 * records. */
#ifndef HOST_TOOLS_LOGDEC_FAST_H
#define HOST_TOOLS_LOGDEC_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "host-tools/logdec.h"
#include "vmm/log/log_varint.h"

/* A fast read loads 8 bytes from a position before the end it was given:
 * callers keep LOGDEC_TAIL (>= 7) readable bytes after that end (struct
 * logdec's window has them). */
#define LOGDEC_FAST_VARINT_MAX 8u    /* bytes of one load: 56-bit values */
_Static_assert(LOGDEC_TAIL >= LOGDEC_FAST_VARINT_MAX - 1u, "the window's tail covers a load");

#define LOGDEC_FAST_STOP_BITS  0x8080808080808080ull
#define LOGDEC_FAST_GROUP_BITS 0x7f7f7f7f7f7f7f7full
#define LOGDEC_FAST_GROUP      0x7fu
#define LOGDEC_FAST_LAST_BIT   63u       /* the 10th byte of a varint holds bit 63 only */

static inline uint64_t logdec_fast_load(const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof(w));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return w;
}

/* The 7-bit groups of the bytes of w packed together (bit 7 of each byte
 * ignored): one PEXT, or pairs into 14 bits per 16, into 28 per 32, into
 * 56. */
#define LOGDEC_FAST_INLINE static inline __attribute__((always_inline))
#if defined(__x86_64__)
/* PEXT: the bits of w where mask has ones, packed (BMI2; the mask may
 * come straight from memory). */
LOGDEC_FAST_INLINE uint64_t logdec_fast_pext(uint64_t w, uint64_t mask)
{
    uint64_t v;
    __asm__("pextq %2, %1, %0" : "=r"(v) : "r"(w), "rm"(mask));
    return v;
}
#endif

LOGDEC_FAST_INLINE uint64_t logdec_fast_pack(uint64_t w, bool pext)
{
#if defined(__x86_64__)
    if (pext)
        return logdec_fast_pext(w, LOGDEC_FAST_GROUP_BITS);
#endif
    w &= LOGDEC_FAST_GROUP_BITS;
    w = (w & 0x007f007f007f007full) | ((w >> 1) & 0x3f803f803f803f80ull);
    w = (w & 0x00003fff00003fffull) | ((w >> 2) & 0x0fffc0000fffc000ull);
    return (w & 0x000000000fffffffull) | ((w >> 4) & 0x00fffffff0000000ull);
}

/* The bytes of a varint of n bytes (1..8) within its 8-byte load. */
static const uint64_t logdec_fast_keep[LOGDEC_FAST_VARINT_MAX + 1] = {
    0, 0xffull, 0xffffull, 0xffffffull, 0xffffffffull, 0xffffffffffull, 0xffffffffffffull,
    0xffffffffffffffull, 0xffffffffffffffffull,
};

/* The 7-bit groups of a varint of n bytes (1..8) within its 8-byte load,
 * ANDed with keep: the mask PEXT takes, so it needs no mask of its own
 * first. */
#define LOGDEC_FAST_GROUP_MASKS(keep)                                                          \
    {                                                                                          \
        0, 0x7full & (keep), 0x7f7full & (keep), 0x7f7f7full & (keep), 0x7f7f7f7full & (keep), \
        0x7f7f7f7f7full & (keep), 0x7f7f7f7f7f7full & (keep), 0x7f7f7f7f7f7f7full & (keep),    \
        0x7f7f7f7f7f7f7f7full & (keep),                                                        \
    }
static const uint64_t logdec_fast_groups[LOGDEC_FAST_VARINT_MAX + 1] = LOGDEC_FAST_GROUP_MASKS(~0ull);

/* The value of a varint of n bytes (1..8) loaded in w. */
LOGDEC_FAST_INLINE uint64_t logdec_fast_value(uint64_t w, size_t n, bool pext)
{
#if defined(__x86_64__)
    if (pext)
        return logdec_fast_pext(w, logdec_fast_groups[n]);
#endif
    return logdec_fast_pack(w & logdec_fast_keep[n], pext);
}

/* log_unzigzag(v) (vmm/log/log_varint.h) in the form a compiler turns
 * into one rotate (RORX with BMI2), an arithmetic and a logical shift and
 * an XOR: v's low bit rotated to the top and spread is -(v & 1). */
LOGDEC_FAST_INLINE int64_t logdec_fast_unzigzag(uint64_t v)
{
    uint64_t low_bit_on_top = v >> 1 | v << 63;
    return (int64_t)(v >> 1) ^ ((int64_t)low_bit_on_top >> 63);
}

/* The RIP-only loop's tables, one object so that one register holds the
 * address of both (the loop keeps few registers across its callback).
 * groups_high[n]: the 7-bit groups of a varint of n bytes (1..8) but its
 * lowest bit: PEXT with these gives a zigzag value shifted right by one.
 * shapes: the RIP-only sample shapes (below), built by
 * logdec_fast_shapes_build. */
struct logdec_fast_shape {
    uint16_t frame;
    uint8_t delta_len;
    uint8_t raw_len;
};
#define LOGDEC_FAST_RIP_BODY_MAX   16u
#define LOGDEC_FAST_SHAPES         (1u << LOGDEC_FAST_RIP_BODY_MAX)
struct logdec_fast_tables {
    struct logdec_fast_shape shapes[LOGDEC_FAST_SHAPES];
    uint64_t groups_high[LOGDEC_FAST_VARINT_MAX + 1];
};
extern struct logdec_fast_tables logdec_fast_tables;
void logdec_fast_shapes_build(void);

/* The signed value of a zigzag varint of n bytes (1..8) loaded in w,
 * log_unzigzag of its value. With PEXT the value's bits but the lowest
 * come out already shifted (v >> 1), and the lowest, bit 0 of the first
 * byte, gives the sign to spread: -(v & 1). */
LOGDEC_FAST_INLINE int64_t logdec_fast_signed(uint64_t w, size_t n, bool pext)
{
#if defined(__x86_64__)
    if (pext)
        return (int64_t)(logdec_fast_pext(w, logdec_fast_tables.groups_high[n]) ^ (0u - (w & 1u)));
#endif
    return logdec_fast_unzigzag(logdec_fast_value(w, n, pext));
}

/* The varint at *p if it has at most 8 bytes (then *p moves past it);
 * false, *p unchanged, for a longer one. */
LOGDEC_FAST_INLINE bool logdec_fast_varint(const uint8_t **p, uint64_t *v, bool pext)
{
    uint64_t w = logdec_fast_load(*p);
    uint64_t stop = ~w & LOGDEC_FAST_STOP_BITS;
    if (!stop)
        return false;
    unsigned int n = (unsigned int)__builtin_ctzll(stop) / 8u + 1u;
    *v = logdec_fast_value(w, n, pext);
    *p += n;
    return true;
}

/* A varint of 9 or 10 bytes at *p (its first 8 all continue), which must
 * end before end; as log_varint_get, a 10th byte above 1 is refused
 * (bits past 63). False, *p unchanged, otherwise. */
LOGDEC_FAST_INLINE bool logdec_fast_varint_long(const uint8_t **p, const uint8_t *end, uint64_t *v,
                                               bool pext)
{
    const uint8_t *q = *p;
    if (end - q <= (ptrdiff_t)LOGDEC_FAST_VARINT_MAX)
        return false;
    uint64_t low = logdec_fast_pack(logdec_fast_load(q), pext);
    uint8_t b8 = q[LOGDEC_FAST_VARINT_MAX];
    if (b8 <= LOGDEC_FAST_GROUP) {
        *v = low | (uint64_t)b8 << (7u * LOGDEC_FAST_VARINT_MAX);
        *p = q + LOGDEC_FAST_VARINT_MAX + 1u;
        return true;
    }
    if (end - q <= (ptrdiff_t)LOGDEC_FAST_VARINT_MAX + 1 || q[LOGDEC_FAST_VARINT_MAX + 1] > 1u)
        return false;
    *v = low | (uint64_t)(b8 & LOGDEC_FAST_GROUP) << (7u * LOGDEC_FAST_VARINT_MAX) |
         (uint64_t)q[LOGDEC_FAST_VARINT_MAX + 1] << LOGDEC_FAST_LAST_BIT;
    *p = q + LOGDEC_FAST_VARINT_MAX + 2u;
    return true;
}

/* The call stack of a sample: depth (1..LOG_STACK_MAX), then zigzag
 * deltas, the first from the RIP. A delta between far addresses (a kernel
 * frame's and a user frame's, a garbage frame) takes 9 or 10 bytes. */
LOGDEC_FAST_INLINE bool logdec_fast_stack(struct log_sample *s, const uint8_t **p, const uint8_t *end,
                                         bool pext)
{
    const uint8_t *q = *p;
    uint64_t depth, delta, prev = s->rip;
    if (!logdec_fast_varint(&q, &depth, pext) || depth == 0 || depth > LOG_STACK_MAX)
        return false;
    for (uint32_t i = 0; i < depth; i++) {
        if (q >= end)
            return false;
        if (!logdec_fast_varint(&q, &delta, pext) && !logdec_fast_varint_long(&q, end, &delta, pext))
            return false;
        prev += (uint64_t)logdec_fast_unzigzag(delta);
        s->stack[i] = prev;
    }
    s->depth = (uint32_t)depth;
    *p = q;
    return true;
}

/* What follows the RIP when the flags say so: a CR3, a call stack. */
LOGDEC_FAST_INLINE bool logdec_fast_sample_tail(struct log_sample *s, uint8_t flags,
                                               const uint8_t *p, const uint8_t *end, bool pext)
{
    s->has_cr3 = (flags & LOG_SAMPLE_HAS_CR3) != 0;
    if (s->has_cr3 && (p >= end || !logdec_fast_varint(&p, &s->cr3, pext)))
        return false;
    if ((flags & LOG_SAMPLE_HAS_STACK) && (p >= end || !logdec_fast_stack(s, &p, end, pext)))
        return false;
    return p <= end;
}

/* The fields bytes of a sample at least this long: flags, domain, VCPU,
 * event and a RIP of one byte each. */
#define LOGDEC_FAST_SAMPLE_MIN 5

/* A sample's fields [p, end), at least LOGDEC_FAST_SAMPLE_MIN bytes: true
 * with s filled when every field is in range and ends by end. */
LOGDEC_FAST_INLINE bool logdec_fast_sample(struct log_sample *s, const uint8_t *p, const uint8_t *end,
                                          bool pext)
{
    /* flags, domain, VCPU and event: one byte each in nearly every sample;
     * flag bits 4-7 must be zero, the mode below 3 */
    uint64_t head = logdec_fast_load(p);
    if ((head & (0x80808000ull | (0xffu & ~LOG_SAMPLE_FLAGS_MASK))) ||
        (head & LOG_SAMPLE_MODE_MASK) >= LOG_MODE_COUNT)
        return false;
    uint8_t flags = (uint8_t)head;
    s->mode = flags & LOG_SAMPLE_MODE_MASK;
    s->domain = p[1];        /* loaded again: a byte load each is cheaper than shifts */
    s->vcpu = p[2];
    s->event = p[3];
    p += 4;
    uint64_t rip;
    if (!logdec_fast_varint(&p, &rip, pext))
        return false;
    s->rip = (uint64_t)logdec_fast_unzigzag(rip);
    s->has_cr3 = false;
    s->cr3 = 0;
    s->depth = 0;
    if (flags & (LOG_SAMPLE_HAS_CR3 | LOG_SAMPLE_HAS_STACK))
        return logdec_fast_sample_tail(s, flags, p, end, pext);
    return p <= end;     /* bytes after the known fields are allowed */
}

/* The record at *p (p < end), if it is a sample the fast path takes: *p
 * moves past it, r holds it (its TSC advanced by the record's delta). Its
 * frame is the type, a length of one or two bytes (a deep stack's
 * samples pass 127 bytes) and a TSC delta; its fields take at most
 * LOG_FIELDS_MAX bytes, as logdec_parse_fields requires. */
LOGDEC_FAST_INLINE bool logdec_fast_record(struct logdec_record *r, const uint8_t **p,
                                          const uint8_t *end, bool pext)
{
    const uint8_t *q = *p;
    uint64_t frame = logdec_fast_load(q);   /* type, length, TSC delta... */
    if ((uint8_t)frame != LOG_REC_SAMPLE)
        return false;
    size_t len = (uint8_t)(frame >> 8);
    q += 2;
    if (len > LOGDEC_FAST_GROUP) {
        uint8_t high = (uint8_t)(frame >> 16);
        if (high > LOGDEC_FAST_GROUP)
            return false;
        len = (len & LOGDEC_FAST_GROUP) | (size_t)high << 7;
        q++;
    }
    if (len > (size_t)(end - q))
        return false;
    const uint8_t *body_end = q + len;
    uint64_t delta;
    if (!logdec_fast_varint(&q, &delta, pext) || body_end - q < LOGDEC_FAST_SAMPLE_MIN ||
        body_end - q > (ptrdiff_t)LOG_FIELDS_MAX)
        return false;
    /* written before the fields are read (q need not live past them); on a
     * decline the general path writes the record again */
    r->raw = q;
    r->raw_len = (uint32_t)(body_end - q);
    if (!logdec_fast_sample(&r->u.sample, q, body_end, pext))
        return false;
    r->type = LOG_REC_SAMPLE;
    r->tsc += (uint64_t)logdec_fast_unzigzag(delta);
    *p = body_end;
    return true;
}

/* The commonest record, a RIP-only sample, decoded by its shape. Its
 * bytes are the type, a one-byte length, then a body of exactly: a TSC
 * delta of dn bytes, flags without CR3 or call stack (0..2: the mode),
 * domain, VCPU and event of one byte each, and a RIP of rn bytes, with
 * dn, rn <= 8 and a body of at most LOGDEC_FAST_RIP_BODY_MAX bytes. The
 * continuation bits of the body's first 16 bytes (one PMOVMSKB), cut to
 * the record's length (BZHI), are the key of a table of such shapes
 * (logdec_fast_shapes.c): its entry holds the one length the key's
 * pattern fits and the delta's dn, so one compare checks every varint's
 * end, the head's one-byte fields, and that nothing follows the RIP.
 * Anything else (bytes after the RIP, longer fields, another type, flags
 * above 2) it declines, *p unchanged, for logdec_fast_record and the
 * general path. A body of 16 bytes or less needs no bound of its own: the
 * record starts LOGDEC_FAST_RIP_ROOM bytes or more before the payload's
 * end, and its loads (the body's 16 bytes, the RIP's 8 at most 14 bytes
 * in) reach LOGDEC_FAST_RIP_READ bytes past its start: at most
 * LOGDEC_TAIL past the end. */
#define LOGDEC_FAST_RIP_READ       22u
#define LOGDEC_FAST_RIP_ROOM       (2u + LOGDEC_FAST_RIP_BODY_MAX)
#define LOGDEC_FAST_RIP_FLAGS_MAX  2u      /* no CR3, no stack, a mode below 3 */
#define LOGDEC_FAST_RIP_HEAD       4u      /* flags, domain, VCPU, event */
_Static_assert(LOG_SAMPLE_MODE_MASK == 0x03u && LOG_MODE_COUNT == LOGDEC_FAST_RIP_FLAGS_MAX + 1u &&
               LOG_SAMPLE_FLAGS_MASK == 0x0fu, "flags of 0..2 are a mode without CR3 or stack");
_Static_assert(LOGDEC_FAST_RIP_ROOM + LOGDEC_TAIL >= LOGDEC_FAST_RIP_READ, "the loads stay in the tail");

/* logdec_fast_tables.shapes[key]: the RIP-only shape whose continuation
 * bits are key: its frame (the type and body length bytes, as one
 * little-endian 16-bit load reads them), the bytes of its TSC delta and
 * the fields' bytes after it (the head and the RIP); a frame of 0 for a
 * key no such shape has. */

/* The high bit of each of the 16 bytes at p, byte i's in bit i, without
 * vector instructions: each byte's high bit moved to bit 0 of its byte,
 * then gathered into the top byte by one multiply (byte i's bit meets
 * the multiplier's bit 7 - i there; no other two products meet). */
static inline uint32_t logdec_fast_high_bits_portable(const uint8_t *p)
{
    uint64_t lo = (logdec_fast_load(p) >> 7) & 0x0101010101010101ull;
    uint64_t hi = (logdec_fast_load(p + 8) >> 7) & 0x0101010101010101ull;
    return (uint32_t)((lo * 0x0102040810204080ull) >> 56) |
           (uint32_t)((hi * 0x0102040810204080ull) >> 56) << 8;
}

/* The same with one PMOVMSKB (SSE2: every x86-64 CPU). */
LOGDEC_FAST_INLINE uint32_t logdec_fast_high_bits(const uint8_t *p)
{
#if defined(__x86_64__)
    typedef char bytes16 __attribute__((vector_size(16)));
    bytes16 v;
    memcpy(&v, p, sizeof(v));
    return (uint32_t)__builtin_ia32_pmovmskb128(v);
#else
    return logdec_fast_high_bits_portable(p);
#endif
}

/* Bits 0..n-1 of v (v < 2^16; n of 16 or more keeps them all). */
LOGDEC_FAST_INLINE uint64_t logdec_fast_low_bits(uint64_t v, uint64_t n, bool pext)
{
#if defined(__x86_64__)
    if (pext) {               /* the BMI2 copy: BZHI (n's low byte; 64 or more keeps all) */
        uint64_t low;
        __asm__("bzhiq %2, %1, %0" : "=r"(low) : "r"(v), "r"(n));
        return low;
    }
#endif
    return n >= LOGDEC_FAST_RIP_BODY_MAX ? v : v & ((1u << n) - 1u);
}

/* The head's flags (the mode: 0..2), domain, VCPU and event into s. With
 * BMI2 (whose CPUs all have SSSE3) one PSHUFB spreads the four bytes to
 * the four 32-bit fields and one store writes them (the byte after the
 * mode is padding). */
#define LOGDEC_FAST_HEAD_AT offsetof(struct log_sample, domain)
_Static_assert(offsetof(struct log_sample, vcpu) == LOGDEC_FAST_HEAD_AT + 4 &&
               offsetof(struct log_sample, mode) == LOGDEC_FAST_HEAD_AT + 8 &&
               offsetof(struct log_sample, event) == LOGDEC_FAST_HEAD_AT + 12 &&
               sizeof(((struct log_sample *)0)->event) == 4, "the head's fields are 16 bytes in a row");
LOGDEC_FAST_INLINE void logdec_fast_rip_head(struct log_sample *s, const uint8_t *f, bool pext)
{
#if defined(__x86_64__)
    if (pext) {
        typedef int dwords4 __attribute__((vector_size(16)));
        typedef long long qwords2 __attribute__((vector_size(16)));
        /* bytes: domain, 3 zeros, VCPU, 3 zeros, flags, 3 zeros, event, 3 zeros */
        static const qwords2 spread = { (long long)0x8080800280808001ull, (long long)0x8080800380808000ull };
        uint32_t head;
        memcpy(&head, f, sizeof(head));
        dwords4 v = { (int)head, 0, 0, 0 };
        __asm__("pshufb %1, %0" : "+x"(v) : "xm"(spread));
        memcpy((uint8_t *)s + LOGDEC_FAST_HEAD_AT, &v, sizeof(v));
        return;
    }
#endif
    s->mode = f[0];
    s->domain = f[1];
    s->vcpu = f[2];
    s->event = f[3];
}

/* The fields a RIP-only sample shares with every other: the decoder sets
 * them once, and again after a record of another shape used r. */
static inline void logdec_fast_rip_prepare(struct logdec_record *r)
{
    r->type = LOG_REC_SAMPLE;
    r->u.sample.has_cr3 = false;
    r->u.sample.cr3 = 0;
    r->u.sample.depth = 0;
}

/* The RIP-only sample at q, at least LOGDEC_FAST_RIP_ROOM bytes before
 * the payload's end, into r prepared by logdec_fast_rip_prepare, its TSC
 * advanced by the record's delta: returns where the next record starts
 * (at most LOGDEC_FAST_RIP_ROOM bytes on), or NULL if q holds none. */
LOGDEC_FAST_INLINE const uint8_t *logdec_fast_rip_take(struct logdec_record *r, const uint8_t *q,
                                                      bool pext)
{
    size_t len = q[1];
    const struct logdec_fast_shape *shape =
        &logdec_fast_tables.shapes[logdec_fast_low_bits(logdec_fast_high_bits(q + 2), len, pext)];
    if (shape->frame != (uint16_t)(q[0] | len << 8))     /* the type, the length */
        return NULL;
    size_t dn = shape->delta_len, raw_len = shape->raw_len;
    const uint8_t *f = q + 2 + dn;
    if (f[0] > LOGDEC_FAST_RIP_FLAGS_MAX)
        return NULL;
    r->raw = f;
    r->raw_len = (uint32_t)raw_len;
    logdec_fast_rip_head(&r->u.sample, f, pext);
    r->u.sample.rip = (uint64_t)logdec_fast_signed(logdec_fast_load(f + LOGDEC_FAST_RIP_HEAD),
                                                   raw_len - LOGDEC_FAST_RIP_HEAD, pext);
    r->tsc += (uint64_t)logdec_fast_signed(logdec_fast_load(q + 2), dn, pext);
    return q + 2 + len;
}

/* logdec_fast_rip_take on any record at *p < end (LOGDEC_TAIL readable
 * bytes after end), r prepared here. */
LOGDEC_FAST_INLINE bool logdec_fast_rip_record(struct logdec_record *r, const uint8_t **p,
                                              const uint8_t *end, bool pext)
{
    if (end - *p < (ptrdiff_t)LOGDEC_FAST_RIP_ROOM)
        return false;
    logdec_fast_rip_prepare(r);
    const uint8_t *next = logdec_fast_rip_take(r, *p, pext);
    if (!next)
        return false;
    *p = next;
    return true;
}

#endif
