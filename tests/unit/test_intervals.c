/* The host side of interval multiplexing (`vertigo timeline`, `vertigo
 * correlate`): rows read from a log written by the hypervisor's encoder,
 * their extrapolation and marks, gaps and repeated rows named, corrupted
 * rows lost and reported, the table and trace writers, event choice, and
 * Pearson's r against values worked out by hand. */
#include "tests/unit/unit.h"

#include <math.h>
#include <unistd.h>
#include <stdlib.h>

#include "host-tools/correlate.h"
#include "host-tools/interval_rows.h"
#include "host-tools/timeline_write.h"
#include "host-tools/vertigo.h"
#include "pmu/mux/mux.h"
#include "tests/unit/test_log_util.h"
#include "vmm/log/log_emit.h"

#define RING_BYTES 65536u
#define TSC0 1000000u

static uint8_t storage[RING_BYTES];

/* Row `number` of VCPU vcpu: 1000 instructions at TSC (number + 1) x
 * 2000; event 0 on a counter 250 of them (raw 100 + number), event 1
 * never, event 2 (software) all along (raw 3 x number). */
static struct log_interval row(uint32_t vcpu, uint64_t number)
{
    return (struct log_interval){ .domain = 1, .vcpu = vcpu, .number = number,
        .instructions = 1000, .tsc_span = 2000, .count = 3,
        .events = { { 100 + number, 250 }, { 0, 0 }, { 3 * number, 1000 } } };
}

static void emit_rows(struct log_ring *ring, uint32_t vcpu, const uint64_t *numbers, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct log_interval iv = row(vcpu, numbers[i]);
        CHECK(log_emit_interval(ring, TSC0 + (numbers[i] + 1) * 2000, &iv));
    }
}

static void emit_name(struct log_ring *ring, uint32_t id, const char *name)
{
    struct log_event_desc ed = { .event = id, .code = 0, .name = name,
                                 .len = (uint32_t)strlen(name) };
    CHECK(log_emit_event_desc(ring, TSC0, &ed));
}

/* Writes the ring's records as a log file; returns its path. */
static const char *write_log(struct log_ring *ring, struct log_test_stream *extra)
{
    static char path[] = "/tmp/test-intervals-XXXXXX";
    struct log_test_stream st = { 0 };
    log_test_stream_header(&st, 1);
    log_test_drain(&st, ring, 4096);
    if (extra)
        log_test_stream_append(&st, extra->data, extra->len);
    strcpy(path, "/tmp/test-intervals-XXXXXX");
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, st.data, st.len) == (ssize_t)st.len);
    close(fd);
    log_test_stream_free(&st);
    return path;
}

static struct log_ring *new_ring(void)
{
    static struct log_ring ring;
    log_ring_init(&ring, 0, storage, sizeof(storage));
    return &ring;
}

static struct iv_set set;

static void emit_ids(struct log_ring *ring, uint32_t domain, uint32_t vcpu, uint32_t count,
                     const uint32_t *ids)
{
    struct log_interval_events ie = { .domain = domain, .vcpu = vcpu, .count = count };
    memcpy(ie.ids, ids, count * sizeof(ids[0]));
    CHECK(log_emit_interval_events(ring, TSC0, &ie));
}

/* Two VCPUs of two domains whose sessions count different lists, the
 * same events at other positions (ids run-wide, each VCPU's entries named
 * by its interval-events record): every entry lands in its own event's
 * column, named by its own event-desc; an event a row's session does not
 * count is not in that row (the CSV says "absent"). A log without
 * interval-events records (entries are ids) reads as before. */
