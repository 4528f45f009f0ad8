/* The decoder's fast path for samples (host-tools/logdec_fast.h) against
 * the general one (logdec_parse_fields): on samples the real encoder
 * writes it decodes the same fields, and on mutated or cut records it
 * either declines or agrees with the general path, never accepting what
 * the general path refuses. Both of its varint packings (PEXT, where the
 * CPU has BMI2, and the shift/mask steps) are checked, and the whole
 * decoder with each copy of its loop. */
#include "tests/unit/unit.h"

#include <stdlib.h>

#include "host-tools/logdec_fast.h"
#include "tests/unit/test_log_util.h"
#include "vmm/log/log_encode.h"

#define ROUNDS 20000u
#define BUF_MAX (LOG_RECORD_WIRE_MAX + LOGDEC_TAIL)

static uint64_t rng_state = 0x243f6a8885a308d3ull;

static uint64_t rng(void)
{
    return log_test_rand(&rng_state);
}

/* A value of about `bits` significant bits, small ones most often. */
static uint64_t rand_bits(unsigned int max_bits)
{
    unsigned int bits = (unsigned int)(rng() % (max_bits + 1u));
    return bits >= 64 ? rng() : rng() & ((1ull << bits) - 1u);
}

static void random_sample(struct log_sample *s)
{
    memset(s, 0, sizeof(*s));
    s->mode = (uint8_t)(rng() % LOG_MODE_COUNT);
    s->domain = (uint32_t)rand_bits(rng() % 4 ? 7 : 32);
    s->vcpu = (uint32_t)rand_bits(rng() % 4 ? 7 : 32);
    s->event = (uint32_t)rand_bits(rng() % 4 ? 7 : 32);
    s->rip = rng() % 2 ? 0xffffffff81000000ull + rand_bits(24) : rand_bits(rng() % 8 ? 47 : 64);
    s->has_cr3 = rng() % 2;
    s->cr3 = s->has_cr3 ? rand_bits(rng() % 8 ? 52 : 64) : 0;
    s->depth = rng() % 3 ? (uint32_t)(rng() % (LOG_STACK_MAX + 1u)) : 0;
    for (uint32_t i = 0; i < s->depth; i++)
        s->stack[i] = s->rip + (uint64_t)(int64_t)(int32_t)rand_bits(rng() % 8 ? 20 : 31) -
                      (rng() % 16 ? 0 : rng());
}

static bool same_sample(const struct log_sample *a, const struct log_sample *b)
{
    bool same = a->mode == b->mode && a->domain == b->domain && a->vcpu == b->vcpu &&
                a->event == b->event && a->rip == b->rip && a->has_cr3 == b->has_cr3 &&
                a->cr3 == b->cr3 && a->depth == b->depth;
    for (uint32_t i = 0; same && i < a->depth; i++)
        same = a->stack[i] == b->stack[i];
    return same;
}

/* Whether s's head is one byte each and its RIP and CR3 fit one load
 * (then the fast path must take it: a stack's deltas may have any size). */
static bool fast_shape(const struct log_sample *s)
{
    return s->domain < 128 && s->vcpu < 128 && s->event < 128 &&
           log_zigzag((int64_t)s->rip) >> 56 == 0 && (!s->has_cr3 || s->cr3 >> 56 == 0);
}

/* Whether a stack delta of s takes more than 8 bytes. */
static bool has_long_delta(const struct log_sample *s)
{
    uint64_t prev = s->rip;
    bool found = false;
    for (uint32_t i = 0; i < s->depth; i++) {
        found |= log_zigzag((int64_t)(s->stack[i] - prev)) >> 56 != 0;
        prev = s->stack[i];
    }
    return found;
}

static bool have_pext(void)
{
    return __builtin_cpu_supports("bmi2");
}

/* The fast path on the fields [buf, buf + len), the bytes after them set
 * to fill (it must not depend on them). */
