/* Field ranges: every record whose frame is intact but whose fields break
 * a range of docs/log-format.md ("Validation") is reported as one lost
 * record, and the records around it still decode with their TSCs; the
 * value at each range's edge is accepted. Loss records add up exactly,
 * past 2^64 too. */
#include "tests/unit/unit.h"
#include "tests/unit/test_log_util.h"

#include <stdlib.h>

#include "vmm/log/log_varint.h"

#define FIELDS_MAX (LOG_FIELDS_MAX + 64u)
#define TEXT_OVER (LOG_TEXT_MAX + 1u)

/* Field bytes of one record under test. */
struct fields {
    uint8_t b[FIELDS_MAX];
    size_t n;
};

static void put_u8(struct fields *f, uint8_t v) { f->b[f->n++] = v; }
static void put_v(struct fields *f, uint64_t v) { f->n += log_varint_put(f->b + f->n, v); }
static void put_text(struct fields *f, size_t len)
{
    memset(f->b + f->n, 'x', len);
    f->n += len;
}

/* A sample: flags, domain 0, VCPU 0, event 0, RIP 0x1000, then a stack of
 * depth entries when the flags ask for one. */
static void sample(struct fields *f, uint8_t flags, uint32_t depth)
{
    put_u8(f, flags);
    put_v(f, 0);
    put_v(f, 0);
    put_v(f, 0);
    put_v(f, log_zigzag(0x1000));
    if (flags & LOG_SAMPLE_HAS_STACK) {
        put_v(f, depth);
        for (uint32_t i = 0; i < depth; i++)
            put_v(f, log_zigzag(16));
    }
}

static void lifecycle(struct fields *f, uint8_t event)
{
    put_v(f, 0);
    put_v(f, 0);
    put_u8(f, event);
    put_v(f, 0);
}

static void symbols(struct fields *f, uint8_t kind, uint8_t last, size_t text)
{
    put_v(f, 0);
    put_u8(f, kind);
    put_v(f, 1);
    put_v(f, 0);
    put_v(f, 0);
    put_u8(f, last);
    put_text(f, text);
}

/* count entries of (id, value). */
static void entries(struct fields *f, uint32_t count)
{
    put_v(f, 0);
    put_v(f, 0);
    put_v(f, count);
    for (uint32_t i = 0; i < count * 2; i++)
        put_v(f, i);
}

/* An interval row of 100 instructions with count events, each off a
 * counter for `off` of them. */
static void interval(struct fields *f, uint32_t count, uint32_t off)
{
    put_v(f, 0);
    put_v(f, 0);
    put_v(f, 3);              /* number */
    put_v(f, 100);            /* instructions */
    put_v(f, 120);            /* TSC span */
    put_v(f, count);
    for (uint32_t i = 0; i < count; i++) {
        put_v(f, i);
        put_v(f, off);
    }
}

static void text_record(struct fields *f, bool with_number, size_t text)
{
    if (with_number)
        put_v(f, 1);
    put_text(f, text);
}

struct range_case {
    const char *name;
    uint8_t type;
    void (*build)(struct fields *f, uint32_t arg);
    uint32_t bad, good;       /* arg out of range, arg at the range's edge */
};

static void b_mode(struct fields *f, uint32_t a) { sample(f, (uint8_t)a, 0); }
static void b_flags(struct fields *f, uint32_t a) { sample(f, (uint8_t)(a ? 0x10 | 1 : 1), 0); }
static void b_depth(struct fields *f, uint32_t a) { sample(f, LOG_SAMPLE_HAS_STACK | 1, a); }
static void b_lifecycle(struct fields *f, uint32_t a) { lifecycle(f, (uint8_t)a); }
static void b_kind(struct fields *f, uint32_t a) { symbols(f, (uint8_t)a, 1, 8); }
static void b_last(struct fields *f, uint32_t a) { symbols(f, LOG_SYM_KALLSYMS, (uint8_t)a, 8); }
static void b_sym_text(struct fields *f, uint32_t a) { symbols(f, LOG_SYM_KALLSYMS, 1, a); }
/* An abandoned set's record (last = 2) carries no text. */
static void b_abandoned(struct fields *f, uint32_t a) { symbols(f, LOG_SYM_KALLSYMS, 2, a); }
static void b_console(struct fields *f, uint32_t a) { text_record(f, true, a); }
static void b_config(struct fields *f, uint32_t a) { text_record(f, false, a); }
static void b_loss(struct fields *f, uint32_t a) { put_v(f, a); }
static void b_interval(struct fields *f, uint32_t a) { interval(f, a, 0); }
static void b_interval_off(struct fields *f, uint32_t a) { interval(f, 2, a); }
static void b_swcounters(struct fields *f, uint32_t a) { entries(f, a); }
static void b_totals(struct fields *f, uint32_t a) { entries(f, a); }
/* vcpu-stats: domain, VCPU, exits, switches, switch ticks, then entries. */
static void b_vcpu_stats(struct fields *f, uint32_t a)
{
    put_v(f, 0);
    put_v(f, 0);
    put_v(f, 40);
    entries(f, a);
}
/* interval-events: domain, VCPU, then a event ids. */
static void b_interval_events(struct fields *f, uint32_t a)
{
    put_v(f, 0);
    put_v(f, 1);
    put_v(f, a);
    for (uint32_t i = 0; i < a; i++)
        put_v(f, i);
}
static void b_event_name(struct fields *f, uint32_t a)
{
    put_v(f, 1);
    put_v(f, 0xc0);
    put_text(f, a);
}
static void b_period(struct fields *f, uint32_t a)
{
    put_v(f, 1);
    put_v(f, a);
}
/* A per-VCPU period: its domain, then its vcpu unless a is 0 (cut short). */
static void b_period_vcpu(struct fields *f, uint32_t a)
{
    put_v(f, 1);
    put_v(f, 5000);
    put_v(f, 2);
    if (a)
        put_v(f, 3);
}
/* A 32-bit field (the domain) holding 2^32 - 1, or 2^32. */
static void b_u32(struct fields *f, uint32_t a)
{
    put_u8(f, 1);
    put_v(f, a ? 1ull << 32 : UINT32_MAX);
    put_v(f, 0);
    put_v(f, 0);
    put_v(f, 0);
}
/* A varint of 10 bytes whose last byte is 1 (2^63), or 2 (past 64 bits). */
static void b_varint(struct fields *f, uint32_t a)
{
    for (int i = 0; i < 9; i++)
        put_u8(f, 0x80);
    put_u8(f, a ? 2 : 1);
}