TEST(rows_of_vcpus_with_different_lists_name_their_own_events)
{
    struct log_ring *ring = new_ring();
    static const uint32_t ids0[] = { 7, 2 }, ids1[] = { 2, 9, 7 };
    emit_name(ring, 2, "exits:all");
    emit_name(ring, 7, "instructions");
    emit_name(ring, 9, "cycles:k");
    emit_ids(ring, 0, 0, 2, ids0);
    emit_ids(ring, 1, 1, 3, ids1);
    struct log_interval a = { .domain = 0, .vcpu = 0, .number = 0, .instructions = 1000,
                              .tsc_span = 100, .count = 2,
                              .events = { { 1000, 1000 }, { 5, 1000 } } };
    struct log_interval b = { .domain = 1, .vcpu = 1, .number = 0, .instructions = 2000,
                              .tsc_span = 100, .count = 3,
                              .events = { { 8, 2000 }, { 300, 2000 }, { 2000, 2000 } } };
    CHECK(log_emit_interval(ring, TSC0 + 1000, &a));
    CHECK(log_emit_interval(ring, TSC0 + 2000, &b));
    const char *path = write_log(ring, NULL);
    CHECK_EQ(iv_load(&set, "test", path), VERTIGO_EXIT_OK);
    unlink(path);
    if (!CHECK_EQ(set.count, 2) || !CHECK_EQ(set.event_count, 3))
        return;
    char name[IV_NAME_MAX];
    static const char *const names[] = { "exits:all", "instructions", "cycles:k" };
    for (unsigned int c = 0; c < 3; c++)            /* ids 2, 7, 9 */
        CHECK_STR(iv_event_name(&set, c, name, sizeof(name)), names[c]);
    struct iv_events v;
    iv_row_events(&set, &set.rows[0], &v);          /* domain 0's row */
    CHECK(v.in_row[0] && v.in_row[1] && !v.in_row[2]);
    CHECK_EQ(v.value[0], 5);
    CHECK_EQ(v.value[1], 1000);                     /* instructions = the row's */
    iv_row_events(&set, &set.rows[1], &v);          /* domain 1's */
    CHECK(v.in_row[0] && v.in_row[1] && v.in_row[2]);
    CHECK_EQ(v.value[0], 8);
    CHECK_EQ(v.value[1], 2000);
    CHECK_EQ(v.value[2], 300);
    unsigned int ev[IV_EVENTS_MAX];
    CHECK_EQ(iv_pick_events(&set, "test", "cycles:k,7", ev), 2);    /* a name, an id */
    CHECK_EQ(ev[0], 2);
    CHECK_EQ(ev[1], 1);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    CHECK(timeline_write_table(out, &set, ev, 2, ','));
    fclose(out);
    CHECK(strstr(text, "\n0,0,0,1000,") && strstr(text, ",,,,absent,1000,1000,1000,measured\n"));
    CHECK(strstr(text, "\n1,1,0,2000,") && strstr(text, ",300,300,2000,measured,2000,2000,2000,"));
    free(text);
    iv_free(&set);
}

TEST(rows_load_sorted_with_names_and_extrapolation)
{
    struct log_ring *ring = new_ring();
    const uint64_t v1[] = { 1, 0, 2 }, v0[] = { 0, 1 };
    emit_rows(ring, 1, v1, 3);
    emit_rows(ring, 0, v0, 2);
    emit_name(ring, 0, "instructions:u");
    emit_name(ring, 2, "exits:all");
    const char *path = write_log(ring, NULL);
    CHECK_EQ(iv_load(&set, "test", path), VERTIGO_EXIT_OK);
    unlink(path);
    CHECK_EQ(set.count, 5);
    CHECK_EQ(set.event_count, 3);
    CHECK_EQ(set.missing, 0);
    CHECK_EQ(set.rows[0].vcpu, 0);
    CHECK_EQ(set.rows[2].vcpu, 1);
    for (size_t i = 2; i < 5; i++)
        CHECK_EQ(set.rows[i].number, i - 2);
    const struct iv_row *r = &set.rows[3];           /* vcpu 1, interval 1 */
    CHECK_EQ(r->tsc_start, TSC0 + 2000);
    CHECK_EQ(r->x_instructions, 1000);
    struct iv_events v;                             /* stored compactly: decoded */
    iv_row_events(&set, r, &v);
    CHECK_EQ(v.count, 3);
    CHECK_EQ(v.value[0], 404);                      /* 101 x 1000 / 250 */
    CHECK_EQ(v.how[0], IV_SCALED);
    CHECK_EQ(v.how[1], IV_UNMEASURED);
    CHECK_EQ(v.value[2], 3);
    CHECK_EQ(v.how[2], IV_MEASURED);
    char name[IV_NAME_MAX];
    CHECK_STR(iv_event_name(&set, 0, name, sizeof(name)), "instructions:u");
    CHECK_STR(iv_event_name(&set, 1, name, sizeof(name)), "event1");
    unsigned int ev[IV_EVENTS_MAX];
    CHECK_EQ(iv_pick_events(&set, "test", "exits:all,1", ev), 2);
    CHECK_EQ(ev[0], 2);
    CHECK_EQ(ev[1], 1);
    CHECK_EQ(iv_pick_events(&set, "test", "exits:al", ev), -1);
    CHECK_EQ(iv_pick_events(&set, "test", "3", ev), -1);
    CHECK_EQ(iv_pick_events(&set, "test", NULL, ev), 3);
    iv_free(&set);
}

