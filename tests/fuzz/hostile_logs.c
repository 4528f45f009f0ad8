/* Hostile logs (see hostile_logs.h), written with the hypervisor's own
 * encoder (vmm/log/log_encode.c) into blocks with correct checksums, so the
 * decoder passes every record on to the tools behind it. */
#include "tests/fuzz/hostile_logs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vmm/log/log_encode.h"
#include "vmm/log/log_varint.h"

#define BLOCK_FILL 60000u                /* payload bytes before a new block */
#define PATH_LEN 1024u
#define TRUNCATED_ELF 3000                /* bytes: headers, no section table */
#define TSC_STEP 1000u
#define JIT_NAME_LEN 1000u
#ifndef VERTIGO_SOURCE_DIR                /* the source tree (tests/fuzz/fuzz.mk) */
#define VERTIGO_SOURCE_DIR "."
#endif

/* A stream being written: the payload of the open block. */
struct writer {
    struct log_test_stream *out, payload;
    uint32_t seq;
    uint16_t records;
    uint64_t first_record, block_tsc, tsc;
};

static void flush(struct writer *w)
{
    if (!w->records)
        return;
    log_test_block(w->out, 0, w->seq++, w->first_record, w->block_tsc, w->records, &w->payload);
    w->first_record += w->records;
    w->records = 0;
    w->payload.len = 0;
}

/* One record of type with field bytes f[0..len), TSC_STEP after the last. */
static void put(struct writer *w, uint8_t type, const uint8_t *f, size_t len)
{
    if (w->payload.len + LOG_RECORD_WIRE_MAX > BLOCK_FILL || w->records == UINT16_MAX)
        flush(w);
    if (!w->records)
        w->block_tsc = w->tsc;
    int64_t delta = w->records ? TSC_STEP : 0;
    w->tsc = w->records ? w->tsc + TSC_STEP : w->tsc;
    log_test_raw_record(&w->payload, type, delta, f, len);
    w->records++;
    if (!w->records)
        abort();
}

static void sample(struct writer *w, const struct log_sample *s)
{
    uint8_t f[LOG_FIELDS_MAX];
    put(w, LOG_REC_SAMPLE, f, log_encode_sample(f, s));
}

static void user_sample(struct writer *w, uint64_t rip, bool has_cr3, uint64_t cr3)
{
    struct log_sample s = { .mode = LOG_MODE_GUEST_USER, .rip = rip, .has_cr3 = has_cr3, .cr3 = cr3 };
    sample(w, &s);
}

/* A whole set of text (kind, pid, epoch) in chunks of LOG_TEXT_MAX bytes. */
static void symbols(struct writer *w, uint8_t kind, uint32_t pid, uint64_t epoch, const char *text)
{
    size_t len = strlen(text), off = 0;
    uint32_t chunk = 0;
    do {
        size_t n = len - off < LOG_TEXT_MAX ? len - off : LOG_TEXT_MAX;
        struct log_symbols r = { .kind = kind, .pid = pid, .epoch = epoch, .chunk = chunk++,
                                 .last = off + n == len, .data = (const uint8_t *)text + off,
                                 .len = (uint32_t)n };
        uint8_t f[LOG_FIELDS_MAX];
        put(w, LOG_REC_SYMBOLS, f, log_encode_symbols(f, &r));
        off += n;
    } while (off < len);
}

static void jit_region(struct writer *w)
{
    char maps[128];
    snprintf(maps, sizeof(maps), "%llx-%llx rwxp 00000000 00:00 0\n",
             (unsigned long long)HOSTILE_JIT_BASE, (unsigned long long)HOSTILE_JIT_BASE + (1ull << 40));
    symbols(w, LOG_SYM_PROC_MAPS, HOSTILE_PID, 0, maps);
}

/* ---- The kinds ------------------------------------------------------ */

