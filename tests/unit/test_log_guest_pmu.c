/* The guest virtual PMU's log records (guest-pmu-prog, guest-pmi): the
 * encoder refuses values outside the format, a corrupted record (counter,
 * control or delivery out of range, fields cut short) loses exactly that
 * record while its neighbours decode, the edges of each range decode;
 * `vertigo decode` names the event as perf does, and `vertigo stats`
 * lists each VCPU's programmings once and counts its PMIs by delivery. */
#include "tests/unit/unit.h"
#include "tests/unit/test_log_util.h"

#include <stdlib.h>

#include "host-tools/guest_pmu_text.h"
#include "host-tools/stats_guest_pmu.h"
#include "vmm/log/log_emit.h"
#include "vmm/log/log_varint.h"

#define USR (1u << 16)
#define OS  (1u << 17)
#define INT (1u << 20)
#define EN  (1u << 22)

TEST(encoder_refuses_values_outside_the_format)
{
    uint8_t out[LOG_FIELDS_MAX];
    struct log_guest_pmu_prog gp = { .counter = LOG_GUEST_COUNTER_LIMIT, .control = 0 };
    CHECK_EQ(log_encode_guest_pmu_prog(out, &gp), 0);
    gp = (struct log_guest_pmu_prog){ .counter = LOG_GUEST_COUNTER_FIXED, .control = 0x10 };
    CHECK_EQ(log_encode_guest_pmu_prog(out, &gp), 0);
    gp = (struct log_guest_pmu_prog){ .counter = 3, .control = 1ull << 32 };
    CHECK_EQ(log_encode_guest_pmu_prog(out, &gp), 0);
    gp = (struct log_guest_pmu_prog){ .counter = 31, .control = 0xffffffffu };
    CHECK(log_encode_guest_pmu_prog(out, &gp) > 0);
    struct log_guest_pmi pmi = { .delivery = LOG_GUEST_PMI_DELIVERY_COUNT };
    CHECK_EQ(log_encode_guest_pmi(out, &pmi), 0);
    pmi.delivery = LOG_GUEST_PMI_MASKED;
    CHECK(log_encode_guest_pmi(out, &pmi) > 0);
}

/* ---- Corrupted records ------------------------------------------------- */

struct fields {
    uint8_t b[64];
    size_t n;
};

static void put_v(struct fields *f, uint64_t v) { f->n += log_varint_put(f->b + f->n, v); }
static void put_u8(struct fields *f, uint8_t v) { f->b[f->n++] = v; }

/* Domain 0, VCPU 1, then the type's own fields. */
static struct fields for_vcpu_1(void)
{
    struct fields f = { .n = 0 };
    put_v(&f, 0);
    put_v(&f, 1);
    return f;
}

static struct fields prog(uint8_t counter, uint64_t control)
{
    struct fields f = for_vcpu_1();
    put_u8(&f, counter);
    put_v(&f, control);
    return f;
}

static struct fields pmi(uint64_t status, uint8_t delivery)
{
    struct fields f = for_vcpu_1();
    put_v(&f, status);
    put_u8(&f, delivery);
    return f;
}

/* A block of three records: a config record, the one under test (its
 * fields maybe cut to cut bytes), a loss record. */
static void decode_three(uint8_t type, struct fields f, size_t cut, struct log_test_decoded *d)
{
    struct log_test_stream s = { 0 }, payload = { 0 };
    uint8_t one = 1;
    log_test_stream_header(&s, 1);
    log_test_raw_record(&payload, LOG_REC_CONFIG, 0, "a=b", 3);
    log_test_raw_record(&payload, type, 5, f.b, cut < f.n ? cut : f.n);
    log_test_raw_record(&payload, LOG_REC_LOSS, 5, &one, 1);
    log_test_block(&s, 0, 0, 0, 1000, 3, &payload);
    log_test_decode(s.data, s.len, 0, d);
    log_test_stream_free(&payload);
    log_test_stream_free(&s);
}

static bool loses_that_record_only(uint8_t type, struct fields f, size_t cut)
{
    struct log_test_decoded d;
    decode_three(type, f, cut, &d);
    bool ok = d.count == 2 && d.values[0].type == LOG_REC_CONFIG &&
              d.values[1].type == LOG_REC_LOSS && d.values[1].tsc == 1010 &&
              d.problem_count == 1 && d.problems[0].kind == LOGDEC_BAD_RECORD &&
              d.problems[0].records == 1 && d.totals.records_lost == 1;
    log_test_decoded_free(&d);
    return ok;
}

static bool decodes(uint8_t type, struct fields f)
{
    struct log_test_decoded d;
    decode_three(type, f, SIZE_MAX, &d);
    bool ok = d.count == 3 && d.problem_count == 0 && d.values[1].type == type;
    log_test_decoded_free(&d);
    return ok;
}

