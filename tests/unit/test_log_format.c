/* Log format basics: CRC32C, varints, zigzag, stream header layout, and a
 * round trip of every record type through encoder, ring, drain, decoder. */
#include "tests/unit/unit.h"
#include "tests/unit/test_log_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host-tools/logdec_crc.h"
#include "lib/log_crc.h"
#include "vmm/log/log_varint.h"

TEST(crc32c_known_vectors)
{
    CHECK_EQ(log_crc32c(0, "123456789", 9), 0xE3069283u);
    CHECK_EQ(log_crc32c(0, "", 0), 0);
    uint8_t zeros[32] = { 0 };
    CHECK_EQ(log_crc32c(0, zeros, sizeof(zeros)), 0x8A9136AAu);   /* RFC 3720 B.4 */
    uint32_t part = log_crc32c(0, "1234", 4);
    CHECK_EQ(log_crc32c(part, "56789", 5), 0xE3069283u);
}

TEST(crc32c_bytewise_known_vectors)
{
    CHECK_EQ(log_crc32c_bytewise(0, "123456789", 9), 0xE3069283u);
    uint8_t ones[32];
    memset(ones, 0xff, sizeof(ones));
    CHECK_EQ(log_crc32c_bytewise(0, ones, sizeof(ones)), 0x62A8AB43u);  /* RFC 3720 B.4 */
}

/* The instruction path (used when the host has SSE4.2) must agree with the
 * table for every length, alignment and continuation point. */
TEST(crc32c_instruction_matches_table)
{
    if (!log_crc32c_hw_available()) {
        printf("  (no SSE4.2 on this host: only the table path runs)\n");
        return;
    }
    uint8_t buf[300];
    uint32_t x = 0x9e3779b9u;
    for (size_t i = 0; i < sizeof(buf); i++) {
        x = x * 1664525u + 1013904223u;
        buf[i] = (uint8_t)(x >> 24);
    }
    for (size_t off = 0; off < 9; off++)
        for (size_t len = 0; len + off <= sizeof(buf); len += 1 + len / 8) {
            uint32_t want = log_crc32c_bytewise(0, buf + off, len);
            CHECK_EQ(log_crc32c(0, buf + off, len), want);
            size_t cut = len / 3;
            CHECK_EQ(log_crc32c(log_crc32c(0, buf + off, cut), buf + off + cut, len - cut), want);
            CHECK_EQ(log_crc32c(0x12345678u, buf + off, len),
                     log_crc32c_bytewise(0x12345678u, buf + off, len));
        }
}

/* The decoder checks payloads with log_crc32c (the code the hypervisor
 * signs them with): on random buffers of random lengths, alignments and
 * starting values it must equal the byte table's answer. */
TEST(crc32c_random_buffers_match_table)
{
    enum { MAX_LEN = 1 << 16, ROUNDS = 200 };
    uint8_t *buf = malloc(MAX_LEN + 8);
    CHECK(buf != NULL);
    if (!buf)
        return;
    unsigned seed = 0x5eed19u;
    srand(seed);
    for (size_t i = 0; i < MAX_LEN + 8; i++)
        buf[i] = (uint8_t)rand();
    for (int r = 0; r < ROUNDS; r++) {
        size_t off = (size_t)rand() % 8;
        size_t len = (size_t)rand() % (r < ROUNDS / 2 ? 64 : MAX_LEN);
        uint32_t start = r % 3 ? (uint32_t)rand() : 0;
        uint32_t fast = log_crc32c(start, buf + off, len);
        uint32_t slow = log_crc32c_bytewise(start, buf + off, len);
        if (fast != slow)
            printf("  seed %#x round %d: off %zu len %zu start %#x\n", seed, r, off, len, start);
        CHECK_EQ(fast, slow);
    }
    free(buf);
}

/* The decoder's three-lane payload check is the same CRC: at every
 * length around the stripe sizes (768 bytes: three lanes of 256), a whole
 * maximal payload and random ones, at every alignment. */
