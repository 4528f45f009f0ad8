/* Per-CPU ring: exact overflow accounting, loss record placement, NMI
 * nesting between reserve and commit (simulated by the test hook),
 * wrap-around, block numbering, and drain limits. */
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

#define RING_SIZE 4096u
static uint8_t storage[RING_SIZE];

static void sample_value(struct log_test_value *v, uint64_t tsc)
{
    log_test_example_value(LOG_REC_SAMPLE, tsc, v);
}

static void drain_and_decode(struct log_ring *ring, size_t block_max, struct log_test_decoded *d)
{
    struct log_test_stream s = { 0 };
    log_test_stream_header(&s, 1);
    log_test_drain(&s, ring, block_max);
    log_test_decode(s.data, s.len, 0, d);
    log_test_stream_free(&s);
}

TEST(overflow_drops_whole_records_and_counts_exactly)
{
    struct log_ring ring;
    struct log_test_value v;
    CHECK(log_ring_init(&ring, 0, storage, RING_SIZE));
    const unsigned n = 1000;
    unsigned accepted = 0;
    for (unsigned i = 0; i < n; i++) {
        sample_value(&v, 300);     /* same fields, same size each time */
        v.tsc = 100 + i;
        accepted += log_test_emit(&ring, &v);
    }
    uint8_t fields[LOG_FIELDS_MAX];
    sample_value(&v, 300);
    uint64_t entry = log_ring_entry_size(log_encode_sample(fields, &v.u.sample));
    CHECK(accepted < n);
    CHECK_EQ(ring.dropped_total, n - accepted);
    struct log_test_decoded d;
    drain_and_decode(&ring, 70000, &d);
    CHECK_EQ(d.count, accepted + 1);
    for (unsigned i = 0; i < accepted && i < d.count; i++) {
        sample_value(&v, 300);
        v.tsc = 100 + i;
        CHECK(log_test_value_matches(&v, &d.values[i]));
    }
    if (d.count == accepted + 1) {
        CHECK_EQ(d.records[accepted].type, LOG_REC_LOSS);
        CHECK_EQ(d.values[accepted].u.loss.dropped, n - accepted);
    }
    CHECK_EQ(d.totals.ring_dropped, n - accepted);
    CHECK_EQ(d.verdict, LOGDEC_DAMAGED);
    /* Equal-size entries: exactly as many as fit in the ring are kept. */
    uint64_t fit = RING_SIZE / entry;
    CHECK(accepted == fit || unit_fail(__FILE__, __LINE__, "accepted %u, fit %llu",
                                       accepted, (unsigned long long)fit));
    log_test_decoded_free(&d);
}

TEST(loss_record_precedes_next_record_that_fits)
{
    struct log_ring ring;
    struct log_test_value v;
    CHECK(log_ring_init(&ring, 0, storage, RING_SIZE));
    unsigned accepted = 0, dropped = 0;
    for (unsigned i = 0; i < 200; i++) {
        sample_value(&v, i);
        if (log_test_emit(&ring, &v))
            accepted++;
        else
            dropped++;
    }
    CHECK(dropped > 0);
    /* Drain one small block only: the drain does not reach the commit
     * point, so it leaves the drop count to the producer. */
    struct log_test_stream s = { 0 };
    log_test_stream_header(&s, 1);
    uint8_t buf[LOG_RING_READ_MIN];
    size_t n = log_ring_read(&ring, buf, sizeof(buf));
    CHECK(n > 0);
    log_test_stream_append(&s, buf, n);
    sample_value(&v, 5000);
    CHECK(log_test_emit(&ring, &v));
    log_test_drain(&s, &ring, 70000);
    struct log_test_decoded d;
    log_test_decode(s.data, s.len, 0, &d);
    CHECK_EQ(d.count, accepted + 2);
    if (d.count == accepted + 2) {
        CHECK_EQ(d.records[accepted].type, LOG_REC_LOSS);
        CHECK_EQ(d.values[accepted].u.loss.dropped, dropped);
        CHECK_EQ(d.records[accepted].tsc, 5000);
        CHECK(log_test_value_matches(&v, &d.values[accepted + 1]));
    }
    CHECK_EQ(ring.dropped, 0);
    log_test_decoded_free(&d);
    log_test_stream_free(&s);
}