static bool fast_fields(uint8_t *buf, size_t len, uint8_t fill, bool pext, struct log_sample *out)
{
    memset(buf + len, fill, LOGDEC_TAIL);
    return pext ? logdec_fast_sample(out, buf, buf + len, true)
                : logdec_fast_sample(out, buf, buf + len, false);
}

static bool general_fields(const uint8_t *buf, size_t len, struct log_sample *out)
{
    struct logdec_record r = { .type = LOG_REC_SAMPLE };
    if (logdec_parse_fields(&r, buf, buf + len) != 0)
        return false;
    *out = r.u.sample;
    return true;
}

/* One body both ways: a fast answer is the general one. Returns whether
 * the fast path took it. */
static bool check_body(uint8_t *buf, size_t len, bool pext)
{
    struct log_sample fast, general;
    if (len < LOGDEC_FAST_SAMPLE_MIN)
        return false;
    bool took = fast_fields(buf, len, 0, pext, &fast);
    struct log_sample again;
    CHECK(fast_fields(buf, len, 0xff, pext, &again) == took);
    bool ok = general_fields(buf, len, &general);
    if (took) {
        CHECK(ok);
        CHECK(same_sample(&fast, &general));
        CHECK(same_sample(&fast, &again));
    }
    return took;
}

TEST(fast_sample_equals_general_on_encoded)
{
    static uint8_t buf[BUF_MAX];
    for (int variant = 0; variant < 2; variant++) {
        bool pext = variant == 1;
        if (pext && !have_pext())
            continue;
        unsigned int taken = 0, shaped = 0, long_deltas = 0;
        for (unsigned int i = 0; i < ROUNDS; i++) {
            struct log_sample s;
            random_sample(&s);
            size_t len = log_encode_sample(buf, &s);
            bool took = check_body(buf, len, pext);
            struct log_sample general;
            CHECK(general_fields(buf, len, &general) && same_sample(&general, &s));
            if (fast_shape(&s)) {
                shaped++;
                long_deltas += has_long_delta(&s);
                CHECK(took);
            }
            taken += took;
        }
        CHECK(shaped > ROUNDS / 4);
        CHECK(long_deltas > ROUNDS / 100);     /* 9- and 10-byte deltas were taken */
        CHECK(taken >= shaped);
    }
}

TEST(fast_sample_declines_or_agrees_on_damage)
{
    static uint8_t buf[BUF_MAX];
    for (int variant = 0; variant < 2; variant++) {
        bool pext = variant == 1;
        if (pext && !have_pext())
            continue;
        unsigned int taken = 0;
        for (unsigned int i = 0; i < ROUNDS; i++) {
            struct log_sample s;
            random_sample(&s);
            size_t len = log_encode_sample(buf, &s);
            switch (rng() % 3) {
            case 0:                                 /* one byte changed */
                buf[rng() % len] ^= (uint8_t)(1u << (rng() % 8));
                break;
            case 1:                                 /* cut short */
                len = (size_t)(rng() % len);
                break;
            default:                                /* bytes appended */
                for (unsigned int k = (unsigned int)(rng() % 4); k; k--)
                    buf[len++] = (uint8_t)rng();
                break;
            }
            taken += check_body(buf, len, pext);
        }
        CHECK(taken > 0);
    }
}

