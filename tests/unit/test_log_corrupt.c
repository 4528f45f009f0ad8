/* Damaged streams: truncated, a flipped byte in a payload or a block
 * header, a missing block, garbage before the header and between blocks,
 * no header at all. Everything intact must decode; every loss must be
 * reported with its exact offset and record count. */
#include "tests/unit/unit.h"
#include "tests/unit/test_log_util.h"

#include <stdlib.h>

#define BLOCKS_MAX 64
#define VALUES 120

/* A clean stream and where each of its blocks starts. */
struct fixture {
    struct log_test_stream s;
    size_t block_off[BLOCKS_MAX];
    size_t block_len[BLOCKS_MAX];
    unsigned block_records[BLOCKS_MAX];
    unsigned blocks;
    struct log_test_value vals[VALUES];
};

static struct fixture *make_fixture(void)
{
    static uint8_t storage[1 << 16];
    struct fixture *f = calloc(1, sizeof(*f));
    struct log_ring ring;
    uint64_t rng = 4242, tsc = 1000;
    CHECK(log_ring_init(&ring, 1, storage, sizeof(storage)));
    log_test_stream_header(&f->s, 2);
    for (unsigned i = 0; i < VALUES; i++) {
        log_test_random_value(&rng, &tsc, &f->vals[i]);
        CHECK(log_test_emit(&ring, &f->vals[i]));
    }
    uint8_t buf[LOG_RING_READ_MIN];
    size_t n;
    while ((n = log_ring_read(&ring, buf, sizeof(buf))) > 0 && f->blocks < BLOCKS_MAX) {
        struct log_block_header h;
        memcpy(&h, buf, sizeof(h));
        f->block_off[f->blocks] = f->s.len;
        f->block_len[f->blocks] = n;
        f->block_records[f->blocks] = h.record_count;
        f->blocks++;
        log_test_stream_append(&f->s, buf, n);
    }
    CHECK(f->blocks >= 6);
    return f;
}

static void free_fixture(struct fixture *f)
{
    log_test_stream_free(&f->s);
    free(f);
}

static unsigned records_before_block(const struct fixture *f, unsigned blk)
{
    unsigned n = 0;
    for (unsigned i = 0; i < blk; i++)
        n += f->block_records[i];
    return n;
}

/* Checks that d holds exactly the values of f except block skip's. */
static void check_all_but_block(const struct fixture *f, const struct log_test_decoded *d,
                                unsigned skip)
{
    unsigned first = records_before_block(f, skip), lost = f->block_records[skip];
    CHECK_EQ(d->count, VALUES - lost);
    for (size_t i = 0; i < d->count; i++) {
        size_t v = i < first ? i : i + lost;
        if (!log_test_value_matches(&f->vals[v], &d->values[i])) {
            unit_fail(__FILE__, __LINE__, "decoded record %zu != value %zu", i, v);
            return;
        }
    }
}

TEST(clean_stream_has_no_problems)
{
    struct fixture *f = make_fixture();
    struct log_test_decoded d;
    log_test_decode(f->s.data, f->s.len, 0, &d);
    CHECK_EQ(d.count, VALUES);
    CHECK_EQ(d.problem_count, 0);
    CHECK_EQ(d.verdict, LOGDEC_CLEAN);
    CHECK_EQ(d.totals.blocks, f->blocks);
    log_test_decoded_free(&d);
    free_fixture(f);
}

TEST(truncated_stream_reports_last_block)
{
    struct fixture *f = make_fixture();
    unsigned last = f->blocks - 1;
    size_t cuts[] = { f->block_off[last] + 2, f->block_off[last] + LOG_BLOCK_HEADER_SIZE + 3,
                      f->block_off[last] + f->block_len[last] - 1 };
    for (unsigned c = 0; c < 3; c++) {
        struct log_test_decoded d;
        log_test_decode(f->s.data, cuts[c], 3, &d);
        check_all_but_block(f, &d, last);
        CHECK_EQ(d.problem_count, 1);
        CHECK_EQ(d.problems[0].kind, LOGDEC_TRUNCATED);
        CHECK_EQ(d.problems[0].offset, f->block_off[last]);
        CHECK_EQ(d.problems[0].bytes, cuts[c] - f->block_off[last]);
        /* With the header intact the loss is known exactly. */
        if (c > 0) {
            CHECK(d.problems[0].records_known);
            CHECK_EQ(d.problems[0].records, f->block_records[last]);
            CHECK_EQ(d.problems[0].seq, last);
        }
        CHECK_EQ(d.verdict, LOGDEC_DAMAGED);
        log_test_decoded_free(&d);
    }
    free_fixture(f);
}