static void many_events(struct writer *w, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof(name), "ev%u", i);
        struct log_event_desc ed = { .event = i, .name = name, .len = (uint32_t)strlen(name) };
        uint8_t f[LOG_FIELDS_MAX];
        put(w, LOG_REC_EVENT_DESC, f, log_encode_event_desc(f, &ed));
        struct log_sample s = { .mode = LOG_MODE_GUEST_KERNEL, .event = i, .rip = 0xffffffff81000000ull + i };
        sample(w, &s);
    }
}

/* Events named with mode suffixes, two sharing the base "instructions"
 * (n is ignored): what `--event NAME` without a suffix picks. */
static void mode_suffixes(struct writer *w, uint32_t n)
{
    static const char *const names[] = { "cycles:ukh", "instructions:u", "instructions:k" };
    (void)n;
    for (uint32_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        struct log_event_desc ed = { .event = i, .name = names[i], .len = (uint32_t)strlen(names[i]) };
        uint8_t f[LOG_FIELDS_MAX];
        put(w, LOG_REC_EVENT_DESC, f, log_encode_event_desc(f, &ed));
        struct log_sample s = { .mode = LOG_MODE_GUEST_KERNEL, .event = i, .rip = 0xffffffff81000000ull + i };
        sample(w, &s);
    }
}

static void many_vcpus(struct writer *w, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        struct log_sample s = { .mode = LOG_MODE_GUEST_KERNEL, .vcpu = i, .rip = 0xffffffff81000000ull };
        sample(w, &s);
    }
}

static void period(struct writer *w, uint64_t period, bool per_vcpu, uint32_t domain,
                   uint32_t vcpu)
{
    struct log_event_period ep = { .period = period, .per_vcpu = per_vcpu, .domain = domain,
                                   .vcpu = vcpu };
    uint8_t f[LOG_FIELDS_MAX];
    put(w, LOG_REC_EVENT_PERIOD, f, log_encode_event_period(f, &ep));
}

static void vcpu_sample(struct writer *w, uint32_t domain, uint32_t vcpu)
{
    struct log_sample s = { .mode = LOG_MODE_GUEST_KERNEL, .domain = domain, .vcpu = vcpu,
                            .rip = 0xffffffff81000000ull };
    sample(w, &s);
}

/* Each sample's period, in the order written: 1000 1000 3000 1000 1000
 * 500 200 (HOSTILE_PERIODS_EVENTS), then i + 1 for VCPU i of domain 3. */
static void vcpu_periods(struct writer *w, uint32_t n)
{
    period(w, 1000, false, 0, 0);                /* the session's */
    vcpu_sample(w, 0, 0);
    vcpu_sample(w, 0, 1);
    period(w, 3000, true, 0, 0);                 /* VCPU 0's own */
    vcpu_sample(w, 0, 0);
    vcpu_sample(w, 0, 1);
    period(w, 7000, true, 2, 1);                 /* another domain's VCPU 1 */
    vcpu_sample(w, 0, 1);
    period(w, 500, false, 0, 0);                 /* a new session: VCPU 0's ends */
    vcpu_sample(w, 0, 0);
    period(w, 200, true, 0, 0);
    vcpu_sample(w, 0, 0);
    for (uint32_t i = 0; i < n; i++) {
        period(w, i + 1ull, true, 3, i);
        vcpu_sample(w, 3, i);
    }
}

static void jit_sets(struct writer *w, uint32_t n)
{
    jit_region(w);
    for (uint32_t i = 0; i < n; i++) {
        char line[64];
        snprintf(line, sizeof(line), "%llx 10 jit_%u\n",
                 (unsigned long long)(HOSTILE_JIT_BASE + 0x10ull * i), i);
        symbols(w, LOG_SYM_JIT_MAP, HOSTILE_PID, i + 1, line);
    }
    for (uint32_t i = 0; i < n; i++)
        user_sample(w, HOSTILE_JIT_BASE + 0x10ull * i + 1, false, 0);
}