static const struct range_case cases[] = {
    { "sample mode", LOG_REC_SAMPLE, b_mode, LOG_MODE_COUNT, LOG_MODE_GUEST_USER },
    { "sample flag bits 4-7", LOG_REC_SAMPLE, b_flags, 1, 0 },
    { "sample stack depth 0", LOG_REC_SAMPLE, b_depth, 0, 1 },
    { "sample stack depth", LOG_REC_SAMPLE, b_depth, LOG_STACK_MAX + 1, LOG_STACK_MAX },
    { "lifecycle event 0", LOG_REC_LIFECYCLE, b_lifecycle, 0, 1 },
    { "lifecycle event", LOG_REC_LIFECYCLE, b_lifecycle, LOG_LC_EVENT_COUNT, LOG_LC_EVENT_COUNT - 1 },
    { "symbols kind 0", LOG_REC_SYMBOLS, b_kind, 0, 1 },
    { "symbols kind", LOG_REC_SYMBOLS, b_kind, LOG_SYM_KIND_COUNT, LOG_SYM_KIND_COUNT - 1 },
    { "symbols last", LOG_REC_SYMBOLS, b_last, 3, 1 },
    { "symbols abandoned with text", LOG_REC_SYMBOLS, b_abandoned, 8, 0 },
    { "symbols text", LOG_REC_SYMBOLS, b_sym_text, TEXT_OVER, LOG_TEXT_MAX },
    { "console text", LOG_REC_CONSOLE, b_console, TEXT_OVER, LOG_TEXT_MAX },
    { "config empty", LOG_REC_CONFIG, b_config, 0, 1 },
    { "config text", LOG_REC_CONFIG, b_config, TEXT_OVER, LOG_TEXT_MAX },
    { "loss of 0", LOG_REC_LOSS, b_loss, 0, 1 },
    { "interval count", LOG_REC_INTERVAL, b_interval, LOG_INTERVAL_EVENTS_MAX + 1,
      LOG_INTERVAL_EVENTS_MAX },
    { "interval event off longer than the row", LOG_REC_INTERVAL, b_interval_off, 101, 100 },
    { "swcounters count", LOG_REC_SWCOUNTERS, b_swcounters, LOG_SWCOUNTERS_MAX + 1, LOG_SWCOUNTERS_MAX },
    { "pmu-totals count", LOG_REC_PMU_TOTALS, b_totals, LOG_EVENTS_MAX + 1, LOG_EVENTS_MAX },
    { "vcpu-stats count", LOG_REC_VCPU_STATS, b_vcpu_stats, LOG_VCPU_STATS_REASONS_MAX + 1,
      LOG_VCPU_STATS_REASONS_MAX },
    { "interval-events count", LOG_REC_INTERVAL_EVENTS, b_interval_events,
      LOG_INTERVAL_EVENTS_MAX + 1, LOG_INTERVAL_EVENTS_MAX },
    { "event-desc name", LOG_REC_EVENT_DESC, b_event_name, TEXT_OVER, LOG_TEXT_MAX },
    { "event-period of 0", LOG_REC_EVENT_PERIOD, b_period, 0, 1 },
    { "event-period domain without vcpu", LOG_REC_EVENT_PERIOD, b_period_vcpu, 0, 1 },
    { "32-bit field", LOG_REC_SAMPLE, b_u32, 1, 0 },
    { "varint past 64 bits", LOG_REC_LOSS, b_varint, 1, 0 },
};

#define CASE_COUNT (sizeof(cases) / sizeof(cases[0]))
#define BASE_TSC 1000u
#define DELTA 7

/* A stream of one block: a config record, the record under test, a loss
 * record; each record's TSC is DELTA after the previous one. Returns the
 * stream offset of the record under test. */