/* A whole record: the frame (type, one-byte length, TSC delta) too. */
TEST(fast_record_frames_like_general)
{
    static uint8_t buf[BUF_MAX + 64];
    unsigned int long_records = 0;
    for (unsigned int i = 0; i < ROUNDS; i++) {
        struct log_sample s;
        random_sample(&s);
        uint8_t fields[LOG_RECORD_WIRE_MAX];
        size_t flen = log_encode_sample(fields, &s);
        size_t n = 0;
        buf[n++] = rng() % 8 ? LOG_REC_SAMPLE : (uint8_t)rng();
        uint64_t delta = log_zigzag((int64_t)rand_bits(40) - (int64_t)rand_bits(20));
        uint8_t head[2 * LOG_VARINT_MAX];
        size_t dlen = log_varint_put(head, delta);
        n += log_varint_put(buf + n, dlen + flen);
        memcpy(buf + n, head, dlen);
        memcpy(buf + n + dlen, fields, flen);
        n += dlen + flen;
        size_t end = rng() % 4 ? n : (size_t)(rng() % (n + 1));   /* payload cut short */
        memset(buf + end, 0xff, LOGDEC_TAIL);
        struct logdec_record r = { .tsc = 1000 };
        const uint8_t *p = buf;
        bool took = end && logdec_fast_record(&r, &p, buf + end, false);
        if (buf[0] == LOG_REC_SAMPLE && end == n && fast_shape(&s)) {
            CHECK(took);                    /* a whole record: a length of 1 or 2 bytes */
            long_records += took && dlen + flen > 127;
        }
        if (!took)
            continue;
        /* What the general path reads there. */
        const uint8_t *q = buf + 1;
        uint64_t body_len, d;
        CHECK(buf[0] == LOG_REC_SAMPLE);
        CHECK(log_varint_get(&q, buf + end, &body_len) == 0 && body_len <= (uint64_t)(buf + end - q));
        const uint8_t *body_end = q + body_len;
        CHECK(p == body_end);
        CHECK(log_varint_get(&q, body_end, &d) == 0 && d == delta);
        CHECK_EQ(r.tsc, 1000 + (uint64_t)log_unzigzag(delta));
        struct log_sample general;
        CHECK(general_fields(q, (size_t)(body_end - q), &general));
        CHECK(same_sample(&general, &r.u.sample));
        CHECK(r.raw == q && r.raw_len == (uint32_t)(body_end - q));
    }
    CHECK(long_records > 0);
}

/* Fields of LOG_FIELDS_MAX bytes (a sample and bytes after it) are taken;
 * one byte more and the general path refuses the record, so the fast path
 * must decline it too (a 2-byte length reaches 16383). */
TEST(fast_record_declines_fields_past_the_limit)
{
    static uint8_t buf[2 * LOG_FIELDS_MAX + LOGDEC_TAIL];
    for (size_t flen = LOG_FIELDS_MAX; flen <= LOG_FIELDS_MAX + 1; flen++) {
        struct log_sample s;
        random_sample(&s);
        s.domain = s.vcpu = s.event = 1;
        s.has_cr3 = false;
        s.depth = 0;
        size_t n = 0;
        buf[n++] = LOG_REC_SAMPLE;
        n += log_varint_put(buf + n, 1 + flen);
        buf[n++] = 0;                                   /* TSC delta 0 */
        memset(buf + n, 0, flen);
        log_encode_sample(buf + n, &s);
        n += flen;
        memset(buf + n, 0xff, LOGDEC_TAIL);
        struct logdec_record r = { .tsc = 0 };
        const uint8_t *p = buf;
        struct log_sample general;
        bool ok = general_fields(buf + n - flen, flen, &general);
        CHECK(logdec_fast_record(&r, &p, buf + n, false) == ok);
        CHECK(ok == (flen <= LOG_FIELDS_MAX));
        CHECK(!ok || same_sample(&general, &r.u.sample));
    }
}

/* The RIP-only path (logdec_fast_rip_record) on whole, cut and mutated
 * records of every shape: what it takes, logdec_fast_record takes the
 * same way (and that one agrees with the general path, above); a whole
 * RIP-only sample with one-byte head fields, a TSC delta and RIP of at
 * most 8 bytes each, no bytes after the RIP and a body of at most 16
 * bytes it must take. Both varint packings. */