TEST(crc32c_decoder_lanes_match_table)
{
    enum { MAX_LEN = 65535 + 8 };
    uint8_t *buf = malloc(MAX_LEN);
    CHECK(buf != NULL);
    if (!buf)
        return;
    srand(0x1a4e5);
    for (size_t i = 0; i < MAX_LEN; i++)
        buf[i] = (uint8_t)rand();
    for (size_t off = 0; off < 8; off++) {
        for (size_t len = 0; len <= 3 * 768 + 9; len++)
            CHECK_EQ(logdec_crc32c(buf + off, len), log_crc32c_bytewise(0, buf + off, len));
        CHECK_EQ(logdec_crc32c(buf + off, 65535), log_crc32c_bytewise(0, buf + off, 65535));
        size_t len = (size_t)rand() % 65536;
        CHECK_EQ(logdec_crc32c(buf + off, len), log_crc32c_bytewise(0, buf + off, len));
    }
    memset(buf, 0, MAX_LEN);               /* zeros: the shift tables' own input */
    CHECK_EQ(logdec_crc32c(buf, 4096), log_crc32c_bytewise(0, buf, 4096));
    free(buf);
}

TEST(varint_round_trip_edges)
{
    static const uint64_t values[] = { 0, 1, 127, 128, 16383, 16384, UINT32_MAX,
                                       (1ull << 63) - 1, 1ull << 63, UINT64_MAX };
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        uint8_t buf[LOG_VARINT_MAX];
        size_t n = log_varint_put(buf, values[i]);
        CHECK_EQ(n, log_varint_size(values[i]));
        const uint8_t *p = buf;
        uint64_t v = 0;
        CHECK_EQ(log_varint_get(&p, buf + n, &v), 0);
        CHECK_EQ(v, values[i]);
        CHECK(p == buf + n);
        p = buf;
        CHECK_EQ(log_varint_get(&p, buf + n - 1, &v), (uint64_t)-1);  /* cut short */
    }
    CHECK_EQ(log_varint_size(UINT64_MAX), LOG_VARINT_MAX);
    uint8_t too_long[11] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0 };
    const uint8_t *p = too_long;
    uint64_t v;
    CHECK_EQ(log_varint_get(&p, too_long + 11, &v), (uint64_t)-1);
}

/* log_varint_size's closed form against counting 7-bit groups, at every
 * bit length and both sides of every group boundary. */
TEST(varint_size_every_bit_length)
{
    for (unsigned int bits = 0; bits <= 64; bits++) {
        uint64_t top = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;   /* `bits` ones */
        uint64_t values[] = { top, top >> 1, top + (bits < 64) };
        for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
            size_t groups = 1;
            for (uint64_t v = values[i] >> 7; v; v >>= 7)
                groups++;
            CHECK_EQ(log_varint_size(values[i]), groups);
        }
    }
}

/* The wide writer's bytes are log_varint_put's, with PDEP (where the host
 * has BMI2) and without; bytes past the varint are scratch. */
static void check_wide_equals_put(uint64_t v)
{
    uint8_t want[LOG_VARINT_MAX], got[LOG_VARINT_MAX];
    size_t n = log_varint_put(want, v);
    memset(got, 0xa5, sizeof(got));
    CHECK_EQ(log_varint_put_wide(got, v), n);
    CHECK(memcmp(got, want, n) == 0);
}

static void check_wide_values(void)
{
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (unsigned int bits = 0; bits < 64; bits++) {
        check_wide_equals_put(1ull << bits);
        check_wide_equals_put((1ull << bits) - 1);
        check_wide_equals_put((1ull << bits) + 1);
    }
    check_wide_equals_put(UINT64_MAX);
    for (int i = 0; i < 10000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        check_wide_equals_put(x >> (x & 63));
    }
}

TEST(varint_wide_writer_matches_put)
{
    bool pdep = __builtin_cpu_supports("bmi2");
    log_varint_pdep = pdep;
    if (!pdep)
        printf("    (this CPU has no BMI2: only the fallback is checked)\n");
    check_wide_values();
    log_varint_pdep = false;
    check_wide_values();
    log_varint_pdep = pdep;
}