static size_t three_records(struct log_test_stream *s, const struct range_case *c, uint32_t arg)
{
    struct log_test_stream payload = { 0 };
    struct fields f = { .n = 0 };
    log_test_stream_header(s, 1);
    log_test_raw_record(&payload, LOG_REC_CONFIG, 0, "a=b", 3);
    size_t at = s->len + LOG_BLOCK_HEADER_SIZE + payload.len;
    c->build(&f, arg);
    log_test_raw_record(&payload, c->type, DELTA, f.b, f.n);
    uint8_t one = 1;
    log_test_raw_record(&payload, LOG_REC_LOSS, DELTA, &one, 1);
    log_test_block(s, 0, 0, 0, BASE_TSC, 3, &payload);
    log_test_stream_free(&payload);
    return at;
}

TEST(out_of_range_fields_lose_that_record_only)
{
    for (size_t i = 0; i < CASE_COUNT; i++) {
        const struct range_case *c = &cases[i];
        struct log_test_stream s = { 0 };
        size_t at = three_records(&s, c, c->bad);
        struct log_test_decoded d;
        log_test_decode(s.data, s.len, 0, &d);
        bool ok = d.count == 2 && d.values[0].type == LOG_REC_CONFIG &&
                  d.values[1].type == LOG_REC_LOSS && d.values[1].tsc == BASE_TSC + 2 * DELTA &&
                  d.problem_count == 1 && d.problems[0].kind == LOGDEC_BAD_RECORD &&
                  d.problems[0].offset == at && d.problems[0].records == 1 &&
                  d.totals.records_lost == 1 && d.verdict == LOGDEC_DAMAGED;
        if (!ok)
            unit_fail(__FILE__, __LINE__, "%s = %u: %zu records, %zu problems", c->name, c->bad,
                      d.count, d.problem_count);
        log_test_decoded_free(&d);
        log_test_stream_free(&s);
    }
}

TEST(fields_at_the_edge_of_their_range_decode)
{
    for (size_t i = 0; i < CASE_COUNT; i++) {
        const struct range_case *c = &cases[i];
        struct log_test_stream s = { 0 };
        three_records(&s, c, c->good);
        struct log_test_decoded d;
        log_test_decode(s.data, s.len, 0, &d);
        if (d.count != 3 || d.problem_count != 0 || d.values[1].type != c->type)
            unit_fail(__FILE__, __LINE__, "%s = %u: %zu records, %zu problems", c->name, c->good,
                      d.count, d.problem_count);
        log_test_decoded_free(&d);
        log_test_stream_free(&s);
    }
}

TEST(broken_tsc_delta_loses_the_rest_of_the_block)
{
    struct log_test_stream s = { 0 }, payload = { 0 };
    log_test_stream_header(&s, 1);
    uint8_t one = 1;
    log_test_raw_record(&payload, LOG_REC_LOSS, 0, &one, 1);
    size_t at = s.len + LOG_BLOCK_HEADER_SIZE + payload.len;
    static const uint8_t no_delta[] = { LOG_REC_LOSS, 2, 0x80, 0x80 };   /* unfinished varint */
    log_test_stream_append(&payload, no_delta, sizeof(no_delta));
    log_test_raw_record(&payload, LOG_REC_LOSS, 0, &one, 1);
    log_test_block(&s, 0, 0, 0, BASE_TSC, 3, &payload);
    struct log_test_decoded d;
    log_test_decode(s.data, s.len, 0, &d);
    CHECK_EQ(d.count, 1);
    CHECK_EQ(d.problem_count, 1);
    CHECK_EQ(d.problems[0].kind, LOGDEC_BAD_RECORD);
    CHECK_EQ(d.problems[0].offset, at);
    CHECK_EQ(d.problems[0].records, 2);
    log_test_decoded_free(&d);
    log_test_stream_free(&payload);
    log_test_stream_free(&s);
}

TEST(loss_records_add_up_exactly_past_64_bits)
{
    struct log_test_stream s = { 0 }, payload = { 0 };
    log_test_stream_header(&s, 1);
    struct fields f = { .n = 0 };
    put_v(&f, UINT64_MAX);
    log_test_raw_record(&payload, LOG_REC_LOSS, 0, f.b, f.n);
    uint8_t one = 1;
    log_test_raw_record(&payload, LOG_REC_LOSS, 0, &one, 1);
    log_test_block(&s, 0, 0, 0, BASE_TSC, 2, &payload);
    struct log_test_decoded d;
    log_test_decode(s.data, s.len, 0, &d);
    char text[LOGDEC_COUNT_TEXT];
    CHECK_STR(logdec_count_text(d.totals.ring_dropped, text), "18446744073709551616");
    CHECK_EQ(d.verdict, LOGDEC_DAMAGED);
    CHECK_STR(logdec_count_text(0, text), "0");
    CHECK_STR(logdec_count_text(~(logdec_count)0, text), "340282366920938463463374607431768211455");
    log_test_decoded_free(&d);
    log_test_stream_free(&payload);
    log_test_stream_free(&s);
}
