/* Per-CPU log rings: lock-free reservation, nesting-safe commit, exact
 * drop accounting, and the drain that frames committed records into
 * checksummed blocks (see vmm/log/log_ring.h for the contract). */
#include "vmm/log/log_ring.h"

#include "vmm/log/log_encode.h"
#include "vmm/log/log_varint.h"
#include "lib/mem.h"

/* Private entry types: padding the drain skips, and the producer's loss
 * entry (u64 count, little-endian) the drain turns into LOG_REC_LOSS. */
#define RING_TYPE_PAD     0x00u
#define RING_TYPE_LOSS    0xffu
#define RING_LOSS_FIELDS  8u
/* Wire bytes of a loss record: type, body length, TSC delta, count. */
#define LOSS_WIRE_MAX     (1u + 1u + 2u * LOG_VARINT_MAX)

struct ring_entry {
    uint16_t len;
    uint8_t type;
    uint64_t tsc;
};

static uint64_t load_relaxed(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }

/* ---- Storage access modulo the ring size ---------------------------- */

/* The producer's and the drain's per-record helpers are forced inline:
 * their calls cost more than their bodies on the per-sample path. */
#define RING_INLINE static inline __attribute__((always_inline))

#define WORD_BYTES 8u
#define HALF_BYTES 4u

/* Copies len bytes, the short lengths of sample fields without a memcpy
 * call (in the hypervisor a rep movsb, which Bochs counts once per byte):
 * 4..16 bytes as two possibly overlapping loads and stores, which write
 * nothing outside [dst, dst + len). */
RING_INLINE void copy_short(uint8_t *dst, const uint8_t *src, size_t len)
{
    if (len >= WORD_BYTES && len <= 2 * WORD_BYTES) {
        uint64_t a, b;
        __builtin_memcpy(&a, src, WORD_BYTES);
        __builtin_memcpy(&b, src + len - WORD_BYTES, WORD_BYTES);
        __builtin_memcpy(dst, &a, WORD_BYTES);
        __builtin_memcpy(dst + len - WORD_BYTES, &b, WORD_BYTES);
    } else if (len >= HALF_BYTES && len < WORD_BYTES) {
        uint32_t a, b;
        __builtin_memcpy(&a, src, HALF_BYTES);
        __builtin_memcpy(&b, src + len - HALF_BYTES, HALF_BYTES);
        __builtin_memcpy(dst, &a, HALF_BYTES);
        __builtin_memcpy(dst + len - HALF_BYTES, &b, HALF_BYTES);
    } else if (len < HALF_BYTES) {
        for (size_t i = 0; i < len; i++)
            dst[i] = src[i];
    } else {
        memcpy(dst, src, len);
    }
}

/* A copy that crosses the end of the storage: rare, kept out of line. */
static __attribute__((noinline)) void ring_copy_in_wrap(struct log_ring *ring, uint64_t off,
                                                        const void *src, size_t len)
{
    size_t first = (size_t)(ring->size - off);
    memcpy(ring->data + off, src, first);
    memcpy(ring->data, (const uint8_t *)src + first, len - first);
}

static __attribute__((noinline)) void ring_copy_out_wrap(const struct log_ring *ring,
                                                         uint64_t off, void *dst, size_t len)
{
    size_t first = (size_t)(ring->size - off);
    memcpy(dst, ring->data + off, first);
    memcpy((uint8_t *)dst + first, ring->data, len - first);
}

RING_INLINE void ring_copy_in(struct log_ring *ring, uint64_t pos, const void *src, size_t len)
{
    uint64_t off = pos & (ring->size - 1);
    if (off + len > ring->size)
        ring_copy_in_wrap(ring, off, src, len);
    else
        copy_short(ring->data + off, src, len);
}

RING_INLINE void ring_copy_out(const struct log_ring *ring, uint64_t pos, void *dst, size_t len)
{
    uint64_t off = pos & (ring->size - 1);
    if (off + len > ring->size)
        ring_copy_out_wrap(ring, off, dst, len);
    else
        copy_short(dst, ring->data + off, len);
}

