/* Property tests: random record sequences (fixed seeds) written through
 * rings of several sizes, drained in blocks of several sizes, decoded
 * from chunks of several sizes, come back identical and in order. */
#include "tests/unit/unit.h"
#include "tests/unit/test_log_util.h"
#include "vmm/log/log_varint.h"

#include <stdlib.h>

/* Like the hypervisor (log_hv_init): records written with PDEP where the
 * host has BMI2, so these tests check that path's bytes too. */
__attribute__((constructor)) static void probe_varint_writer(void)
{
    log_varint_pdep = __builtin_cpu_supports("bmi2");
}

#define SEEDS 12
#define RECORDS_PER_SEED 400

/* Writes the values into a ring, draining whenever it is nearly full, so
 * no record is dropped; returns the stream. */
static void produce(struct log_test_value *vals, size_t n, uint64_t ring_size, size_t block_max,
                    struct log_test_stream *s)
{
    uint8_t *storage = malloc(ring_size);
    struct log_ring ring;
    CHECK(log_ring_init(&ring, 2, storage, ring_size));
    log_test_stream_header(s, 4);
    for (size_t i = 0; i < n; i++) {
        if (log_ring_free(&ring) < log_ring_entry_size(LOG_FIELDS_MAX))
            log_test_drain(s, &ring, block_max);
        CHECK(log_test_emit(&ring, &vals[i]));
    }
    log_test_drain(s, &ring, block_max);
    CHECK_EQ(ring.dropped_total, 0);
    free(storage);
}

static void check_seed(uint64_t seed)
{
    static struct log_test_value vals[RECORDS_PER_SEED];
    uint64_t rng = seed * 0x9e3779b97f4a7c15ull + 1, tsc = log_test_rand(&rng);
    for (size_t i = 0; i < RECORDS_PER_SEED; i++)
        log_test_random_value(&rng, &tsc, &vals[i]);
    static const uint64_t ring_sizes[] = { 4096, 16384, 1 << 20 };
    static const size_t block_maxes[] = { LOG_RING_READ_MIN, 4096, 70000 };
    static const size_t chunks[] = { 0, 1, 7, 4093 };
    struct log_test_stream s = { 0 };
    produce(vals, RECORDS_PER_SEED, ring_sizes[seed % 3], block_maxes[(seed / 3) % 3], &s);
    struct log_test_decoded d;
    log_test_decode(s.data, s.len, chunks[seed % 4], &d);
    CHECK_EQ(d.count, RECORDS_PER_SEED);
    CHECK_EQ(d.problem_count, 0);
    CHECK_EQ(d.verdict, LOGDEC_CLEAN);
    for (size_t i = 0; i < d.count && i < RECORDS_PER_SEED; i++) {
        if (!log_test_value_matches(&vals[i], &d.values[i])) {
            unit_fail(__FILE__, __LINE__, "seed %llu record %zu (type %u) differs",
                      (unsigned long long)seed, i, vals[i].type);
            break;
        }
        CHECK_EQ(d.records[i].index, i);
    }
    log_test_decoded_free(&d);
    log_test_stream_free(&s);
}

TEST(random_sequences_round_trip)
{
    for (uint64_t seed = 1; seed <= SEEDS; seed++)
        check_seed(seed);
}

TEST(chunking_does_not_change_decode_output)
{
    static struct log_test_value vals[200];
    uint64_t rng = 77, tsc = 5;
    for (size_t i = 0; i < 200; i++)
        log_test_random_value(&rng, &tsc, &vals[i]);
    struct log_test_stream s = { 0 };
    log_test_stream_append(&s, "boot noise\n", 11);
    produce(vals, 200, 8192, 2048, &s);
    struct log_test_decoded whole, bytewise;
    log_test_decode(s.data, s.len, 0, &whole);
    log_test_decode(s.data, s.len, 1, &bytewise);
    CHECK_EQ(whole.count, 200);
    CHECK_EQ(bytewise.count, whole.count);
    CHECK_EQ(bytewise.problem_count, whole.problem_count);
    for (size_t i = 0; i < whole.count && i < bytewise.count; i++)
        CHECK_EQ(whole.records[i].offset, bytewise.records[i].offset);
    log_test_decoded_free(&whole);
    log_test_decoded_free(&bytewise);
    log_test_stream_free(&s);
}