TEST(rip_record_is_the_fast_record_of_rip_only_samples)
{
    static uint8_t buf[BUF_MAX + 64];
    unsigned int rip_only = 0, taken = 0;
    logdec_fast_shapes_build();
    for (unsigned int variant = 0; variant < 2; variant++) {
        bool pext = variant == 1;
        if (pext && !have_pext())
            continue;
        for (unsigned int i = 0; i < ROUNDS; i++) {
            struct log_sample s;
            random_sample(&s);
            if (rng() % 2) {
                s.has_cr3 = false;
                s.cr3 = 0;
                s.depth = 0;
                if (rng() % 2) {                /* one-byte head fields */
                    s.domain &= LOGDEC_FAST_GROUP;
                    s.vcpu &= LOGDEC_FAST_GROUP;
                    s.event &= LOGDEC_FAST_GROUP;
                }
            }
            uint8_t fields[LOG_RECORD_WIRE_MAX];
            size_t flen = log_encode_sample(fields, &s);
            uint8_t head[LOG_VARINT_MAX];
            size_t dlen = log_varint_put(head, log_zigzag((int64_t)rand_bits(40) - (int64_t)rand_bits(20)));
            size_t n = 0;
            buf[n++] = rng() % 8 ? LOG_REC_SAMPLE : (uint8_t)rng();
            size_t body = dlen + flen + (rng() % 8 ? 0 : rng() % 3);   /* bytes after the fields */
            n += log_varint_put(buf + n, body);
            memcpy(buf + n, head, dlen);
            memcpy(buf + n + dlen, fields, flen);
            n += dlen + flen;
            memset(buf + n, 0, 2);
            if (rng() % 3 == 0)                                  /* a mutated byte */
                buf[rng() % n] = (uint8_t)rng();
            size_t end = rng() % 4 ? n + 2 : (size_t)(rng() % (n + 3));   /* or cut short */
            memset(buf + end, rng() % 2 ? 0xff : 0, LOGDEC_TAIL);
            struct logdec_record a = { .tsc = 1000 }, b = { .tsc = 1000 };
            const uint8_t *pa = buf, *pb = buf;
            bool took = end && (pext ? logdec_fast_rip_record(&a, &pa, buf + end, true)
                                     : logdec_fast_rip_record(&a, &pa, buf + end, false));
            bool whole = end == n + 2 && buf[0] == LOG_REC_SAMPLE && buf[1] == body && body < 0x80 &&
                         !memcmp(buf + 2, head, dlen) && !memcmp(buf + 2 + dlen, fields, flen);
            if (whole && !s.has_cr3 && s.depth == 0 && fast_shape(&s) && dlen <= 8 &&
                body == dlen + flen && body <= LOGDEC_FAST_RIP_BODY_MAX && end >= LOGDEC_FAST_RIP_ROOM) {
                CHECK(took);
                rip_only++;
            }
            if (!took)
                continue;
            taken++;
            CHECK(pext ? logdec_fast_record(&b, &pb, buf + end, true)
                       : logdec_fast_record(&b, &pb, buf + end, false));
            CHECK(pa == pb && a.tsc == b.tsc && a.type == b.type);
            CHECK(a.raw == b.raw && a.raw_len == b.raw_len);
            CHECK(same_sample(&a.u.sample, &b.u.sample));
        }
    }
    CHECK(rip_only > ROUNDS / 16);
    CHECK(taken >= rip_only);
}

/* The fast path's unzigzag is log_unzigzag, at the ends of the range and
 * on random values. */
TEST(fast_unzigzag_is_log_unzigzag)
{
    static const uint64_t edges[] = { 0, 1, 2, 3, UINT64_MAX, UINT64_MAX - 1, 1ull << 63, (1ull << 63) - 1 };
    for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
        CHECK_EQ(logdec_fast_unzigzag(edges[i]), log_unzigzag(edges[i]));
    for (unsigned int i = 0; i < ROUNDS; i++) {
        uint64_t v = rng();
        CHECK_EQ(logdec_fast_unzigzag(v), log_unzigzag(v));
        CHECK_EQ(logdec_fast_unzigzag(log_zigzag((int64_t)v)), (int64_t)v);
    }
}

