/* Helpers for the log tests, the fixture generator and the fuzzer seeds:
 * record values of every type (random or fixed), emitting them through the
 * hypervisor-side encoder and ring, building streams in memory, and
 * collecting what the decoder reports. No dependency on the unit framework. */
#ifndef TESTS_UNIT_TEST_LOG_UTIL_H
#define TESTS_UNIT_TEST_LOG_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host-tools/logdec.h"
#include "vmm/log/log_encode.h"
#include "vmm/log/log_ring.h"

/* A record value with storage for its text (text pointers point into it). */
struct log_test_value {
    uint8_t type;
    uint64_t tsc;
    union log_record_value u;
    uint8_t text[LOG_TEXT_MAX];
};

/* A growable byte buffer holding a stream. */
struct log_test_stream {
    uint8_t *data;
    size_t len, cap;
};

void log_test_stream_append(struct log_test_stream *s, const void *data, size_t len);
void log_test_stream_free(struct log_test_stream *s);
/* Appends a stream header with fixed, recognizable contents. */
void log_test_stream_header(struct log_test_stream *s, uint16_t cpus);
/* Drains ring into s block by block (blocks of at most block_max bytes);
 * returns the number of blocks. */
unsigned log_test_drain(struct log_test_stream *s, struct log_ring *ring, size_t block_max);

/* Appends one record to payload: its type, body length, the zigzag TSC
 * delta and len field bytes taken as they are (hostile records too). */
void log_test_raw_record(struct log_test_stream *payload, uint8_t type, int64_t tsc_delta,
                         const void *fields, size_t len);
/* Appends a block holding payload (record_count records) to s, with
 * correct checksums, so a decoder reaches the records themselves. */
void log_test_block(struct log_test_stream *s, uint16_t cpu, uint32_t seq, uint64_t first_record,
                    uint64_t base_tsc, uint16_t record_count, const struct log_test_stream *payload);

/* xorshift64 pseudo-random numbers (fixed seeds make tests repeatable). */
uint64_t log_test_rand(uint64_t *state);
/* A random value of a random type (not LOSS), tsc = *tsc plus a random step. */
void log_test_random_value(uint64_t *rng, uint64_t *tsc, struct log_test_value *v);
/* A fixed example value of type (for round trips of every type). */
void log_test_example_value(uint8_t type, uint64_t tsc, struct log_test_value *v);
/* Encodes and writes v to ring through log_emit_*; returns its result. */
bool log_test_emit(struct log_ring *ring, const struct log_test_value *v);
/* True if got (a decoded record, see log_test_decoded) carries exactly
 * the type, TSC and values of v. */
bool log_test_value_matches(const struct log_test_value *v, const struct log_test_value *got);

/* Everything a decoder reported, copied out of the callbacks. */
struct log_test_decoded {
    struct log_test_value *values;      /* decoded records as values */
    struct logdec_record *records;      /* metadata only: u and raw are stale */
    size_t count, cap;
    struct logdec_problem problems[256];
    size_t problem_count;
    uint64_t headers;
    struct logdec_totals totals;
    enum logdec_verdict verdict;
};

/* Decodes data feeding chunk bytes at a time (0: all at once). */
void log_test_decode(const void *data, size_t len, size_t chunk, struct log_test_decoded *out);
/* Drains ring (a stream of one CPU) and decodes what it held into out. */
void log_test_decode_ring(struct log_ring *ring, struct log_test_decoded *out);
void log_test_decoded_free(struct log_test_decoded *d);
/* Decodes data into text exactly as `vertigo decode` prints it; the
 * caller frees the returned NUL-terminated string. */
char *log_test_decode_text(const void *data, size_t len);
/* The same with the copy of the decoder's loop that packs varints with
 * PEXT (pext 1, where the CPU has BMI2) or with shifts (0); -1: the copy
 * the decoder chose. */
char *log_test_decode_text_loop(const void *data, size_t len, int pext);

#endif