static void unfinished(struct writer *w, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        struct log_symbols r = { .kind = LOG_SYM_PROC_MAPS, .pid = i + 1, .chunk = 0,
                                 .data = (const uint8_t *)"400000-401000 r-xp 0 00:00 0 /x\n",
                                 .len = 32 };
        uint8_t f[LOG_FIELDS_MAX];
        put(w, LOG_REC_SYMBOLS, f, log_encode_symbols(f, &r));
    }
    struct log_sample s = { .mode = LOG_MODE_GUEST_KERNEL, .rip = 0xffffffff81000000ull };
    sample(w, &s);
}

/* Process i maps [0x400000 + i pages) under "/bin/pI"; with identities,
 * it runs on CR3 (i + 1) * 0x2000 and each sample carries its CR3. */
static void processes(struct writer *w, uint32_t n, bool identities)
{
    char text[128];
    for (uint32_t i = 0; i < n; i++) {
        uint64_t start = 0x400000ull + 0x1000ull * i;
        snprintf(text, sizeof(text), "%llx-%llx r-xp 00000000 00:00 0 /bin/p%u\n",
                 (unsigned long long)start, (unsigned long long)start + 0x1000, i);
        symbols(w, LOG_SYM_PROC_MAPS, i + 1, 0, text);
        if (identities) {
            snprintf(text, sizeof(text), "%u %llx p%u\n", i + 1, (unsigned long long)(i + 1) * 0x2000, i);
            symbols(w, LOG_SYM_PROCESS, i + 1, 0, text);
        }
    }
    for (uint32_t i = 0; i < n; i++)
        user_sample(w, 0x400000ull + 0x1000ull * i + 0x10, identities, (uint64_t)(i + 1) * 0x2000);
}

static void paths(struct writer *w, uint32_t n)
{
    static const char *const names[] = {
        "/../../../../../../etc/passwd", "/bin/../../../etc/hostname", "/lib/fifo.so",
        "/lib/loop.so", "/lib/escape.so", "/lib/abs.so", "/lib/trunc.so", "/lib/text.so",
        "/dev/zero", "/proc/self/mem", "/bin/workload", "[vdso]", "/",
    };
    size_t count = sizeof(names) / sizeof(names[0]);
    char maps[4096];
    size_t len = 0;
    for (size_t i = 0; i < count; i++)
        len += (size_t)snprintf(maps + len, sizeof(maps) - len, "%llx-%llx r-xp 00000000 00:00 0 %s\n",
                                (unsigned long long)(0x10000000ull * (i + 1)),
                                (unsigned long long)(0x10000000ull * (i + 1) + 0x100000), names[i]);
    symbols(w, LOG_SYM_PROC_MAPS, HOSTILE_PID, 0, maps);
    for (uint32_t k = 0; k < n; k++)
        for (size_t i = 0; i < count; i++)
            user_sample(w, 0x10000000ull * (i + 1) + 0x1000 + k, false, 0);
}

static void long_names(struct writer *w, uint32_t n)
{
    jit_region(w);
    char *line = malloc(JIT_NAME_LEN + 64);
    if (!line)
        abort();
    for (uint32_t f = 0; f < LOG_STACK_MAX + 1; f++) {
        int k = snprintf(line, JIT_NAME_LEN + 64, "%llx 10 ",
                         (unsigned long long)(HOSTILE_JIT_BASE + 0x10ull * f));
        memset(line + k, 'a' + (char)(f % 26), JIT_NAME_LEN - (size_t)k - 1);
        strcpy(line + JIT_NAME_LEN - 1, "\n");
        symbols(w, LOG_SYM_JIT_MAP, HOSTILE_PID, f + 1, line);
    }
    free(line);
    for (uint32_t i = 0; i < n; i++) {
        struct log_sample s = { .mode = LOG_MODE_GUEST_USER, .rip = HOSTILE_JIT_BASE + i % 16,
                                .depth = LOG_STACK_MAX };
        for (uint32_t f = 0; f < LOG_STACK_MAX; f++)
            s.stack[f] = HOSTILE_JIT_BASE + 0x10ull * (f + 1) + 1 + (i / 16 + f) % 8;
        sample(w, &s);
    }
}

