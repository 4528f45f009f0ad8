/* Helpers for the log tests (see test_log_util.h). */
#include "tests/unit/test_log_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host-tools/log_text.h"
#include "vmm/log/log_emit.h"
#include "vmm/log/log_varint.h"

/* ---- Streams ---------------------------------------------------------- */

void log_test_stream_append(struct log_test_stream *s, const void *data, size_t len)
{
    if (s->len + len > s->cap) {
        s->cap = (s->len + len) * 2 + 4096;
        s->data = realloc(s->data, s->cap);
        if (!s->data)
            abort();
    }
    memcpy(s->data + s->len, data, len);
    s->len += len;
}

void log_test_stream_free(struct log_test_stream *s)
{
    free(s->data);
    memset(s, 0, sizeof(*s));
}

void log_test_stream_header(struct log_test_stream *s, uint16_t cpus)
{
    struct log_stream_info info = {
        .cpu_count = cpus,
        .tsc_hz = 2000000000ull,
        .pmu = { .backend = LOG_PMU_SOFT, .version = 4, .gp_count = 4, .gp_width = 48,
                 .fixed_count = 3, .fixed_width = 48 },
        .record_types = ((1u << LOG_REC_TYPE_COUNT) - 1) & ~1u,
    };
    for (unsigned i = 0; i < LOG_BUILD_ID_SIZE; i++)
        info.build_id[i] = (uint8_t)(0xa0 + i);
    uint8_t hdr[LOG_STREAM_HEADER_SIZE];
    log_encode_stream_header(hdr, &info);
    log_test_stream_append(s, hdr, sizeof(hdr));
}

unsigned log_test_drain(struct log_test_stream *s, struct log_ring *ring, size_t block_max)
{
    uint8_t *buf = malloc(block_max);
    unsigned blocks = 0;
    size_t n;
    while ((n = log_ring_read(ring, buf, block_max)) > 0) {
        log_test_stream_append(s, buf, n);
        blocks++;
    }
    free(buf);
    return blocks;
}

void log_test_raw_record(struct log_test_stream *payload, uint8_t type, int64_t tsc_delta,
                         const void *fields, size_t len)
{
    uint8_t head[1 + 2 * LOG_VARINT_MAX], delta[LOG_VARINT_MAX];
    size_t delta_len = log_varint_put(delta, log_zigzag(tsc_delta));
    head[0] = type;
    size_t head_len = 1 + log_varint_put(head + 1, delta_len + len);
    log_test_stream_append(payload, head, head_len);
    log_test_stream_append(payload, delta, delta_len);
    log_test_stream_append(payload, fields, len);
}

void log_test_block(struct log_test_stream *s, uint16_t cpu, uint32_t seq, uint64_t first_record,
                    uint64_t base_tsc, uint16_t record_count, const struct log_test_stream *payload)
{
    struct log_block_header h = {
        .sync = LOG_BLOCK_SYNC, .cpu = cpu, .payload_len = (uint16_t)payload->len, .seq = seq,
        .record_count = record_count, .first_record = first_record, .base_tsc = base_tsc,
    };
    if (payload->len > LOG_BLOCK_PAYLOAD_MAX)
        abort();
    static const uint8_t empty[1];
    const uint8_t *bytes = payload->len ? payload->data : empty;
    log_encode_block_checksums(&h, bytes);
    log_test_stream_append(s, &h, sizeof(h));
    if (payload->len)
        log_test_stream_append(s, bytes, payload->len);
}

/* ---- Values ----------------------------------------------------------- */