/* On a little-endian machine one unaligned move (the compiler inlines
 * __builtin_memcpy of a constant size even when freestanding). */
static void put_u64_le(uint8_t *p, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    __builtin_memcpy(p, &v, sizeof(v));
#else
    for (unsigned i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
#endif
}

static uint64_t get_u64_le(const uint8_t *p)
{
    uint64_t v = 0;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    __builtin_memcpy(&v, p, sizeof(v));
#else
    for (unsigned i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
#endif
    return v;
}

RING_INLINE void put_header(uint8_t *hdr, uint8_t type, uint64_t tsc, size_t len)
{
    hdr[0] = (uint8_t)len;
    hdr[1] = (uint8_t)(len >> 8);
    hdr[2] = type;
    put_u64_le(hdr + 3, tsc);
}

/* The header goes straight into the storage unless it wraps. */
RING_INLINE void put_entry(struct log_ring *ring, uint64_t pos, uint8_t type,
                      uint64_t tsc, const void *fields, size_t len)
{
    uint64_t off = pos & (ring->size - 1);
    if (off + LOG_RING_ENTRY_HEADER <= ring->size) {
        put_header(ring->data + off, type, tsc, len);
    } else {
        uint8_t hdr[LOG_RING_ENTRY_HEADER];
        put_header(hdr, type, tsc, len);
        ring_copy_in(ring, pos, hdr, sizeof(hdr));
    }
    if (fields)
        ring_copy_in(ring, pos + LOG_RING_ENTRY_HEADER, fields, len);
}

RING_INLINE struct ring_entry get_entry(const struct log_ring *ring, uint64_t pos)
{
    uint8_t buf[LOG_RING_ENTRY_HEADER];
    uint64_t off = pos & (ring->size - 1);
    const uint8_t *hdr = ring->data + off;
    if (off + LOG_RING_ENTRY_HEADER > ring->size) {
        ring_copy_out(ring, pos, buf, sizeof(buf));
        hdr = buf;
    }
    struct ring_entry e = {
        .len = (uint16_t)(hdr[0] | hdr[1] << 8),
        .type = hdr[2],
        .tsc = get_u64_le(hdr + 3),
    };
    return e;
}

bool log_ring_init(struct log_ring *ring, uint16_t cpu, void *storage, uint64_t size)
{
    memset(ring, 0, sizeof(*ring));
    if (!storage || size < LOG_RING_MIN_SIZE || (size & (size - 1)) || cpu >= LOG_MAX_CPUS)
        return false;
    ring->data = storage;
    ring->size = size;
    ring->cpu = cpu;
    return true;
}

/* ---- Producer -------------------------------------------------------- */

/* Claims need bytes at the head. Compare-and-swap rather than a plain
 * add because an NMI producer on this CPU may move the head in between. */
RING_INLINE bool ring_reserve(struct log_ring *ring, uint64_t need, uint64_t *pos)
{
    uint64_t head = load_relaxed(&ring->head);
    do {
        uint64_t tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
        if (head + need - tail > ring->size)
            return false;
    } while (!__atomic_compare_exchange_n(&ring->head, &head, head + need, false,
                                          __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    *pos = head;
    return true;
}

/* Publishes reserved data once no producer on this CPU is mid-record:
 * only the outermost producer stores the commit position; it re-checks
 * the head afterwards in case an NMI reserved after it read it. */
RING_INLINE void ring_publish(struct log_ring *ring)
{
    for (;;) {
        uint64_t head = __atomic_load_n(&ring->head, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&ring->nest, __ATOMIC_SEQ_CST) > 1) {
            __atomic_fetch_sub(&ring->nest, 1, __ATOMIC_SEQ_CST);
            return;
        }
        __atomic_store_n(&ring->commit, head, __ATOMIC_RELEASE);
        __atomic_fetch_sub(&ring->nest, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&ring->head, __ATOMIC_SEQ_CST) == head)
            return;
        __atomic_fetch_add(&ring->nest, 1, __ATOMIC_SEQ_CST);
    }
}

static void count_drop(struct log_ring *ring)
{
    __atomic_fetch_add(&ring->dropped, 1, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&ring->dropped_total, 1, __ATOMIC_RELAXED);
}

/* Writes the loss entry reserved ahead of a record. The count is claimed
 * only now: if another producer or the drain claimed it meanwhile the
 * entry becomes padding. */
static void put_pending_loss(struct log_ring *ring, uint64_t pos, uint64_t tsc)
{
    uint64_t dropped = __atomic_exchange_n(&ring->dropped, 0, __ATOMIC_SEQ_CST);
    uint8_t fields[RING_LOSS_FIELDS];
    put_u64_le(fields, dropped);
    put_entry(ring, pos, dropped ? RING_TYPE_LOSS : RING_TYPE_PAD, tsc,
              fields, RING_LOSS_FIELDS);
}

static bool valid_record(uint8_t type, size_t len)
{
    return type != 0 && type < LOG_REC_TYPE_COUNT && type != LOG_REC_LOSS &&
           len > 0 && len <= LOG_FIELDS_MAX;
}

/* A valid record's write (the checks are the callers'). */
RING_INLINE bool ring_write(struct log_ring *ring, uint8_t type, uint64_t tsc,
                            const void *fields, size_t len)
{
    __atomic_fetch_add(&ring->nest, 1, __ATOMIC_SEQ_CST);
    uint64_t need = log_ring_entry_size(len);
    uint64_t loss_size = 0;
    if (__atomic_load_n(&ring->dropped, __ATOMIC_SEQ_CST))
        loss_size = log_ring_entry_size(RING_LOSS_FIELDS);
    uint64_t pos;
    bool ok = ring_reserve(ring, need + loss_size, &pos);
    if (ok) {
        if (loss_size)
            put_pending_loss(ring, pos, tsc);
        put_entry(ring, pos + loss_size, type, tsc, fields, len);
        if (ring->hook)
            ring->hook(ring, ring->hook_arg);
    } else {
        count_drop(ring);
    }
    ring_publish(ring);
    return ok;
}

bool log_ring_write(struct log_ring *ring, uint8_t type, uint64_t tsc,
                    const void *fields, size_t len)
{
    if (!valid_record(type, len)) {
        count_drop(ring);
        return false;
    }
    return ring_write(ring, type, tsc, fields, len);
}

bool log_ring_write_sample(struct log_ring *ring, uint64_t tsc, const struct log_sample *s)
{
    uint8_t fields[LOG_SAMPLE_FIELDS_MAX];
    size_t len = log_encode_sample(fields, s);
    if (!len) {
        count_drop(ring);
        return false;
    }
    return ring_write(ring, LOG_REC_SAMPLE, tsc, fields, len);
}

/* ---- Drain ----------------------------------------------------------- */

struct block_builder {
    uint8_t *payload;
    uint8_t *out;           /* next free byte */
    uint8_t *end;           /* limit for ordinary records */
    uint16_t count;
    bool have_tsc;
    uint64_t base_tsc;
    uint64_t prev_tsc;
};

_Static_assert(LOG_VARINT_MAX + LOG_FIELDS_MAX < (1u << 14), "a body length takes two varint bytes at most");

/* Writes type, body length and TSC delta; returns where fields go, or
 * NULL if a record with flen field bytes does not fit before limit.
 * Ordinary records (limit b->end) leave LOSS_WIRE_MAX bytes of the buffer
 * after them, room for the wide varint writer's scratch bytes. */
RING_INLINE uint8_t *begin_record(struct block_builder *b, uint8_t *limit,
                             uint8_t type, uint64_t tsc, size_t flen)
{
    if (!b->have_tsc) {
        b->have_tsc = true;
        b->base_tsc = b->prev_tsc = tsc;
    }
    uint64_t delta = log_zigzag((int64_t)(tsc - b->prev_tsc));
    size_t body = log_varint_size(delta) + flen;
    size_t body_len_size = body > LOG_VARINT_BITS ? 2 : 1;     /* body < 2^14 */
    if (b->out + 1 + body_len_size + body > limit)
        return NULL;
    b->prev_tsc = tsc;
    b->count++;
    uint8_t *p = b->out;
    *p++ = type;
    p += log_varint_put(p, body);
    p += limit == b->end ? log_varint_put_wide(p, delta) : log_varint_put(p, delta);
    b->out = p + flen;
    return p;
}

static bool emit_loss(struct block_builder *b, uint8_t *limit, uint64_t tsc, uint64_t dropped)
{
    uint8_t fields[LOG_LOSS_FIELDS_MAX];
    struct log_loss loss = { .dropped = dropped };
    size_t flen = log_encode_loss(fields, &loss);
    uint8_t *p = begin_record(b, limit, LOG_REC_LOSS, tsc, flen);
    if (!p)
        return false;
    memcpy(p, fields, flen);
    return true;
}

/* Copies one ring entry into the block; false if it does not fit. */
RING_INLINE bool emit_entry(struct block_builder *b, const struct log_ring *ring,
                       uint64_t pos, struct ring_entry e)
{
    uint64_t fields_pos = pos + LOG_RING_ENTRY_HEADER;
    if (e.type == RING_TYPE_LOSS) {
        uint8_t raw[RING_LOSS_FIELDS];
        ring_copy_out(ring, fields_pos, raw, sizeof(raw));
        return emit_loss(b, b->end, e.tsc, get_u64_le(raw));
    }
    uint8_t *p = begin_record(b, b->end, e.type, e.tsc, e.len);
    if (!p)
        return false;
    ring_copy_out(ring, fields_pos, p, e.len);
    return true;
}

/* Moves committed entries from the tail into the block until it is full;
 * returns the ring position reached. */
static uint64_t drain_entries(struct log_ring *ring, struct block_builder *b, uint64_t commit)
{
    uint64_t pos = ring->tail;
    while (pos < commit) {
        struct ring_entry e = get_entry(ring, pos);
        if (e.type != RING_TYPE_PAD && !emit_entry(b, ring, pos, e))
            break;
        if (e.type != RING_TYPE_PAD)
            ring->last_tsc = e.tsc;
        pos += log_ring_entry_size(e.len);
    }
    return pos;
}

static size_t finish_block(struct log_ring *ring, uint8_t *buf, const struct block_builder *b)
{
    struct log_block_header h = {
        .sync = LOG_BLOCK_SYNC,
        .cpu = ring->cpu,
        .payload_len = (uint16_t)(b->out - b->payload),
        .seq = ring->block_seq++,
        .record_count = b->count,
        .first_record = ring->records_out,
        .base_tsc = b->base_tsc,
    };
    log_encode_block_checksums(&h, b->payload);
    memcpy(buf, &h, sizeof(h));
    ring->records_out += b->count;
    return LOG_BLOCK_HEADER_SIZE + h.payload_len;
}

size_t log_ring_read(struct log_ring *ring, void *buf, size_t max)
{
    if (max < LOG_RING_READ_MIN)
        return 0;
    if (max > LOG_BLOCK_HEADER_SIZE + LOG_BLOCK_PAYLOAD_MAX)
        max = LOG_BLOCK_HEADER_SIZE + LOG_BLOCK_PAYLOAD_MAX;
    uint8_t *out = buf;
    struct block_builder b = {
        .payload = out + LOG_BLOCK_HEADER_SIZE,
        .out = out + LOG_BLOCK_HEADER_SIZE,
        .end = out + max - LOSS_WIRE_MAX,
    };
    uint64_t commit = __atomic_load_n(&ring->commit, __ATOMIC_ACQUIRE);
    uint64_t pos = drain_entries(ring, &b, commit);
    if (pos == commit) {
        uint64_t dropped = __atomic_exchange_n(&ring->dropped, 0, __ATOMIC_SEQ_CST);
        if (dropped)
            emit_loss(&b, out + max, ring->last_tsc, dropped);
    }
    __atomic_store_n(&ring->tail, pos, __ATOMIC_RELEASE);
    if (b.count == 0)
        return 0;
    return finish_block(ring, out, &b);
}

uint64_t log_ring_free(const struct log_ring *ring)
{
    uint64_t used = load_relaxed(&ring->head) -
                    __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
    return ring->size - used;
}