/* ---- Nesting: an "NMI" producer runs between reserve and commit. ---- */

struct nest_state {
    int depth_left;          /* further nested producers to run */
    unsigned committed_seen; /* records a drain saw from inside the hook */
    uint64_t tsc;
};

static void nested_producer(struct log_ring *ring, void *arg)
{
    struct nest_state *st = arg;
    uint8_t buf[LOG_RING_READ_MIN];
    /* The outer record is reserved but not committed: a drain here must
     * see nothing new. */
    st->committed_seen += log_ring_read(ring, buf, sizeof(buf)) > 0;
    if (st->depth_left-- <= 0) {
        ring->hook = NULL;
        return;
    }
    struct log_test_value v;
    log_test_example_value(LOG_REC_LIFECYCLE, ++st->tsc, &v);
    CHECK(log_test_emit(ring, &v));
    st->committed_seen += log_ring_read(ring, buf, sizeof(buf)) > 0;
}

TEST(nested_producer_between_reserve_and_commit)
{
    struct log_ring ring;
    struct nest_state st = { .depth_left = 2, .tsc = 100 };
    CHECK(log_ring_init(&ring, 3, storage, RING_SIZE));
    ring.hook = nested_producer;
    ring.hook_arg = &st;
    struct log_test_value outer;
    sample_value(&outer, 50);
    CHECK(log_test_emit(&ring, &outer));
    CHECK_EQ(st.committed_seen, 0);
    CHECK_EQ(ring.nest, 0);
    CHECK_EQ(ring.commit, ring.head);
    struct log_test_decoded d;
    drain_and_decode(&ring, 4096, &d);
    /* Reservation order: outer, first nested, second nested. */
    CHECK_EQ(d.count, 3);
    if (d.count == 3) {
        CHECK(log_test_value_matches(&outer, &d.values[0]));
        CHECK_EQ(d.records[1].type, LOG_REC_LIFECYCLE);
        CHECK_EQ(d.records[1].tsc, 101);
        CHECK_EQ(d.records[2].tsc, 102);
    }
    CHECK_EQ(d.problem_count, 0);
    log_test_decoded_free(&d);
}

static void nested_dropper(struct log_ring *ring, void *arg)
{
    unsigned *drops = arg;
    ring->hook = NULL;
    struct log_test_value v;
    for (unsigned i = 0; i < 500; i++) {
        log_test_example_value(LOG_REC_SAMPLE, 7, &v);
        *drops += !log_test_emit(ring, &v);
    }
}

TEST(nested_drops_are_counted_once)
{
    struct log_ring ring;
    unsigned drops = 0;
    CHECK(log_ring_init(&ring, 0, storage, RING_SIZE));
    ring.hook = nested_dropper;
    ring.hook_arg = &drops;
    struct log_test_value v;
    sample_value(&v, 1);
    CHECK(log_test_emit(&ring, &v));
    CHECK(drops > 0);
    struct log_test_decoded d;
    drain_and_decode(&ring, 70000, &d);
    CHECK_EQ(d.totals.ring_dropped, drops);
    CHECK_EQ(d.count + drops, 501 + 1);   /* records + dropped = produced, + one loss record */
    log_test_decoded_free(&d);
}