uint64_t log_test_rand(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

/* A number whose size class is random: small, medium or full 64-bit. */
static uint64_t rand_num(uint64_t *rng)
{
    uint64_t r = log_test_rand(rng);
    switch (r % 4) {
    case 0:  return r >> 60;
    case 1:  return r >> 44;
    case 2:  return r >> 20;
    default: return log_test_rand(rng);
    }
}

static uint32_t rand_u32(uint64_t *rng) { return (uint32_t)rand_num(rng); }

static uint32_t rand_text(uint64_t *rng, uint8_t *text, uint32_t max)
{
    uint32_t len = (uint32_t)(log_test_rand(rng) % (max + 1));
    for (uint32_t i = 0; i < len; i++)
        text[i] = (uint8_t)log_test_rand(rng);
    return len;
}

static void random_sample(uint64_t *rng, struct log_sample *s)
{
    s->domain = rand_u32(rng);
    s->vcpu = rand_u32(rng);
    s->mode = (uint8_t)(log_test_rand(rng) % LOG_MODE_COUNT);
    s->event = rand_u32(rng);
    s->rip = log_test_rand(rng);
    s->has_cr3 = log_test_rand(rng) & 1;
    s->cr3 = s->has_cr3 ? rand_num(rng) : 0;
    s->depth = (uint32_t)(log_test_rand(rng) % (LOG_STACK_MAX + 1));
    for (uint32_t i = 0; i < s->depth; i++)
        s->stack[i] = log_test_rand(rng);
}

static void random_interval(uint64_t *rng, struct log_interval *iv)
{
    iv->domain = rand_u32(rng);
    iv->vcpu = rand_u32(rng);
    iv->number = rand_num(rng);
    iv->instructions = rand_num(rng);
    iv->tsc_span = rand_num(rng);
    iv->count = (uint32_t)(log_test_rand(rng) % (LOG_INTERVAL_EVENTS_MAX + 1));
    for (uint32_t i = 0; i < iv->count; i++) {
        iv->events[i].raw = rand_num(rng);
        iv->events[i].running = iv->instructions ? rand_num(rng) % (iv->instructions + 1) : 0;
    }
}

static uint32_t random_values(uint64_t *rng, struct log_counter_value *v, uint32_t max)
{
    uint32_t n = (uint32_t)(log_test_rand(rng) % (max + 1));
    for (uint32_t i = 0; i < n; i++) {
        v[i].id = rand_u32(rng);
        v[i].value = rand_num(rng);
    }
    return n;
}

static void random_symbols(uint64_t *rng, struct log_test_value *v)
{
    struct log_symbols *sym = &v->u.symbols;
    sym->domain = rand_u32(rng);
    sym->kind = (uint8_t)(1 + log_test_rand(rng) % (LOG_SYM_KIND_COUNT - 1));
    sym->pid = rand_u32(rng);
    sym->epoch = rand_num(rng);
    sym->chunk = rand_u32(rng);
    sym->last = log_test_rand(rng) & 1;
    sym->len = rand_text(rng, v->text, LOG_TEXT_MAX);
    sym->data = v->text;
}

static void random_fields(uint64_t *rng, struct log_test_value *v)
{
    switch (v->type) {
    case LOG_REC_CONSOLE:
        v->u.console.source = rand_u32(rng);
        v->u.console.len = rand_text(rng, v->text, LOG_TEXT_MAX);
        v->u.console.text = (const char *)v->text;
        break;
    case LOG_REC_SAMPLE:     random_sample(rng, &v->u.sample); break;
    case LOG_REC_INTERVAL:   random_interval(rng, &v->u.interval); break;
    case LOG_REC_SWCOUNTERS:
        v->u.swcounters.domain = rand_u32(rng);
        v->u.swcounters.vcpu = rand_u32(rng);
        v->u.swcounters.count = random_values(rng, v->u.swcounters.counters, LOG_SWCOUNTERS_MAX);
        break;
    case LOG_REC_LIFECYCLE:
        v->u.lifecycle.domain = rand_u32(rng);
        v->u.lifecycle.vcpu = rand_u32(rng);
        v->u.lifecycle.event = (uint8_t)(1 + log_test_rand(rng) % (LOG_LC_EVENT_COUNT - 1));
        v->u.lifecycle.arg = rand_num(rng);
        break;
    case LOG_REC_SYMBOLS:    random_symbols(rng, v); break;
    case LOG_REC_CONFIG:
        v->u.config.len = 1 + rand_text(rng, v->text, LOG_TEXT_MAX - 1);
        v->u.config.text = (const char *)v->text;
        break;
    case LOG_REC_PMU_TOTALS:
        v->u.pmu_totals.domain = rand_u32(rng);
        v->u.pmu_totals.vcpu = rand_u32(rng);
        v->u.pmu_totals.count = random_values(rng, v->u.pmu_totals.totals, LOG_EVENTS_MAX);
        break;
    case LOG_REC_EVENT_DESC:
        v->u.event_desc.event = rand_u32(rng);
        v->u.event_desc.code = rand_num(rng);
        v->u.event_desc.len = rand_text(rng, v->text, 64);
        v->u.event_desc.name = (const char *)v->text;
        break;
    case LOG_REC_EVENT_PERIOD:
        v->u.event_period.event = rand_u32(rng);
        v->u.event_period.period = rand_num(rng) | 1;
        v->u.event_period.per_vcpu = rand_num(rng) & 1;
        v->u.event_period.domain = v->u.event_period.per_vcpu ? rand_u32(rng) : 0;
        v->u.event_period.vcpu = v->u.event_period.per_vcpu ? rand_u32(rng) : 0;
        break;
    case LOG_REC_USER_STACK:
        v->u.user_stack.domain = rand_u32(rng);
        v->u.user_stack.vcpu = rand_u32(rng);
        for (unsigned int i = 0; i < LOG_UREG_COUNT; i++)
            v->u.user_stack.regs[i] = rand_num(rng);
        v->u.user_stack.len = rand_text(rng, v->text, LOG_USER_STACK_MAX);
        v->u.user_stack.data = v->text;
        break;
    }
}

void log_test_random_value(uint64_t *rng, uint64_t *tsc, struct log_test_value *v)
{
    static const uint8_t types[] = {
        LOG_REC_CONSOLE, LOG_REC_SAMPLE, LOG_REC_SAMPLE, LOG_REC_SAMPLE, LOG_REC_INTERVAL,
        LOG_REC_SWCOUNTERS, LOG_REC_LIFECYCLE, LOG_REC_SYMBOLS, LOG_REC_CONFIG,
        LOG_REC_PMU_TOTALS, LOG_REC_EVENT_DESC, LOG_REC_EVENT_PERIOD, LOG_REC_USER_STACK,
    };
    memset(v, 0, offsetof(struct log_test_value, text));
    v->type = types[log_test_rand(rng) % sizeof(types)];
    /* Mostly forward, sometimes backward (an NMI record that reserved first). */
    uint64_t step = rand_num(rng);
    *tsc = (log_test_rand(rng) % 8) ? *tsc + step : *tsc - (step >> 4);
    v->tsc = *tsc;
    random_fields(rng, v);
}

/* ---- Fixed examples --------------------------------------------------- */

static void set_text(struct log_test_value *v, const char *s, const char **ptr, uint32_t *len)
{
    *len = (uint32_t)strlen(s);
    memcpy(v->text, s, *len);
    *ptr = (const char *)v->text;
}

static void example_sample(struct log_sample *s, uint64_t tsc)
{
    s->domain = 1;
    s->vcpu = (uint32_t)(tsc % 2);
    s->mode = (uint8_t)(tsc % LOG_MODE_COUNT);
    s->event = 0;
    s->rip = s->mode == LOG_MODE_GUEST_USER ? 0x55555555a000ull + tsc % 4096
                                            : 0xffffffff81000000ull + tsc % 65536;
    s->has_cr3 = s->mode != LOG_MODE_HYPERVISOR;
    s->cr3 = s->has_cr3 ? 0x1234000 : 0;
    s->depth = s->mode == LOG_MODE_GUEST_KERNEL ? 3 : 0;
    for (uint32_t i = 0; i < s->depth; i++)
        s->stack[i] = 0xffffffff81100000ull + 0x40 * i;
}

static void example_fields(struct log_test_value *v)
{
    switch (v->type) {
    case LOG_REC_CONSOLE:
        v->u.console.source = 1;
        set_text(v, "Linux version 6.1.0 \"cloud\"\n", &v->u.console.text, &v->u.console.len);
        break;
    case LOG_REC_SAMPLE: example_sample(&v->u.sample, v->tsc); break;
    case LOG_REC_INTERVAL:
        v->u.interval = (struct log_interval){ .domain = 1, .vcpu = 0, .number = 7,
            .instructions = 500000, .tsc_span = 612345, .count = 3,
            .events = { { 250000, 250000 }, { 1000, 250000 }, { 17, 500000 } } };
        break;
    case LOG_REC_SWCOUNTERS:
        v->u.swcounters = (struct log_swcounters){ .domain = 1, .vcpu = 1, .count = 3,
            .counters = { { 0, 42 }, { 1, 7 }, { 5, 123456789 } } };
        break;
    case LOG_REC_LIFECYCLE:
        v->u.lifecycle = (struct log_lifecycle){ .domain = 1, .vcpu = 0,
                                                 .event = LOG_LC_DOMAIN_STOP, .arg = 3 };
        break;
    case LOG_REC_SYMBOLS:
        v->u.symbols = (struct log_symbols){ .domain = 1, .kind = LOG_SYM_JIT_MAP,
                                             .pid = 321, .epoch = 2, .chunk = 0, .last = true };
        set_text(v, "7f0000001000 40 jit_fn\n", (const char **)&v->u.symbols.data,
                 &v->u.symbols.len);
        break;
    case LOG_REC_CONFIG:
        set_text(v, "period=100000 events=cycles,instructions", &v->u.config.text,
                 &v->u.config.len);
        break;
    case LOG_REC_LOSS: v->u.loss.dropped = 9; break;
    case LOG_REC_PMU_TOTALS:
        v->u.pmu_totals = (struct log_pmu_totals){ .domain = 1, .vcpu = 0, .count = 2,
            .totals = { { 0, 987654321 }, { 1, 123456 } } };
        break;
    case LOG_REC_EVENT_DESC:
        v->u.event_desc.event = 1;
        v->u.event_desc.code = 0xc0;
        set_text(v, "instructions", &v->u.event_desc.name, &v->u.event_desc.len);
        break;
    case LOG_REC_EVENT_PERIOD:
        v->u.event_period = (struct log_event_period){ .event = 1, .period = 100003 };
        break;
    case LOG_REC_USER_STACK:
        v->u.user_stack = (struct log_user_stack){ .domain = 1, .vcpu = 0,
            .regs = { 0x401234, 0x7ffffffde100, 0, 7, 0x4c0000, 1, 2, 3 } };
        set_text(v, "\x10\x12\x40\x00\x00\x00\x00\x00 stack bytes",
                 (const char **)&v->u.user_stack.data, &v->u.user_stack.len);
        break;
    case LOG_REC_GUEST_PMU_PROG:    /* perf's instructions:u, sampling, on GP counter 1 */
        v->u.guest_pmu_prog = (struct log_guest_pmu_prog){ .domain = 1, .vcpu = 0, .counter = 1,
                                                           .control = 0x5100c0 };
        break;
    case LOG_REC_GUEST_PMI:
        v->u.guest_pmi = (struct log_guest_pmi){ .domain = 1, .vcpu = 0, .status = 0x2,
                                                 .delivery = LOG_GUEST_PMI_NMI };
        break;
    case LOG_REC_VCPU_STATS:    /* 10 CPUID and 30 preemption-timer exits */
        v->u.vcpu_stats = (struct log_vcpu_stats){ .domain = 1, .vcpu = 0, .exits = 40,
            .switches = 12, .switch_ticks = 24000, .count = 2,
            .reasons = { { 10, 10 }, { 52, 30 } } };
        break;
    case LOG_REC_INTERVAL_EVENTS:   /* a row's entries 0..2 are events 4, 0 and 300 */
        v->u.interval_events = (struct log_interval_events){ .domain = 1, .vcpu = 1,
                                                             .count = 3, .ids = { 4, 0, 300 } };
        break;
    }
}

void log_test_example_value(uint8_t type, uint64_t tsc, struct log_test_value *v)
{
    memset(v, 0, offsetof(struct log_test_value, text));
    v->type = type;
    v->tsc = tsc;
    example_fields(v);
}

bool log_test_emit(struct log_ring *ring, const struct log_test_value *v)
{
    switch (v->type) {
    case LOG_REC_CONSOLE:    return log_emit_console(ring, v->tsc, &v->u.console);
    case LOG_REC_SAMPLE:     return log_emit_sample(ring, v->tsc, &v->u.sample);
    case LOG_REC_INTERVAL:   return log_emit_interval(ring, v->tsc, &v->u.interval);
    case LOG_REC_SWCOUNTERS: return log_emit_swcounters(ring, v->tsc, &v->u.swcounters);
    case LOG_REC_LIFECYCLE:  return log_emit_lifecycle(ring, v->tsc, &v->u.lifecycle);
    case LOG_REC_SYMBOLS:    return log_emit_symbols(ring, v->tsc, &v->u.symbols);
    case LOG_REC_CONFIG:     return log_emit_config(ring, v->tsc, &v->u.config);
    case LOG_REC_PMU_TOTALS: return log_emit_pmu_totals(ring, v->tsc, &v->u.pmu_totals);
    case LOG_REC_EVENT_DESC: return log_emit_event_desc(ring, v->tsc, &v->u.event_desc);
    case LOG_REC_EVENT_PERIOD: return log_emit_event_period(ring, v->tsc, &v->u.event_period);
    case LOG_REC_USER_STACK: return log_emit_user_stack(ring, v->tsc, &v->u.user_stack);
    case LOG_REC_GUEST_PMU_PROG: return log_emit_guest_pmu_prog(ring, v->tsc, &v->u.guest_pmu_prog);
    case LOG_REC_GUEST_PMI:  return log_emit_guest_pmi(ring, v->tsc, &v->u.guest_pmi);
    case LOG_REC_VCPU_STATS: return log_emit_vcpu_stats(ring, v->tsc, &v->u.vcpu_stats);
    case LOG_REC_INTERVAL_EVENTS:
        return log_emit_interval_events(ring, v->tsc, &v->u.interval_events);
    default:                 return false;   /* LOSS is written by the ring itself */
    }
}

/* ---- Comparing -------------------------------------------------------- */

static bool same_text(const void *a, uint32_t alen, const void *b, uint32_t blen)
{
    return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

static bool same_values(const struct log_counter_value *a, const struct log_counter_value *b,
                        uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (a[i].id != b[i].id || a[i].value != b[i].value)
            return false;
    return true;
}

static bool same_sample(const struct log_sample *a, const struct log_sample *b)
{
    if (a->domain != b->domain || a->vcpu != b->vcpu || a->mode != b->mode ||
        a->event != b->event || a->rip != b->rip || a->has_cr3 != b->has_cr3 ||
        a->cr3 != b->cr3 || a->depth != b->depth)
        return false;
    for (uint32_t i = 0; i < a->depth; i++)
        if (a->stack[i] != b->stack[i])
            return false;
    return true;
}

static bool same_interval(const struct log_interval *a, const struct log_interval *b)
{
    if (a->domain != b->domain || a->vcpu != b->vcpu || a->number != b->number ||
        a->instructions != b->instructions || a->tsc_span != b->tsc_span || a->count != b->count)
        return false;
    for (uint32_t i = 0; i < a->count; i++)
        if (a->events[i].raw != b->events[i].raw || a->events[i].running != b->events[i].running)
            return false;
    return true;
}

static bool same_symbols(const struct log_symbols *a, const struct log_symbols *b)
{
    return a->domain == b->domain && a->kind == b->kind && a->pid == b->pid &&
           a->epoch == b->epoch && a->chunk == b->chunk && a->last == b->last &&
           same_text(a->data, a->len, b->data, b->len);
}

static bool same_fields(const struct log_test_value *v, const struct log_test_value *got)
{
    const typeof(v->u) *a = &v->u, *b = &got->u;
    switch (v->type) {
    case LOG_REC_CONSOLE:
        return a->console.source == b->console.source &&
               same_text(a->console.text, a->console.len, b->console.text, b->console.len);
    case LOG_REC_SAMPLE:     return same_sample(&a->sample, &b->sample);
    case LOG_REC_INTERVAL:   return same_interval(&a->interval, &b->interval);
    case LOG_REC_SWCOUNTERS:
        return a->swcounters.domain == b->swcounters.domain &&
               a->swcounters.vcpu == b->swcounters.vcpu &&
               a->swcounters.count == b->swcounters.count &&
               same_values(a->swcounters.counters, b->swcounters.counters, a->swcounters.count);
    case LOG_REC_LIFECYCLE:
        return a->lifecycle.domain == b->lifecycle.domain && a->lifecycle.vcpu == b->lifecycle.vcpu &&
               a->lifecycle.event == b->lifecycle.event && a->lifecycle.arg == b->lifecycle.arg;
    case LOG_REC_SYMBOLS:    return same_symbols(&a->symbols, &b->symbols);
    case LOG_REC_CONFIG:
        return same_text(a->config.text, a->config.len, b->config.text, b->config.len);
    case LOG_REC_LOSS:       return a->loss.dropped == b->loss.dropped;
    case LOG_REC_PMU_TOTALS:
        return a->pmu_totals.domain == b->pmu_totals.domain &&
               a->pmu_totals.vcpu == b->pmu_totals.vcpu &&
               a->pmu_totals.count == b->pmu_totals.count &&
               same_values(a->pmu_totals.totals, b->pmu_totals.totals, a->pmu_totals.count);
    case LOG_REC_EVENT_DESC:
        return a->event_desc.event == b->event_desc.event &&
               a->event_desc.code == b->event_desc.code &&
               same_text(a->event_desc.name, a->event_desc.len, b->event_desc.name,
                         b->event_desc.len);
    case LOG_REC_EVENT_PERIOD:
        return a->event_period.event == b->event_period.event &&
               a->event_period.period == b->event_period.period &&
               a->event_period.per_vcpu == b->event_period.per_vcpu &&
               a->event_period.domain == b->event_period.domain &&
               a->event_period.vcpu == b->event_period.vcpu;
    case LOG_REC_USER_STACK:
        return a->user_stack.domain == b->user_stack.domain &&
               a->user_stack.vcpu == b->user_stack.vcpu &&
               !memcmp(a->user_stack.regs, b->user_stack.regs, sizeof(a->user_stack.regs)) &&
               same_text((const char *)a->user_stack.data, a->user_stack.len,
                         (const char *)b->user_stack.data, b->user_stack.len);
    case LOG_REC_GUEST_PMU_PROG:
        return a->guest_pmu_prog.domain == b->guest_pmu_prog.domain &&
               a->guest_pmu_prog.vcpu == b->guest_pmu_prog.vcpu &&
               a->guest_pmu_prog.counter == b->guest_pmu_prog.counter &&
               a->guest_pmu_prog.control == b->guest_pmu_prog.control;
    case LOG_REC_GUEST_PMI:
        return a->guest_pmi.domain == b->guest_pmi.domain && a->guest_pmi.vcpu == b->guest_pmi.vcpu &&
               a->guest_pmi.status == b->guest_pmi.status &&
               a->guest_pmi.delivery == b->guest_pmi.delivery;
    case LOG_REC_VCPU_STATS:
        return a->vcpu_stats.domain == b->vcpu_stats.domain &&
               a->vcpu_stats.vcpu == b->vcpu_stats.vcpu && a->vcpu_stats.exits == b->vcpu_stats.exits &&
               a->vcpu_stats.switches == b->vcpu_stats.switches &&
               a->vcpu_stats.switch_ticks == b->vcpu_stats.switch_ticks &&
               a->vcpu_stats.count == b->vcpu_stats.count &&
               same_values(a->vcpu_stats.reasons, b->vcpu_stats.reasons, a->vcpu_stats.count);
    case LOG_REC_INTERVAL_EVENTS:
        return a->interval_events.domain == b->interval_events.domain &&
               a->interval_events.vcpu == b->interval_events.vcpu &&
               a->interval_events.count == b->interval_events.count &&
               !memcmp(a->interval_events.ids, b->interval_events.ids,
                       a->interval_events.count * sizeof(a->interval_events.ids[0]));
    default:
        return false;
    }
}

bool log_test_value_matches(const struct log_test_value *v, const struct log_test_value *got)
{
    return v->type == got->type && v->tsc == got->tsc && same_fields(v, got);
}

/* ---- Collecting decoder output ---------------------------------------- */

/* Points the text fields of v at its own storage (after copies and
 * reallocation); returns the field's old pointer and length. */
static const void *rebind_text(struct log_test_value *v, uint32_t *len)
{
    const void *old = NULL;
    *len = 0;
    switch (v->type) {
    case LOG_REC_CONSOLE:    old = v->u.console.text; *len = v->u.console.len;
                             v->u.console.text = (const char *)v->text; break;
    case LOG_REC_SYMBOLS:    old = v->u.symbols.data; *len = v->u.symbols.len;
                             v->u.symbols.data = v->text; break;
    case LOG_REC_CONFIG:     old = v->u.config.text; *len = v->u.config.len;
                             v->u.config.text = (const char *)v->text; break;
    case LOG_REC_EVENT_DESC: old = v->u.event_desc.name; *len = v->u.event_desc.len;
                             v->u.event_desc.name = (const char *)v->text; break;
    case LOG_REC_USER_STACK: old = v->u.user_stack.data; *len = v->u.user_stack.len;
                             v->u.user_stack.data = v->text; break;
    }
    return old;
}

/* Copies a decoded record into a value that owns its text. */
static void record_to_value(const struct logdec_record *r, struct log_test_value *v)
{
    memset(v, 0, offsetof(struct log_test_value, text));
    v->type = r->type;
    v->tsc = r->tsc;
    memcpy(&v->u, &r->u, sizeof(v->u));
    uint32_t len;
    const void *src = rebind_text(v, &len);
    if (len)
        memcpy(v->text, src, len);
}

static void collect_record(void *user, const struct logdec_record *r)
{
    struct log_test_decoded *d = user;
    if (d->count == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 64;
        d->values = realloc(d->values, d->cap * sizeof(*d->values));
        d->records = realloc(d->records, d->cap * sizeof(*d->records));
        if (!d->values || !d->records)
            abort();
    }
    record_to_value(r, &d->values[d->count]);
    d->records[d->count] = *r;
    d->count++;
}

static void collect_problem(void *user, const struct logdec_problem *p)
{
    struct log_test_decoded *d = user;
    if (d->problem_count < sizeof(d->problems) / sizeof(d->problems[0]))
        d->problems[d->problem_count++] = *p;
}

static void collect_header(void *user, const struct log_stream_header *h, uint64_t offset)
{
    (void)h;
    (void)offset;
    ((struct log_test_decoded *)user)->headers++;
}

void log_test_decode(const void *data, size_t len, size_t chunk, struct log_test_decoded *out)
{
    static const struct logdec_callbacks cb = {
        .header = collect_header, .record = collect_record, .problem = collect_problem,
    };
    struct logdec *dec = malloc(sizeof(*dec));
    if (!dec)
        abort();
    memset(out, 0, sizeof(*out));
    logdec_init(dec, &cb, out);
    const uint8_t *p = data;
    if (!chunk)
        chunk = len ? len : 1;
    for (size_t off = 0; off < len; off += chunk)
        logdec_feed(dec, p + off, len - off < chunk ? len - off : chunk);
    logdec_finish(dec);
    for (size_t i = 0; i < out->count; i++) {
        uint32_t text_len;
        rebind_text(&out->values[i], &text_len);
    }
    out->totals = dec->totals;
    out->verdict = logdec_verdict(dec);
    free(dec);
}

void log_test_decode_ring(struct log_ring *ring, struct log_test_decoded *out)
{
    struct log_test_stream st = { 0 };
    log_test_stream_header(&st, 1);
    log_test_drain(&st, ring, 4096);
    log_test_decode(st.data, st.len, 0, out);
    log_test_stream_free(&st);
}

void log_test_decoded_free(struct log_test_decoded *d)
{
    free(d->values);
    free(d->records);
    memset(d, 0, sizeof(*d));
}

static void text_header(void *user, const struct log_stream_header *h, uint64_t offset)
{
    log_text_header(user, h, offset);
}

static void text_record(void *user, const struct logdec_record *r)
{
    log_text_record(user, r);
}

static void text_problem(void *user, const struct logdec_problem *p)
{
    log_text_problem(user, p);
}

char *log_test_decode_text(const void *data, size_t len)
{
    return log_test_decode_text_loop(data, len, -1);
}

char *log_test_decode_text_loop(const void *data, size_t len, int pext)
{
    static const struct logdec_callbacks cb = {
        .header = text_header, .record = text_record, .problem = text_problem,
    };
    char *text = NULL;
    size_t text_len = 0;
    FILE *out = open_memstream(&text, &text_len);
    struct logdec *dec = malloc(sizeof(*dec));
    if (!out || !dec)
        abort();
    logdec_init(dec, &cb, out);
    if (pext >= 0)
        dec->pext = pext;
    logdec_feed(dec, data, len);
    logdec_finish(dec);
    free(dec);
    fclose(out);
    return text;
}