TEST(corrupted_records_lose_exactly_themselves)
{
    CHECK(loses_that_record_only(LOG_REC_GUEST_PMU_PROG, prog(LOG_GUEST_COUNTER_LIMIT, 0x3), 99));
    CHECK(loses_that_record_only(LOG_REC_GUEST_PMU_PROG, prog(255, 0x3), 99));
    CHECK(loses_that_record_only(LOG_REC_GUEST_PMU_PROG, prog(LOG_GUEST_COUNTER_FIXED + 2, 0x10), 99));
    CHECK(loses_that_record_only(LOG_REC_GUEST_PMU_PROG, prog(0, 1ull << 32), 99));
    CHECK(loses_that_record_only(LOG_REC_GUEST_PMI, pmi(1, LOG_GUEST_PMI_DELIVERY_COUNT), 99));
    CHECK(loses_that_record_only(LOG_REC_GUEST_PMI, pmi(1, 0xff), 99));
    /* Cut short: no counter byte / no control; no delivery byte. */
    CHECK(loses_that_record_only(LOG_REC_GUEST_PMU_PROG, prog(1, 0x4300c0), 2));
    CHECK(loses_that_record_only(LOG_REC_GUEST_PMU_PROG, prog(1, 0x4300c0), 3));
    CHECK(loses_that_record_only(LOG_REC_GUEST_PMI, pmi(1ull << 32, 0), 3));
    /* A status varint running past 64 bits. */
    struct fields f = { .n = 0 };
    put_v(&f, 0);
    put_v(&f, 0);
    for (int i = 0; i < 9; i++)
        put_u8(&f, 0x80);
    put_u8(&f, 2);
    put_u8(&f, 0);
    CHECK(loses_that_record_only(LOG_REC_GUEST_PMI, f, 99));
}

TEST(the_edges_of_each_range_decode)
{
    CHECK(decodes(LOG_REC_GUEST_PMU_PROG, prog(LOG_GUEST_COUNTER_FIXED - 1, 0xffffffffu)));
    CHECK(decodes(LOG_REC_GUEST_PMU_PROG, prog(LOG_GUEST_COUNTER_LIMIT - 1, 0xf)));
    CHECK(decodes(LOG_REC_GUEST_PMI, pmi(UINT64_MAX, LOG_GUEST_PMI_MASKED)));
}

/* ---- Names ----------------------------------------------------------- */

static const char *event(uint8_t counter, uint64_t control)
{
    static char out[GUEST_PMU_TEXT_MAX];
    guest_pmu_event_text(counter, control, out);
    return out;
}

TEST(events_are_named_as_perf_names_them)
{
    CHECK_STR(event(0, 0xc0 | USR | INT | EN), "instructions:u+pmi");
    CHECK_STR(event(1, 0x3c | USR | OS | EN), "cycles:uk");
    CHECK_STR(event(2, 0x013c | OS | EN), "ref-cycles:k");
    CHECK_STR(event(3, 0x412e | USR | EN), "cache-misses:u");
    CHECK_STR(event(0, 0x01c2 | OS | EN), "raw 0x01c2:k");
    CHECK_STR(event(0, 0x010000c0u | USR | EN), "raw 0x010000c0:u");   /* counter mask 1 */
    CHECK_STR(event(0, 0xc0 | EN), "instructions:none");
    CHECK_STR(event(LOG_GUEST_COUNTER_FIXED, 0x2), "instructions:u");
    CHECK_STR(event(LOG_GUEST_COUNTER_FIXED + 1, 0xb), "cycles:uk+pmi");
    CHECK_STR(event(LOG_GUEST_COUNTER_FIXED + 2, 0x1), "ref-cycles:k");
    CHECK_STR(event(LOG_GUEST_COUNTER_FIXED + 5, 0x3), "fixed-event-5:uk");
    char counter[GUEST_PMU_TEXT_MAX];
    guest_pmu_counter_text(3, counter);
    CHECK_STR(counter, "gp3");
    guest_pmu_counter_text(LOG_GUEST_COUNTER_FIXED + 1, counter);
    CHECK_STR(counter, "fixed1");
    CHECK_STR(guest_pmu_delivery_name(LOG_GUEST_PMI_NMI), "nmi");
    CHECK_STR(guest_pmu_delivery_name(LOG_GUEST_PMI_MASKED), "masked");
    CHECK(guest_pmu_delivery_name(LOG_GUEST_PMI_DELIVERY_COUNT) == NULL);
}