TEST(flipped_payload_byte_loses_one_block)
{
    struct fixture *f = make_fixture();
    unsigned blk = 2;
    f->s.data[f->block_off[blk] + LOG_BLOCK_HEADER_SIZE + 5] ^= 0x10;
    struct log_test_decoded d;
    log_test_decode(f->s.data, f->s.len, 0, &d);
    check_all_but_block(f, &d, blk);
    CHECK_EQ(d.problem_count, 1);
    CHECK_EQ(d.problems[0].kind, LOGDEC_BAD_PAYLOAD);
    CHECK_EQ(d.problems[0].offset, f->block_off[blk]);
    CHECK_EQ(d.problems[0].bytes, f->block_len[blk]);
    CHECK_EQ(d.problems[0].cpu, 1);
    CHECK_EQ(d.problems[0].seq, blk);
    CHECK_EQ(d.problems[0].records, f->block_records[blk]);
    CHECK_EQ(d.totals.records_lost, f->block_records[blk]);
    log_test_decoded_free(&d);
    free_fixture(f);
}

TEST(flipped_header_byte_resyncs_at_next_block)
{
    struct fixture *f = make_fixture();
    unsigned blk = 3;
    f->s.data[f->block_off[blk] + 9] ^= 0x01;   /* inside seq */
    struct log_test_decoded d;
    log_test_decode(f->s.data, f->s.len, 0, &d);
    check_all_but_block(f, &d, blk);
    CHECK_EQ(d.problem_count, 2);
    CHECK_EQ(d.problems[0].kind, LOGDEC_GARBAGE);
    CHECK_EQ(d.problems[0].offset, f->block_off[blk]);
    CHECK_EQ(d.problems[0].bytes, f->block_len[blk]);
    CHECK_EQ(d.problems[1].kind, LOGDEC_MISSING_BLOCKS);
    CHECK_EQ(d.problems[1].offset, f->block_off[blk + 1]);
    CHECK_EQ(d.problems[1].seq, blk);
    CHECK_EQ(d.problems[1].blocks, 1);
    CHECK(d.problems[1].records_known);
    CHECK_EQ(d.problems[1].records, f->block_records[blk]);
    log_test_decoded_free(&d);
    free_fixture(f);
}

TEST(missing_block_reports_exact_records)
{
    struct fixture *f = make_fixture();
    unsigned blk = 1;
    struct log_test_stream cut = { 0 };
    log_test_stream_append(&cut, f->s.data, f->block_off[blk]);
    size_t rest = f->block_off[blk] + f->block_len[blk];
    log_test_stream_append(&cut, f->s.data + rest, f->s.len - rest);
    struct log_test_decoded d;
    log_test_decode(cut.data, cut.len, 0, &d);
    check_all_but_block(f, &d, blk);
    CHECK_EQ(d.problem_count, 1);
    CHECK_EQ(d.problems[0].kind, LOGDEC_MISSING_BLOCKS);
    CHECK_EQ(d.problems[0].offset, f->block_off[blk]);
    CHECK_EQ(d.problems[0].seq, blk);
    CHECK_EQ(d.problems[0].blocks, 1);
    CHECK_EQ(d.problems[0].records, f->block_records[blk]);
    CHECK_EQ(d.verdict, LOGDEC_DAMAGED);
    log_test_decoded_free(&d);
    log_test_stream_free(&cut);
    free_fixture(f);
}