static void many_totals(struct writer *w, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        struct log_pmu_totals pt = { .vcpu = i, .count = 1, .totals = { { 0, i } } };
        uint8_t f[LOG_FIELDS_MAX];
        put(w, LOG_REC_PMU_TOTALS, f, log_encode_pmu_totals(f, &pt));
    }
}

static void losses(struct writer *w, uint32_t n)
{
    uint8_t f[LOG_VARINT_MAX];
    for (uint32_t i = 0; i < n; i++)
        put(w, LOG_REC_LOSS, f, log_varint_put(f, UINT64_MAX));
}

/* Records whose fields break the format's ranges (the decoder drops each). */
static void out_of_range(struct writer *w, uint32_t n)
{
    static const uint8_t bad[][12] = {
        { 3, 0, 0, 0, 2 },                   /* sample, mode 3 */
        { 0x12, 0, 0, 0, 2 },                /* sample, flag bit 4 */
        { 0x09, 0, 0, 0, 2, 33 },            /* sample, depth 33 */
        { 0, 0, 0, 0 },                      /* lifecycle event 0 */
        { 0, 9, 1, 0, 0, 1, 'x' },           /* symbols kind 9 */
        { 0, 1, 1, 0, 0, 2, 'x' },           /* symbols last 2 */
        { 0 },                               /* loss of 0 */
    };
    static const uint8_t types[] = { LOG_REC_SAMPLE, LOG_REC_SAMPLE, LOG_REC_SAMPLE,
                                     LOG_REC_LIFECYCLE, LOG_REC_SYMBOLS, LOG_REC_SYMBOLS,
                                     LOG_REC_LOSS };
    static const uint8_t lens[] = { 5, 5, 6, 4, 7, 7, 1 };
    for (uint32_t i = 0; i < n; i++)
        for (size_t k = 0; k < sizeof(types); k++)
            put(w, types[k], bad[k], lens[k]);
}

/* A name holding everything a writer must not pass raw: an escape
 * sequence, CR, LF, TAB, quotes, separators of CSV and folded stacks, a
 * backslash, DEL, C1 CSI (U+009B), invalid UTF-8 (a stray continuation
 * byte, an overlong '/', a cut sequence) and valid UTF-8 (e acute, euro). */
#define HOSTILE_TEXT "\x1b[31mred\r\n\tx\"y',;z \\\x7f\xc2\x9b\x80\xc0\xaf\xc3\xa9\xe2\x82\xac\xe2\x82"

static void config(struct writer *w, const char *text)
{
    struct log_config c = { .text = text, .len = (uint32_t)strlen(text) };
    uint8_t f[LOG_FIELDS_MAX];
    put(w, LOG_REC_CONFIG, f, log_encode_config(f, &c));
}

static void event_desc(struct writer *w, uint32_t id, const char *name)
{
    struct log_event_desc ed = { .event = id, .name = name, .len = (uint32_t)strlen(name) };
    uint8_t f[LOG_FIELDS_MAX];
    put(w, LOG_REC_EVENT_DESC, f, log_encode_event_desc(f, &ed));
}

/* n interval rows of VCPU vcpu of domain 1 (two events, the first
 * extrapolated), numbered from first. */
static void interval_rows(struct writer *w, uint32_t vcpu, uint64_t first, uint32_t n,
                          uint64_t instructions)
{
    for (uint32_t i = 0; i < n; i++) {
        struct log_interval iv = { .domain = 1, .vcpu = vcpu, .number = first + i,
                                   .instructions = instructions, .tsc_span = TSC_STEP / 2,
                                   .count = 2, .events = { { 100 + 7 * i, instructions / 2 },
                                                           { 3 * i + 1, instructions } } };
        uint8_t f[LOG_FIELDS_MAX];
        put(w, LOG_REC_INTERVAL, f, log_encode_interval(f, &iv));
    }
}

/* Hostile text in every name a writer shows: two sampled events' and
 * two interval events' names, a domain's name, a process's name and
 * maps path, a JIT function, a kallsyms symbol and module, console text;
 * samples in each and n interval rows (at least 3: correlate needs 2). */