TEST(decode_prints_both_records)
{
    static uint8_t storage[1 << 12];
    struct log_ring ring;
    CHECK(log_ring_init(&ring, 0, storage, sizeof(storage)));
    struct log_guest_pmu_prog gp = { .domain = 0, .vcpu = 1, .counter = 2,
                                     .control = 0xc0 | USR | INT | EN };
    struct log_guest_pmi p = { .domain = 0, .vcpu = 1, .status = 0x4, .delivery = 0 };
    CHECK(log_emit_guest_pmu_prog(&ring, 100, &gp));
    CHECK(log_emit_guest_pmi(&ring, 200, &p));
    struct log_test_stream s = { 0 };
    log_test_stream_header(&s, 1);
    log_test_drain(&s, &ring, 4096);
    char *text = log_test_decode_text(s.data, s.len);
    CHECK(strstr(text, " guest-pmu-prog dom=0 vcpu=1 counter=gp2 control=0x5100c0 "
                       "event=\"instructions:u+pmi\"\n") != NULL);
    CHECK(strstr(text, " guest-pmi dom=0 vcpu=1 status=0x4 delivery=nmi\n") != NULL);
    free(text);
    log_test_stream_free(&s);
}

/* ---- vertigo stats ----------------------------------------------------- */

static void add_prog(struct guest_pmu_stats *s, uint32_t vcpu, uint8_t counter, uint64_t control)
{
    struct logdec_record r = { .type = LOG_REC_GUEST_PMU_PROG };
    r.u.guest_pmu_prog = (struct log_guest_pmu_prog){ .vcpu = vcpu, .counter = counter,
                                                      .control = control };
    guest_pmu_stats_add(s, &r);
}

static void add_pmi(struct guest_pmu_stats *s, uint32_t vcpu, uint8_t delivery)
{
    struct logdec_record r = { .type = LOG_REC_GUEST_PMI };
    r.u.guest_pmi = (struct log_guest_pmi){ .vcpu = vcpu, .status = 1, .delivery = delivery };
    guest_pmu_stats_add(s, &r);
}

static char *print(const struct guest_pmu_stats *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    guest_pmu_stats_print(out, s);
    fclose(out);
    return text;
}

TEST(stats_list_programmings_once_and_count_pmis)
{
    struct guest_pmu_stats *s = calloc(1, sizeof(*s));
    char *text = print(s);
    CHECK_STR(text, "");                                /* no guest PMU: no section */
    free(text);
    add_prog(s, 0, LOG_GUEST_COUNTER_FIXED + 1, 0xb);
    add_prog(s, 0, 0, 0xc0 | USR | EN);
    add_prog(s, 0, 0, 0xc0 | USR | EN);                 /* a repeat (another log) */
    add_prog(s, 1, 1, 0x01c2 | OS | EN);
    for (int i = 0; i < 5; i++)
        add_pmi(s, 0, LOG_GUEST_PMI_NMI);
    add_pmi(s, 0, LOG_GUEST_PMI_MASKED);
    struct logdec_record other = { .type = LOG_REC_SAMPLE };
    guest_pmu_stats_add(s, &other);
    text = print(s);
    CHECK_STR(text, "guest pmu (per vcpu):\n"
                    "  dom 0 vcpu 0 programmed 2: fixed1 cycles:uk+pmi, gp0 instructions:u\n"
                    "  dom 0 vcpu 0 pmis 6: nmi=5 vector=0 masked=1\n"
                    "  dom 0 vcpu 1 programmed 1: gp1 raw 0x01c2:k\n"
                    "  dom 0 vcpu 1 pmis 0: nmi=0 vector=0 masked=0\n");
    free(text);
    free(s);
}

TEST(stats_bound_their_tables)
{
    struct guest_pmu_stats *s = calloc(1, sizeof(*s));
    for (uint32_t e = 0; e < GUEST_PMU_STATS_PROGS + 3; e++)
        add_prog(s, 0, 0, (0x10 + e) | USR | EN);
    for (uint32_t v = 1; v <= GUEST_PMU_STATS_VCPUS + 1; v++)
        add_pmi(s, v, LOG_GUEST_PMI_NMI);
    CHECK_EQ(s->vcpus[0].prog_count, GUEST_PMU_STATS_PROGS);
    CHECK_EQ(s->vcpus[0].progs_not_listed, 3);
    CHECK_EQ(s->vcpu_count, GUEST_PMU_STATS_VCPUS);
    CHECK_EQ(s->records_not_shown, 2);
    char *text = print(s);
    CHECK(strstr(text, " (and 3 more)\n") != NULL);
    CHECK(strstr(text, "(2 guest PMU records of VCPUs beyond the first 64 not shown)\n") != NULL);
    free(text);
    free(s);
}