/* The high bits of 16 bytes: PMOVMSKB and the multiply that gathers them
 * without vector instructions agree with a byte-by-byte loop. */
TEST(fast_high_bits_are_each_bytes_top_bit)
{
    uint8_t buf[16];
    for (unsigned int i = 0; i < ROUNDS; i++) {
        for (unsigned int k = 0; k < sizeof(buf); k++)
            buf[k] = (uint8_t)rng();
        uint32_t want = 0;
        for (unsigned int k = 0; k < sizeof(buf); k++)
            want |= (uint32_t)(buf[k] >> 7) << k;
        CHECK_EQ(logdec_fast_high_bits(buf), want);
        CHECK_EQ(logdec_fast_high_bits_portable(buf), want);
    }
}

/* BZHI and the shifts keep the same low bits, for every cut the fast
 * path can ask (a record's length byte: 0..255). */
TEST(fast_low_bits_cut_like_a_mask)
{
    for (unsigned int n = 0; n < 256; n++) {
        uint32_t v = (uint32_t)rng() & 0xffffu;
        uint32_t want = n >= 16 ? v : v & ((1u << n) - 1u);
        CHECK_EQ(logdec_fast_low_bits(v, n, false), want);
        if (have_pext())
            CHECK_EQ(logdec_fast_low_bits(v, n, true), want);
    }
}

/* The shape table holds exactly the RIP-only bodies: for each key with a
 * frame, the frame is a sample's type and a body length of at most 16,
 * the key is the continuation bits of a delta of delta_len bytes, four
 * one-byte head fields and a RIP of the bytes left (1..8), raw_len counts
 * the head and the RIP, and every such body has its entry (54 of them). */
TEST(fast_shapes_are_the_rip_only_bodies)
{
    logdec_fast_shapes_build();
    unsigned int shapes = 0;
    for (uint32_t key = 0; key < LOGDEC_FAST_SHAPES; key++) {
        const struct logdec_fast_shape *e = &logdec_fast_tables.shapes[key];
        if (!e->frame)
            continue;
        shapes++;
        unsigned int len = e->frame >> 8, dn = e->delta_len;
        CHECK_EQ(e->frame & 0xffu, LOG_REC_SAMPLE);
        CHECK(len <= LOGDEC_FAST_RIP_BODY_MAX && dn >= 1 && dn <= 8);
        CHECK(len > dn + LOGDEC_FAST_RIP_HEAD && len - dn - LOGDEC_FAST_RIP_HEAD <= 8);
        CHECK_EQ(e->raw_len, len - dn);
        unsigned int rn = len - dn - LOGDEC_FAST_RIP_HEAD;
        uint32_t want = 0;
        for (unsigned int i = 0; i + 1 < dn; i++)
            want |= 1u << i;
        for (unsigned int i = 0; i + 1 < rn; i++)
            want |= 1u << (dn + LOGDEC_FAST_RIP_HEAD + i);
        CHECK_EQ(key, want);
    }
    CHECK_EQ(shapes, 54u);
}

/* A zigzag varint of 1..8 bytes read signed (PEXT of all but its lowest
 * bit, and the shifts) is log_unzigzag of its value, whatever follows it. */
TEST(fast_signed_is_log_unzigzag_of_the_varint)
{
    uint8_t buf[LOG_VARINT_MAX + 8];
    for (unsigned int i = 0; i < ROUNDS; i++) {
        uint64_t v = rand_bits(56);
        memset(buf, (int)(rng() & 0xff), sizeof(buf));
        size_t n = log_varint_put(buf, v);
        CHECK(n >= 1 && n <= LOGDEC_FAST_VARINT_MAX);
        uint64_t w = logdec_fast_load(buf);
        CHECK_EQ(logdec_fast_signed(w, n, false), log_unzigzag(v));
        if (have_pext())
            CHECK_EQ(logdec_fast_signed(w, n, true), log_unzigzag(v));
    }
}