/* Intervals 2 and 3 of VCPU 0 lost, interval 5 twice: the log counts as
 * damaged, the gap is counted and the repeat dropped. */
TEST(gaps_and_repeats_are_counted)
{
    struct log_ring *ring = new_ring();
    const uint64_t numbers[] = { 0, 1, 4, 5, 5 };
    emit_rows(ring, 0, numbers, 5);
    const char *path = write_log(ring, NULL);
    CHECK_EQ(iv_load(&set, "test", path), VERTIGO_EXIT_DAMAGED);
    unlink(path);
    CHECK_EQ(set.count, 4);
    CHECK_EQ(set.missing, 2);
    CHECK_EQ(set.repeated, 1);
    iv_free(&set);
}

/* A row whose event ran longer than the row (hand-made fields, good
 * checksums), and one with more events than a row holds: both are bad
 * records; the good rows around them load. */
TEST(corrupted_rows_are_lost_and_reported)
{
    struct log_ring *ring = new_ring();
    const uint64_t numbers[] = { 0 };
    emit_rows(ring, 0, numbers, 1);
    struct log_test_stream payload = { 0 }, blocks = { 0 };
    const uint8_t too_long[] = { 1, 0, 1, 100, 10, 1, 5, 0x80, 0x01 };  /* off 128 > 100 */
    const uint8_t too_many[] = { 1, 0, 2, 100, 10, LOG_INTERVAL_EVENTS_MAX + 1, 0, 0 };
    log_test_raw_record(&payload, LOG_REC_INTERVAL, 10, too_long, sizeof(too_long));
    log_test_raw_record(&payload, LOG_REC_INTERVAL, 10, too_many, sizeof(too_many));
    log_test_block(&blocks, 0, 1, 1, TSC0 * 10, 2, &payload);
    const char *path = write_log(ring, &blocks);
    CHECK_EQ(iv_load(&set, "test", path), VERTIGO_EXIT_DAMAGED);
    unlink(path);
    CHECK_EQ(set.count, 1);
    CHECK_EQ(set.rows[0].number, 0);
    log_test_stream_free(&payload);
    log_test_stream_free(&blocks);
    iv_free(&set);
}

static char *written(bool (*fn)(FILE *, const struct iv_set *, const unsigned int *, unsigned int,
                                char), const unsigned int *ev, unsigned int n, char sep)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    CHECK(fn(out, &set, ev, n, sep));
    fclose(out);
    return text;
}