static void escapes(struct writer *w, uint32_t n)
{
    char text[512];
    config(w, "log=e9 dom.0.name=" HOSTILE_TEXT " dom.1.name=web");
    event_desc(w, 0, "ev0 " HOSTILE_TEXT);
    event_desc(w, 1, HOSTILE_TEXT " ev1");
    snprintf(text, sizeof(text), "ffffffff81000000 T sym_" HOSTILE_TEXT " [mod" HOSTILE_TEXT "]\n"
             "ffffffff81001000 T plain\n");
    symbols(w, LOG_SYM_KALLSYMS, 0, 0, text);
    snprintf(text, sizeof(text), "400000-401000 r-xp 00000000 00:00 0 /bin/" HOSTILE_TEXT "\n"
             "%llx-%llx rwxp 00000000 00:00 0\n", (unsigned long long)HOSTILE_JIT_BASE,
             (unsigned long long)HOSTILE_JIT_BASE + 0x100000);
    symbols(w, LOG_SYM_PROC_MAPS, HOSTILE_PID, 0, text);
    snprintf(text, sizeof(text), "%u 2000 comm_" HOSTILE_TEXT "\n", HOSTILE_PID);
    symbols(w, LOG_SYM_PROCESS, HOSTILE_PID, 0, text);
    snprintf(text, sizeof(text), "%llx 40 jit_" HOSTILE_TEXT "\n", (unsigned long long)HOSTILE_JIT_BASE);
    symbols(w, LOG_SYM_JIT_MAP, HOSTILE_PID, 1, text);
    struct log_console c = { .source = 1, .text = HOSTILE_TEXT "\n", .len = sizeof(HOSTILE_TEXT) };
    uint8_t f[LOG_FIELDS_MAX];
    put(w, LOG_REC_CONSOLE, f, log_encode_console(f, &c));
    for (uint32_t e = 0; e < 2; e++) {
        struct log_sample s = { .mode = LOG_MODE_GUEST_KERNEL, .event = e, .rip = 0xffffffff81000010ull,
                                .has_cr3 = true, .cr3 = 0x2000 };
        sample(w, &s);
        user_sample(w, 0x400010, true, 0x2000);
        user_sample(w, HOSTILE_JIT_BASE + 8, true, 0x2000);
    }
    interval_rows(w, 0, 0, n < 3 ? 3 : n, 1000);
}

/* Two vcpu-stats records of domain 3 with 2^63 exits each (and of one
 * reason): their sum passes 64 bits; n is ignored. */
static void exit_sums(struct writer *w, uint32_t n)
{
    (void)n;
    for (uint32_t v = 0; v < 2; v++) {
        struct log_vcpu_stats vs = { .domain = 3, .vcpu = v, .exits = 1ull << 63, .switches = 1,
                                     .count = 1, .reasons = { { 10, 1ull << 63 } } };
        uint8_t f[LOG_FIELDS_MAX];
        put(w, LOG_REC_VCPU_STATS, f, log_encode_vcpu_stats(f, &vs));
    }
}

/* Two alike samples of a period of 2^63: they stand for 2^64 events.
 * With n > 0, a period of 2^62 and three (past pprof's 2^63 - 1, within
 * 64 bits). */
static void period_sums(struct writer *w, uint32_t n)
{
    period(w, n ? 1ull << 62 : 1ull << 63, false, 0, 0);
    for (uint32_t i = 0; i < (n ? 3u : 2u); i++)
        vcpu_sample(w, 0, 0);
}

/* Interval rows whose sums pass 64 bits: with n = 0, rows numbered 0 and
 * 2^64 - 1 on two VCPUs (the missing rows add up past it); n = 1, two
 * rows of 2^63 instructions each on one VCPU; n = 2, a row whose span is
 * longer than its TSC. */