TEST(wrap_around_keeps_records_intact)
{
    struct log_ring ring;
    CHECK(log_ring_init(&ring, 1, storage, RING_SIZE));
    uint64_t rng = 99, tsc = 0;
    static struct log_test_value vals[300];
    struct log_test_stream s = { 0 };
    log_test_stream_header(&s, 2);
    for (unsigned i = 0; i < 300; i++) {
        log_test_random_value(&rng, &tsc, &vals[i]);
        while (log_ring_free(&ring) < log_ring_entry_size(LOG_FIELDS_MAX))
            log_test_drain(&s, &ring, LOG_RING_READ_MIN);
        CHECK(log_test_emit(&ring, &vals[i]));
    }
    log_test_drain(&s, &ring, LOG_RING_READ_MIN);
    CHECK(ring.tail > 4 * RING_SIZE);
    struct log_test_decoded d;
    log_test_decode(s.data, s.len, 0, &d);
    CHECK_EQ(d.count, 300);
    for (unsigned i = 0; i < 300 && i < d.count; i++)
        CHECK(log_test_value_matches(&vals[i], &d.values[i]));
    CHECK_EQ(d.problem_count, 0);
    log_test_decoded_free(&d);
    log_test_stream_free(&s);
}

/* Console fields of len bytes: source, then text. */
static bool write_filler(struct log_ring *ring, uint64_t tsc, size_t len)
{
    static uint8_t fields[LOG_FIELDS_MAX];
    memset(fields, 'x', sizeof(fields));
    fields[0] = LOG_CONSOLE_HYPERVISOR;
    return log_ring_write(ring, LOG_REC_CONSOLE, tsc, fields, len);
}

/* Fillers (drained as they go) that bring the head to `target`. */
static unsigned fill_to(struct log_ring *ring, struct log_test_stream *s, uint64_t target)
{
    const size_t filler = 512, smallest = log_ring_entry_size(2);
    unsigned n = 0;
    while (ring->head < target) {
        uint64_t left = target - ring->head;
        size_t len = left > log_ring_entry_size(filler) + smallest
                     ? filler : (size_t)(left - LOG_RING_ENTRY_HEADER);
        if (!write_filler(ring, n, len))
            break;
        n++;
        log_test_drain(s, ring, LOG_RING_READ_MIN);
    }
    return n;
}

/* Fills a fresh ring until its head is at `head`, writes v there, drains
 * everything and checks v comes back whole after the fillers. */
static void check_written_at(uint64_t head, const struct log_test_value *v)
{
    struct log_ring ring;
    struct log_test_stream s = { 0 };
    CHECK(log_ring_init(&ring, 0, storage, RING_SIZE));
    log_test_stream_header(&s, 1);
    unsigned fillers = fill_to(&ring, &s, head);
    CHECK_EQ(ring.head, head);
    CHECK(log_test_emit(&ring, v));
    log_test_drain(&s, &ring, LOG_RING_READ_MIN);
    struct log_test_decoded d;
    log_test_decode(s.data, s.len, 0, &d);
    CHECK_EQ(d.count, fillers + 1);
    if (d.count == fillers + 1)
        CHECK(log_test_value_matches(v, &d.values[fillers]));
    CHECK_EQ(d.problem_count, 0);
    log_test_decoded_free(&d);
    log_test_stream_free(&s);
}

/* The producer writes an entry's header straight into the storage unless
 * it wraps, and the drain reads it the same way: every split of the
 * header across the end of the storage must survive. */
TEST(entry_header_split_at_the_ring_end)
{
    for (unsigned split = 1; split < LOG_RING_ENTRY_HEADER; split++) {
        struct log_test_value v;
        sample_value(&v, 300);
        v.tsc = 5000 + split;
        check_written_at(RING_SIZE - split, &v);
    }
}

/* Fields are copied in and out without memcpy for short lengths (one
 * byte at a time below 4, two overlapping 4- or 8-byte moves up to 16):
 * every length around those bounds must come back byte for byte, both
 * when the fields lie whole in the storage and when they wrap at any
 * split. */
#define SHORT_COPY_LEN_MAX 40u