TEST(table_and_trace_hold_every_row)
{
    struct log_ring *ring = new_ring();
    const uint64_t numbers[] = { 0, 1 };
    emit_rows(ring, 0, numbers, 2);
    emit_name(ring, 0, "a,b");
    const char *path = write_log(ring, NULL);
    CHECK_EQ(iv_load(&set, "test", path), VERTIGO_EXIT_OK);
    unlink(path);
    const unsigned int ev[] = { 0, 1 };
    char *csv = written(timeline_write_table, ev, 2, ',');
    CHECK_STR(csv, "domain,vcpu,interval,instructions,tsc,tsc_span,\"a,b\",\"a,b:raw\","
                   "\"a,b:running\",\"a,b:how\",event1,event1:raw,event1:running,event1:how\n"
                   "1,0,0,1000,1000000,2000,400,100,250,extrapolated,0,0,0,unmeasured\n"
                   "1,0,1,1000,1002000,2000,404,101,250,extrapolated,0,0,0,unmeasured\n");
    free(csv);
    char *json = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&json, &len);
    CHECK(timeline_write_trace(out, &set, ev, 2, TIMELINE_X_INSTRUCTIONS));
    fclose(out);
    /* two counters of event 0 (event 1 was never measured), at x 0 and
     * 1000, marked extrapolated, on domain 1's process and its VCPU 0's
     * thread, named and numbered as every time-ordered export names them
     * (host-tools/trace_ids.h: process 1 + 1, thread 2 x 65536 + 0) */
    CHECK(strstr(json, "{\"name\":\"a,b\",\"cat\":\"extrapolated\",\"ph\":\"C\",\"ts\":0,"
                       "\"pid\":2,\"tid\":131072,\"args\":{\"value\":400}}"));
    CHECK(!strstr(json, "\"cat\":\"measured\""));
    CHECK(strstr(json, "\"ts\":1000,\"pid\":2,\"tid\":131072,\"args\":{\"value\":404}}"));
    CHECK(strstr(json, "\"args\":{\"name\":\"dom1 (domain 1)\"}"));
    CHECK(strstr(json, "\"args\":{\"name\":\"VCPU 0\"}"));
    CHECK(!strstr(json, "event1"));
    free(json);
    iv_free(&set);
}

TEST(pearson_against_hand_values)
{
    const double x[] = { 1, 2, 3, 4 }, up[] = { 2, 4, 6, 8 }, down[] = { 8, 6, 4, 2 },
                 flat[] = { 5, 5, 5, 5 }, y[] = { 1, 3, 2, 4 };
    CHECK(fabs(corr_pearson(x, up, 4) - 1.0) < 1e-12);
    CHECK(fabs(corr_pearson(x, down, 4) + 1.0) < 1e-12);
    CHECK(isnan(corr_pearson(x, flat, 4)));
    CHECK(isnan(corr_pearson(x, up, 1)));
    CHECK(fabs(corr_pearson(x, y, 4) - 0.8) < 1e-12);     /* sxy 4, sxx syy 5 */
    /* A constant whose mean rounds (0.1 x 7 / 7 is 0.09999999999999999):
     * the variance is not quite 0, yet r is undefined, never 1 or 0. */
    const double tenth[] = { 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1 },
                 seven[] = { 1, 2, 3, 4, 5, 6, 7 };
    CHECK(isnan(corr_pearson(tenth, tenth, 7)));
    CHECK(isnan(corr_pearson(seven, tenth, 7)));
    CHECK(isnan(corr_pearson(tenth, seven, 7)));
}

/* Rates per instruction over the rows in range; an event unmeasured in a
 * row leaves that row out. */
TEST(correlation_matrix_over_a_range)
{
    static struct corr_matrix m;
    struct log_ring *ring = new_ring();
    const uint64_t numbers[] = { 0, 1, 2, 3 };
    emit_rows(ring, 0, numbers, 4);
    const char *path = write_log(ring, NULL);
    CHECK_EQ(iv_load(&set, "test", path), VERTIGO_EXIT_OK);
    unlink(path);
    const unsigned int ev[] = { 0, 2 }, with_unmeasured[] = { 0, 1 };
    struct corr_range all = CORR_ALL, first_three = { TSC0, TSC0 + 6000, 0, UINT64_MAX };
    corr_compute(&set, ev, 2, &all, &m);
    CHECK_EQ(m.intervals, 4);
    CHECK(m.r[0][1] > 0.99);                /* both grow with the number */
    corr_compute(&set, ev, 2, &first_three, &m);
    CHECK_EQ(m.intervals, 3);
    corr_compute(&set, with_unmeasured, 2, &all, &m);
    CHECK_EQ(m.intervals, 0);
    CHECK(isnan(m.r[0][1]));
    iv_free(&set);
}