/* A RIP-only sample, most with one-byte head fields. */
static void random_rip_only(struct log_sample *s)
{
    random_sample(s);
    s->has_cr3 = false;
    s->cr3 = 0;
    s->depth = 0;
    if (rng() % 4) {
        s->domain &= LOGDEC_FAST_GROUP;
        s->vcpu &= LOGDEC_FAST_GROUP;
        s->event &= LOGDEC_FAST_GROUP;
    }
}

/* Blocks of RIP-only samples with good checksums but a byte changed, a
 * record cut or a wrong record count: bad records the loops must stop at. */
static void hostile_blocks(struct log_test_stream *s, uint32_t *seq, uint64_t *first)
{
    for (unsigned int b = 0; b < 200; b++) {
        struct log_test_stream payload = { 0 };
        unsigned int count = 1 + (unsigned int)(rng() % 40);
        for (unsigned int i = 0; i < count; i++) {
            struct log_sample smp;
            random_rip_only(&smp);
            uint8_t fields[LOG_RECORD_WIRE_MAX];
            size_t flen = log_encode_sample(fields, &smp);
            log_test_raw_record(&payload, LOG_REC_SAMPLE, (int64_t)rand_bits(30) - (int64_t)rand_bits(10),
                                fields, flen);
        }
        if (rng() % 2)
            payload.data[rng() % payload.len] ^= (uint8_t)(1u << (rng() % 8));
        if (rng() % 4 == 0)
            payload.len -= (size_t)(rng() % payload.len);
        uint16_t said = (uint16_t)(count + (rng() % 4 == 0 ? (unsigned int)(rng() % 3) - 1u : 0u));
        log_test_block(s, 0, (*seq)++, *first, rng(), said, &payload);
        *first += said;
        log_test_stream_free(&payload);
    }
}

/* The whole decoder with either copy of its loop prints the same for a
 * stream of RIP-only samples of every shape among records of every type
 * (blocks of several sizes), and for hostile blocks of RIP-only samples. */
TEST(decoder_loops_agree)
{
    static uint8_t storage[1u << 16];
    struct log_test_stream s = { 0 };
    struct log_ring ring;
    CHECK(log_ring_init(&ring, 0, storage, sizeof(storage)));
    log_test_stream_header(&s, 1);
    uint64_t tsc = 1000, vrng = 0x9e3779b97f4a7c15ull;
    for (unsigned int i = 0; i < 4 * ROUNDS; i++) {
        if (log_ring_free(&ring) < log_ring_entry_size(LOG_FIELDS_MAX))
            log_test_drain(&s, &ring, 256 + (size_t)(rng() % 4000));
        struct log_test_value v;
        if (rng() % 8) {
            v.type = LOG_REC_SAMPLE;
            tsc += rand_bits(rng() % 8 ? 24 : 60);
            v.tsc = tsc;
            random_rip_only(&v.u.sample);
        } else {
            log_test_random_value(&vrng, &tsc, &v);
        }
        CHECK(log_test_emit(&ring, &v));
    }
    log_test_drain(&s, &ring, 4000);
    CHECK_EQ(ring.dropped_total, 0);
    uint32_t seq = ring.block_seq;
    uint64_t first = ring.records_out;
    hostile_blocks(&s, &seq, &first);
    char *shifts = log_test_decode_text_loop(s.data, s.len, 0);
    char *usual = log_test_decode_text(s.data, s.len);
    CHECK(!strcmp(shifts, usual));
    CHECK(strstr(usual, "bad-record") != NULL);
    if (have_pext()) {
        char *pext = log_test_decode_text_loop(s.data, s.len, 1);
        CHECK(!strcmp(pext, usual));
        free(pext);
    }
    free(shifts);
    free(usual);
    log_test_stream_free(&s);
}
