/* Hostile logs (see hostile_logs.h), written with the hypervisor's own
 * encoder (vmm/log_encode.c) into blocks with correct checksums, so the
 * decoder passes every record on to the tools behind it. */
#include "tests/fuzz/hostile_logs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vmm/log_encode.h"
#include "vmm/log_varint.h"

#define BLOCK_FILL 60000u                /* payload bytes before a new block */
#define PATH_LEN 1024u
#define TRUNCATED_ELF 3000                /* bytes: headers, no section table */
#define TSC_STEP 1000u
#define JIT_NAME_LEN 1000u

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
};

#define KIND_COUNT (sizeof(kinds) / sizeof(kinds[0]))

const char *const hostile_log_kinds[KIND_COUNT + 1] = {
    "events", "vcpus", "jit", "unfinished", "identities", "processes", "paths", "names",
    "loss", "ranges", "totals", "modes", "periods", NULL,
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
    static const char text[] = "tests/fixtures/profile/kallsyms.txt";
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