static void row_sums(struct writer *w, uint32_t n)
{
    event_desc(w, 0, "instructions");
    if (n == 0) {
        for (uint32_t v = 0; v < 2; v++) {
            interval_rows(w, v, 0, 1, 1000);
            interval_rows(w, v, UINT64_MAX, 1, 1000);
        }
    } else if (n == 1) {
        interval_rows(w, 0, 0, 2, 1ull << 63);
    } else {
        struct log_interval iv = { .domain = 1, .number = 0, .instructions = 10,
                                   .tsc_span = UINT64_MAX, .count = 1, .events = { { 1, 10 } } };
        uint8_t f[LOG_FIELDS_MAX];
        put(w, LOG_REC_INTERVAL, f, log_encode_interval(f, &iv));
        interval_rows(w, 0, 1, 3, 1000);
    }
}

/* Domains for --guest-root NAME=: two named "web" (1 and 4), and ids
 * beyond 255 (300, 2^32 - 1), each with a user sample in /bin/workload
 * (n ignored). */
static void domain_ids(struct writer *w, uint32_t n)
{
    static const uint32_t ids[] = { 0, 1, 4, 300, UINT32_MAX };
    (void)n;
    config(w, "log=e9 dom.1.name=web dom.4.name=web");
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        struct log_symbols r = { .domain = ids[i], .kind = LOG_SYM_PROC_MAPS, .pid = HOSTILE_PID,
                                 .last = true,
                                 .data = (const uint8_t *)"400000-500000 r-xp 0 00:00 0 /bin/workload\n",
                                 .len = 43 };
        uint8_t f[LOG_FIELDS_MAX];
        put(w, LOG_REC_SYMBOLS, f, log_encode_symbols(f, &r));
        struct log_sample s = { .mode = LOG_MODE_GUEST_USER, .domain = ids[i], .rip = 0x401000 };
        sample(w, &s);
    }
}