TEST(zigzag_maps_small_magnitudes_small)
{
    CHECK_EQ(log_zigzag(0), 0);
    CHECK_EQ(log_zigzag(-1), 1);
    CHECK_EQ(log_zigzag(1), 2);
    CHECK_EQ(log_zigzag(INT64_MIN), UINT64_MAX);
    static const int64_t values[] = { 0, -5, 5, INT64_MIN, INT64_MAX, -0x7f000000 };
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
        CHECK_EQ(log_unzigzag(log_zigzag(values[i])), values[i]);
}

TEST(stream_header_layout)
{
    struct log_test_stream s = { 0 };
    log_test_stream_header(&s, 3);
    CHECK_EQ(s.len, 64);
    CHECK(memcmp(s.data, "VTGS", 4) == 0);
    CHECK_EQ(s.data[4], LOG_FORMAT_VERSION);
    CHECK_EQ(s.data[6], 64);
    CHECK(memcmp(s.data + 8, "\x04\x03\x02\x01", 4) == 0);
    CHECK_EQ(s.data[12], 3);
    uint32_t crc;
    memcpy(&crc, s.data + 60, 4);
    CHECK_EQ(crc, log_crc32c(0, s.data, 60));
    log_test_stream_free(&s);
}

static void check_one_type_round_trip(uint8_t type)
{
    static uint8_t storage[1 << 16];
    struct log_ring ring;
    struct log_test_value v;
    CHECK(log_ring_init(&ring, 5, storage, sizeof(storage)));
    log_test_example_value(type, 1000 + type, &v);
    CHECK(log_test_emit(&ring, &v));
    struct log_test_stream s = { 0 };
    log_test_stream_header(&s, 8);
    CHECK_EQ(log_test_drain(&s, &ring, 4096), 1);
    struct log_test_decoded d;
    log_test_decode(s.data, s.len, 0, &d);
    CHECK_EQ(d.count, 1);
    CHECK_EQ(d.problem_count, 0);
    CHECK_EQ(d.verdict, LOGDEC_CLEAN);
    if (d.count == 1) {
        CHECK(log_test_value_matches(&v, &d.values[0]) ||
              unit_fail(__FILE__, __LINE__, "type %u differs", type));
        CHECK_EQ(d.records[0].cpu, 5);
    }
    log_test_decoded_free(&d);
    log_test_stream_free(&s);
}

TEST(every_record_type_round_trips)
{
    for (uint8_t type = 1; type < LOG_REC_TYPE_COUNT; type++)
        if (type != LOG_REC_LOSS)
            check_one_type_round_trip(type);
}

TEST(encoder_rejects_values_beyond_limits)
{
    uint8_t out[LOG_FIELDS_MAX];
    struct log_sample s = { .mode = LOG_MODE_COUNT };
    CHECK_EQ(log_encode_sample(out, &s), 0);
    s.mode = 0;
    s.depth = LOG_STACK_MAX + 1;
    CHECK_EQ(log_encode_sample(out, &s), 0);
    struct log_interval iv = { .count = LOG_INTERVAL_EVENTS_MAX + 1 };
    CHECK_EQ(log_encode_interval(out, &iv), 0);
    iv = (struct log_interval){ .instructions = 10, .count = 1, .events = { { 5, 11 } } };
    CHECK_EQ(log_encode_interval(out, &iv), 0);     /* running beyond the interval */
    struct log_console c = { .text = "x", .len = LOG_TEXT_MAX + 1 };
    CHECK_EQ(log_encode_console(out, &c), 0);
    struct log_lifecycle lc = { .event = LOG_LC_EVENT_COUNT };
    CHECK_EQ(log_encode_lifecycle(out, &lc), 0);
    struct log_config cfg = { .text = "", .len = 0 };
    CHECK_EQ(log_encode_config(out, &cfg), 0);
}

TEST(rip_only_sample_is_small)
{
    struct log_sample s = { .domain = 1, .vcpu = 0, .mode = LOG_MODE_GUEST_KERNEL,
                            .event = 0, .rip = 0xffffffff81234567ull };
    uint8_t out[LOG_FIELDS_MAX];
    /* flags, domain, vcpu, event: one byte each; kernel RIP: 5 bytes. */
    CHECK_EQ(log_encode_sample(out, &s), 9);
    s.rip = 0x55555555a123ull;
    CHECK_EQ(log_encode_sample(out, &s), 11);
}