/* Rows are stored compactly (their events as varints): every value of
 * every row comes back as it was added, with the extrapolation of
 * pmu/mux/mux.c, for rows of 0 to 32 events and values up to 2^64 - 1. */
TEST(rows_keep_every_value)
{
    struct iv_set s = { 0 };
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    enum { ROWS = 2000 };
    static struct log_interval added[ROWS];
    for (unsigned int i = 0; i < ROWS; i++) {
        struct log_interval *iv = &added[i];
        *iv = (struct log_interval){ .domain = i % 3, .vcpu = i % 7, .number = i,
                                     .instructions = log_test_rand(&rng) >> (i % 64),
                                     .tsc_span = i, .count = i % (IV_EVENTS_MAX + 1) };
        for (uint32_t e = 0; e < iv->count; e++) {
            iv->events[e].raw = log_test_rand(&rng) >> (log_test_rand(&rng) % 64);
            iv->events[e].running = iv->instructions ? log_test_rand(&rng) % iv->instructions : 0;
        }
        iv_add_row(&s, iv, 1000000 + i, 40 + 13 * (uint64_t)i);
    }
    iv_finish(&s, "test", NULL);        /* sorted by VCPU: each row found by its number */
    CHECK_EQ(s.count, ROWS);
    CHECK_EQ(s.event_count, IV_EVENTS_MAX);     /* the widest row's: ids 0..31 */
    for (unsigned int j = 0; j < ROWS && j < s.count; j++) {
        uint64_t i = s.rows[j].number;
        const struct log_interval *iv = &added[i < ROWS ? i : 0];
        struct iv_events v;
        iv_row_events(&s, &s.rows[j], &v);
        CHECK_EQ(iv_row_offset(&s, &s.rows[j]), 40 + 13 * i);
        CHECK_EQ(s.rows[j].instructions, iv->instructions);
        CHECK_EQ(v.count, IV_EVENTS_MAX);
        for (uint32_t e = 0; e < v.count; e++)
            CHECK_EQ(v.in_row[e], e < iv->count);
        for (uint32_t e = 0; e < iv->count && e < v.count; e++) {
            uint64_t value;
            enum mux_estimate how = mux_extrapolate(iv->events[e].raw, iv->instructions,
                                                    iv->events[e].running, &value);
            CHECK_EQ(v.raw[e], iv->events[e].raw);
            CHECK_EQ(v.running[e], iv->events[e].running);
            CHECK_EQ(v.how[e], how);
            if (how != MUX_UNMEASURED)
                CHECK_EQ(v.value[e], value);
        }
    }
    iv_free(&s);
}

/* Rows hold the interval N, or N plus the skid; a VCPU's last row stops
 * early. The plot's "per N instr." is N: the shortest full row, not the
 * largest (a PMU sample's skid of one made it N + 1 once). */
TEST(interval_length_is_the_shortest_full_row)
{
    static const struct { uint32_t vcpu; uint64_t number, instructions; } rows[] = {
        { 0, 0, 1000 }, { 0, 1, 1001 }, { 0, 2, 1000 }, { 0, 3, 700 }, { 1, 0, 1003 }, { 1, 1, 12 },
    };
    struct iv_set s = { 0 };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct log_interval iv = row(rows[i].vcpu, rows[i].number);
        iv.instructions = rows[i].instructions;
        iv_add_row(&s, &iv, TSC0 + (i + 1) * 2000, 0);
    }
    iv_finish(&s, "test", NULL);
    CHECK_EQ(iv_interval_length(&s), 1000);
    iv_free(&s);
    /* only last rows: the largest of them */
    struct log_interval only = row(0, 0);
    only.instructions = 465;
    iv_add_row(&s, &only, TSC0 + 2000, 0);
    only = row(1, 0);
    only.instructions = 470;
    iv_add_row(&s, &only, TSC0 + 2000, 0);
    iv_finish(&s, "test", NULL);
    CHECK_EQ(iv_interval_length(&s), 470);
    iv_free(&s);
}