/* One record of every type, fields at their largest (n ignored). */
static void every_type(struct writer *w, uint32_t n)
{
    uint8_t f[LOG_FIELDS_MAX], stack[LOG_USER_STACK_MAX] = { 0 };
    (void)n;
    config(w, "log=e9 dom.4294967295.name=last");
    event_desc(w, UINT32_MAX, "ev_max");
    period(w, UINT64_MAX, true, UINT32_MAX, UINT32_MAX);
    struct log_console c = { .source = UINT32_MAX, .text = "x", .len = 1 };
    put(w, LOG_REC_CONSOLE, f, log_encode_console(f, &c));
    struct log_sample s = { .domain = UINT32_MAX, .vcpu = UINT32_MAX, .mode = LOG_MODE_GUEST_USER,
                            .event = UINT32_MAX, .rip = UINT64_MAX, .has_cr3 = true,
                            .cr3 = UINT64_MAX, .depth = LOG_STACK_MAX };
    for (uint32_t i = 0; i < LOG_STACK_MAX; i++)
        s.stack[i] = i & 1 ? 0 : UINT64_MAX;
    struct log_user_stack us = { .domain = UINT32_MAX, .vcpu = UINT32_MAX, .data = stack,
                                 .len = LOG_USER_STACK_MAX };
    for (uint32_t r = 0; r < LOG_UREG_COUNT; r++)
        us.regs[r] = UINT64_MAX;
    put(w, LOG_REC_USER_STACK, f, log_encode_user_stack(f, &us));
    sample(w, &s);
    struct log_interval iv = { .domain = UINT32_MAX, .vcpu = UINT32_MAX, .number = UINT64_MAX,
                               .instructions = UINT64_MAX, .tsc_span = 0,
                               .count = LOG_INTERVAL_EVENTS_MAX };
    for (uint32_t e = 0; e < iv.count; e++)
        iv.events[e] = (struct log_interval_event){ UINT64_MAX, e & 1 ? UINT64_MAX : 1 };
    put(w, LOG_REC_INTERVAL, f, log_encode_interval(f, &iv));
    struct log_swcounters sw = { .domain = UINT32_MAX, .vcpu = UINT32_MAX, .count = LOG_SWCOUNTERS_MAX };
    struct log_pmu_totals pt = { .domain = UINT32_MAX, .vcpu = UINT32_MAX, .count = LOG_EVENTS_MAX };
    struct log_vcpu_stats vs = { .domain = UINT32_MAX, .vcpu = UINT32_MAX, .exits = UINT64_MAX,
                                 .switches = UINT64_MAX, .switch_ticks = UINT64_MAX,
                                 .count = LOG_VCPU_STATS_REASONS_MAX };
    for (uint32_t i = 0; i < LOG_SWCOUNTERS_MAX; i++)
        sw.counters[i] = (struct log_counter_value){ UINT32_MAX - i, UINT64_MAX };
    for (uint32_t i = 0; i < LOG_EVENTS_MAX; i++)
        pt.totals[i] = (struct log_counter_value){ UINT32_MAX - i, UINT64_MAX };
    for (uint32_t i = 0; i < LOG_VCPU_STATS_REASONS_MAX; i++)
        vs.reasons[i] = (struct log_counter_value){ i == 1 ? UINT32_MAX : i, i ? 0 : UINT64_MAX };
    put(w, LOG_REC_SWCOUNTERS, f, log_encode_swcounters(f, &sw));
    put(w, LOG_REC_PMU_TOTALS, f, log_encode_pmu_totals(f, &pt));
    put(w, LOG_REC_VCPU_STATS, f, log_encode_vcpu_stats(f, &vs));
    struct log_lifecycle lc = { .domain = UINT32_MAX, .vcpu = UINT32_MAX, .event = LOG_LC_VCPU_ONLINE,
                                .arg = UINT64_MAX };
    put(w, LOG_REC_LIFECYCLE, f, log_encode_lifecycle(f, &lc));
    struct log_symbols sym = { .domain = UINT32_MAX, .kind = LOG_SYM_KERNEL_BUILD_ID, .epoch = UINT64_MAX,
                               .last = true, .data = (const uint8_t *)"zz\n", .len = 3 };
    put(w, LOG_REC_SYMBOLS, f, log_encode_symbols(f, &sym));
    struct log_guest_pmu_prog gp = { .domain = UINT32_MAX, .vcpu = UINT32_MAX,
                                     .counter = LOG_GUEST_COUNTER_LIMIT - 1, .control = 0xf };
    put(w, LOG_REC_GUEST_PMU_PROG, f, log_encode_guest_pmu_prog(f, &gp));
    struct log_guest_pmi pmi = { .domain = UINT32_MAX, .vcpu = UINT32_MAX, .status = UINT64_MAX,
                                 .delivery = LOG_GUEST_PMI_MASKED };
    put(w, LOG_REC_GUEST_PMI, f, log_encode_guest_pmi(f, &pmi));
    uint8_t loss[LOG_VARINT_MAX];
    put(w, LOG_REC_LOSS, loss, log_varint_put(loss, 1));
    put(w, LOG_REC_TYPE_COUNT, f, 0);              /* a type this version does not know */
}

/* n kernel samples at one RIP, each from a domain of its own. */
static void many_domains(struct writer *w, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        vcpu_sample(w, i, 0);
}

/* n hypervisor samples whose addresses differ only above bit 31. */
static void high_addresses(struct writer *w, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        struct log_sample s = { .mode = LOG_MODE_HYPERVISOR, .rip = (uint64_t)(i + 1) << 32 | 0x1000 };
        sample(w, &s);
    }
}

/* n interval rows of one VCPU with one event measured all along (about
 * 10 field bytes each). */
static void many_rows(struct writer *w, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        struct log_interval iv = { .domain = 1, .number = i, .instructions = 1000,
                                   .tsc_span = TSC_STEP / 2, .count = 1,
                                   .events = { { i % 1000, 1000 } } };
        uint8_t f[LOG_FIELDS_MAX];
        put(w, LOG_REC_INTERVAL, f, log_encode_interval(f, &iv));
    }
}