TEST(garbage_prefix_is_skipped_as_a_note)
{
    struct fixture *f = make_fixture();
    static const char noise[] = "Bochs x86 Emulator 2.7\nVTG VTGB VTGS nonsense\n";
    struct log_test_stream s = { 0 };
    log_test_stream_append(&s, noise, sizeof(noise) - 1);
    log_test_stream_append(&s, f->s.data, f->s.len);
    struct log_test_decoded d;
    log_test_decode(s.data, s.len, 5, &d);
    CHECK_EQ(d.count, VALUES);
    CHECK_EQ(d.problem_count, 1);
    CHECK_EQ(d.problems[0].kind, LOGDEC_PREFIX_SKIPPED);
    CHECK_EQ(d.problems[0].offset, 0);
    CHECK_EQ(d.problems[0].bytes, sizeof(noise) - 1);
    CHECK_EQ(d.verdict, LOGDEC_CLEAN);
    if (d.count)
        CHECK_EQ(d.records[0].offset, sizeof(noise) - 1 + LOG_STREAM_HEADER_SIZE +
                                      LOG_BLOCK_HEADER_SIZE);
    log_test_decoded_free(&d);
    log_test_stream_free(&s);
    free_fixture(f);
}

TEST(garbage_between_blocks_is_reported)
{
    struct fixture *f = make_fixture();
    unsigned blk = 2;
    struct log_test_stream s = { 0 };
    log_test_stream_append(&s, f->s.data, f->block_off[blk]);
    log_test_stream_append(&s, "[bochs] hello\n", 14);
    log_test_stream_append(&s, f->s.data + f->block_off[blk], f->s.len - f->block_off[blk]);
    struct log_test_decoded d;
    log_test_decode(s.data, s.len, 0, &d);
    CHECK_EQ(d.count, VALUES);
    CHECK_EQ(d.problem_count, 1);
    CHECK_EQ(d.problems[0].kind, LOGDEC_GARBAGE);
    CHECK_EQ(d.problems[0].offset, f->block_off[blk]);
    CHECK_EQ(d.problems[0].bytes, 14);
    CHECK_EQ(d.verdict, LOGDEC_DAMAGED);
    log_test_decoded_free(&d);
    log_test_stream_free(&s);
    free_fixture(f);
}

TEST(missing_header_is_reported)
{
    struct fixture *f = make_fixture();
    struct log_test_decoded d;
    log_test_decode(f->s.data + LOG_STREAM_HEADER_SIZE, f->s.len - LOG_STREAM_HEADER_SIZE, 0, &d);
    CHECK_EQ(d.count, VALUES);
    CHECK_EQ(d.problem_count, 1);
    CHECK_EQ(d.problems[0].kind, LOGDEC_NO_HEADER);
    CHECK_EQ(d.verdict, LOGDEC_DAMAGED);
    log_test_decoded_free(&d);
    log_test_decode("just text\n", 10, 0, &d);
    CHECK_EQ(d.count, 0);
    CHECK_EQ(d.verdict, LOGDEC_NO_LOG);
    log_test_decoded_free(&d);
    free_fixture(f);
}

TEST(bad_record_inside_good_checksum_is_reported)
{
    /* A block whose checksums are right but whose record claims more
     * bytes than the payload has (an encoder bug, or a crafted input). */
    struct log_test_stream s = { 0 };
    log_test_stream_header(&s, 1);
    uint8_t payload[] = { LOG_REC_LOSS, 0x02, 0x00, 0x05, LOG_REC_CONFIG, 0x7f, 0x00 };
    struct log_block_header h = { .sync = LOG_BLOCK_SYNC, .cpu = 0,
                                  .payload_len = sizeof(payload), .record_count = 3 };
    log_encode_block_checksums(&h, payload);
    log_test_stream_append(&s, &h, sizeof(h));
    log_test_stream_append(&s, payload, sizeof(payload));
    struct log_test_decoded d;
    log_test_decode(s.data, s.len, 0, &d);
    CHECK_EQ(d.count, 1);
    CHECK_EQ(d.problem_count, 1);
    CHECK_EQ(d.problems[0].kind, LOGDEC_BAD_RECORD);
    CHECK_EQ(d.problems[0].offset, LOG_STREAM_HEADER_SIZE + LOG_BLOCK_HEADER_SIZE + 4);
    CHECK_EQ(d.values[0].u.loss.dropped, 5);
    CHECK_EQ(d.problems[0].records, 2);
    log_test_decoded_free(&d);
    log_test_stream_free(&s);
}