static void console_value(struct log_test_value *v, uint64_t tsc, uint32_t text_len)
{
    memset(v, 0, sizeof(*v));
    v->type = LOG_REC_CONSOLE;
    v->tsc = tsc;
    for (uint32_t i = 0; i < text_len; i++)
        v->text[i] = (uint8_t)(0x41u + (i * 7u + text_len) % 26u);
    v->u.console = (struct log_console){ .source = 2, .text = (const char *)v->text,
                                         .len = text_len };
}

static void check_console_at(uint32_t text_len, uint64_t fields_start)
{
    struct log_test_value v;
    console_value(&v, 7000 + text_len, text_len);
    check_written_at(fields_start - LOG_RING_ENTRY_HEADER, &v);
}

TEST(short_fields_survive_every_length_and_split)
{
    for (uint32_t text_len = 0; text_len < SHORT_COPY_LEN_MAX; text_len++) {
        uint32_t flen = text_len + 1;       /* source varint, then text */
        check_console_at(text_len, RING_SIZE / 2);
        for (uint32_t split = 1; split < flen; split++)
            check_console_at(text_len, RING_SIZE - split);
    }
}

TEST(blocks_are_numbered_per_cpu)
{
    struct log_ring ring;
    struct log_test_value v;
    CHECK(log_ring_init(&ring, 7, storage, RING_SIZE));
    uint8_t buf[LOG_RING_READ_MIN];
    for (uint32_t blk = 0; blk < 3; blk++) {
        sample_value(&v, blk);
        CHECK(log_test_emit(&ring, &v));
        CHECK(log_test_emit(&ring, &v));
        size_t n = log_ring_read(&ring, buf, sizeof(buf));
        struct log_block_header h;
        memcpy(&h, buf, sizeof(h));
        CHECK(n > LOG_BLOCK_HEADER_SIZE);
        CHECK_EQ(h.cpu, 7);
        CHECK_EQ(h.seq, blk);
        CHECK_EQ(h.record_count, 2);
        CHECK_EQ(h.first_record, 2 * blk);
        CHECK_EQ(h.payload_len, n - LOG_BLOCK_HEADER_SIZE);
    }
    CHECK_EQ(log_ring_read(&ring, buf, sizeof(buf)), 0);
    CHECK(!log_ring_pending(&ring));
}

TEST(drain_and_init_limits)
{
    struct log_ring ring;
    struct log_test_value v;
    CHECK(!log_ring_init(&ring, 0, storage, 3000));
    CHECK(!log_ring_init(&ring, 0, storage, 2048));
    CHECK(!log_ring_init(&ring, LOG_MAX_CPUS, storage, RING_SIZE));
    CHECK(log_ring_init(&ring, 0, storage, RING_SIZE));
    sample_value(&v, 1);
    CHECK(log_test_emit(&ring, &v));
    uint8_t buf[LOG_RING_READ_MIN];
    CHECK_EQ(log_ring_read(&ring, buf, LOG_RING_READ_MIN - 1), 0);
    CHECK(log_ring_pending(&ring));
    CHECK(!log_ring_write(&ring, 0, 1, "x", 1));
    CHECK(!log_ring_write(&ring, LOG_REC_LOSS, 1, "x", 1));
    CHECK(!log_ring_write(&ring, LOG_REC_CONFIG, 1, "x", 0));
    CHECK_EQ(ring.dropped_total, 3);
    /* A sample the encoder refuses is dropped and counted like them. */
    struct log_sample bad = v.u.sample;
    bad.mode = LOG_MODE_COUNT;
    CHECK(!log_ring_write_sample(&ring, 2, &bad));
    bad = v.u.sample;
    bad.depth = LOG_STACK_MAX + 1;
    CHECK(!log_ring_write_sample(&ring, 3, &bad));
    CHECK_EQ(ring.dropped_total, 5);
    CHECK(log_ring_write_sample(&ring, 4, &v.u.sample));
}