/* Two interval rows of each of n VCPUs. */
static void row_vcpus(struct writer *w, uint32_t n)
{
    for (uint32_t v = 0; v < n; v++)
        interval_rows(w, v, 0, 2, 1000);
}

static void identities(struct writer *w, uint32_t n) { processes(w, n, true); }
static void processes_only(struct writer *w, uint32_t n) { processes(w, n, false); }

static const struct {
    const char *name;
    void (*write)(struct writer *w, uint32_t n);
} kinds[] = {
    { "events", many_events }, { "vcpus", many_vcpus }, { "jit", jit_sets },
    { "unfinished", unfinished }, { "identities", identities }, { "processes", processes_only },
    { "paths", paths }, { "names", long_names }, { "loss", losses }, { "ranges", out_of_range },
    { "totals", many_totals }, { "modes", mode_suffixes }, { "periods", vcpu_periods },
    { "escapes", escapes }, { "exit-sums", exit_sums }, { "period-sums", period_sums },
    { "row-sums", row_sums }, { "domain-ids", domain_ids }, { "every-type", every_type },
    { "domains", many_domains }, { "addresses", high_addresses }, { "rows", many_rows },
    { "row-vcpus", row_vcpus },
};

#define KIND_COUNT (sizeof(kinds) / sizeof(kinds[0]))

const char *const hostile_log_kinds[KIND_COUNT + 1] = {
    "events", "vcpus", "jit", "unfinished", "identities", "processes", "paths", "names",
    "loss", "ranges", "totals", "modes", "periods", "escapes", "exit-sums", "period-sums",
    "row-sums", "domain-ids", "every-type", "domains", "addresses", "rows",
    "row-vcpus", NULL,
};

bool hostile_log_write(const char *kind, uint32_t n, struct log_test_stream *out)
{
    for (size_t k = 0; k < KIND_COUNT; k++) {
        if (strcmp(kind, kinds[k].name))
            continue;
        struct writer w = { .out = out, .tsc = 1000000 };
        log_test_stream_header(out, 1);
        kinds[k].write(&w, n);
        flush(&w);
        log_test_stream_free(&w.payload);
        return true;
    }
    return false;
}

/* ---- The hostile guest root ------------------------------------------------ */

/* The first max bytes of from, copied to to. */
static bool copy_prefix(const char *from, const char *to, long max)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char buf[4096];
    size_t n;
    long done = 0;
    while (in && out && done < max && (n = fread(buf, 1, sizeof(buf), in)) > 0) {
        size_t take = (long)n < max - done ? n : (size_t)(max - done);
        done += (long)fwrite(buf, 1, take, out);
    }
    bool ok = in && out && done > 0;
    if (in)
        fclose(in);
    if (out)
        fclose(out);
    return ok;
}

static const char *below(const char *root, const char *rel, char *out)
{
    snprintf(out, PATH_LEN, "%s/%s", root, rel);
    return out;
}

bool hostile_root_make(const char *root, const char *workload)
{
    char p[PATH_LEN];
    static const char text[] = VERTIGO_SOURCE_DIR "/tests/fixtures/profile/kallsyms.txt";
    if (strlen(root) > PATH_LEN / 2)
        return false;
    mkdir(below(root, "bin", p), 0755);
    mkdir(below(root, "lib", p), 0755);
    return mkdir(below(root, "lib/dir.so", p), 0755) == 0 &&
           copy_prefix(workload, below(root, "bin/workload", p), 1L << 30) &&
           copy_prefix(workload, below(root, "lib/trunc.so", p), TRUNCATED_ELF) &&
           copy_prefix(text, below(root, "lib/text.so", p), 1L << 30) &&
           mkfifo(below(root, "lib/fifo.so", p), 0600) == 0 &&
           symlink("loop.so", below(root, "lib/loop.so", p)) == 0 &&
           symlink("../../../../../../../../etc/passwd", below(root, "lib/escape.so", p)) == 0 &&
           symlink("/dev/zero", below(root, "lib/abs.so", p)) == 0 &&
           symlink("/bin/workload", below(root, "lib/good.so", p)) == 0;
}
