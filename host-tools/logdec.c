/* Streaming log decoder: finds stream headers and blocks in a byte
 * stream, checks their checksums and per-CPU sequences, resynchronizes
 * after damage, walks block payloads record by record, and reports every
 * problem with its stream offset. Field parsing is in logdec_fields.c. */
#include "host-tools/logdec.h"

#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#define CPUID_LEAF_EXTENDED_FEATURES 7u
#define CPUID_7_EBX_BMI2             (1u << 8)
#define CPUID_VENDOR_AMD_EBX         0x68747541u
#define CPUID_FAMILY_AMD_ZEN3        0x19u
#endif

#include "host-tools/logdec_crc.h"
#include "host-tools/logdec_fast.h"
#include "lib/log_crc.h"
#include "vmm/log/log_varint.h"

enum step {
    STEP_DONE,       /* consumed something; go on */
    STEP_NEED_MORE,  /* a header or block continues past the data we have */
    STEP_SKIP,       /* not a valid header or block here: skip a byte */
};

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const uint8_t *p) { return (uint32_t)le16(p) | (uint32_t)le16(p + 2) << 16; }
static uint64_t le64(const uint8_t *p) { return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32; }

static uint64_t offset_of(const struct logdec *dec, size_t pos)
{
    return dec->base + pos;
}

static void report(struct logdec *dec, const struct logdec_problem *p)
{
    dec->totals.problems[p->kind]++;
    if (p->records_known)
        dec->totals.records_lost += p->records;
    dec->totals.blocks_lost += p->blocks;
    if (dec->cb->problem)
        dec->cb->problem(dec->user, p);
}

/* ---- Skipped bytes ---------------------------------------------------- */

static void flush_garbage(struct logdec *dec)
{
    if (!dec->garbage_len)
        return;
    struct logdec_problem p = {
        .kind = dec->totals.headers ? LOGDEC_GARBAGE : LOGDEC_PREFIX_SKIPPED,
        .offset = dec->garbage_start,
        .bytes = dec->garbage_len,
    };
    if (!dec->totals.headers && dec->totals.blocks)
        p.kind = LOGDEC_GARBAGE;
    /* At the end of input, bytes after the last good block that hold no
     * sync marker are an emulator's own text, not damage to the log. */
    if (dec->finishing && dec->totals.blocks &&
        dec->garbage_start + dec->garbage_len == offset_of(dec, dec->len))
        p.kind = LOGDEC_SUFFIX_SKIPPED;
    dec->garbage_len = 0;
    report(dec, &p);
}

/* Skips bytes up to the next possible sync marker (or the end of data). */
static void skip_garbage(struct logdec *dec)
{
    size_t from = dec->pos + 1;
    const uint8_t *next = memchr(dec->view + from, LOG_STREAM_MAGIC & 0xffu, dec->len - from);
    size_t to = next ? (size_t)(next - dec->view) : dec->len;
    uint64_t start = offset_of(dec, dec->pos), end = offset_of(dec, to);
    if (start < dec->quiet_until)
        start = dec->quiet_until < end ? dec->quiet_until : end;
    if (end > start) {
        if (!dec->garbage_len)
            dec->garbage_start = start;
        dec->garbage_len += end - start;
    }
    dec->pos = to;
}

/* ---- Stream header ---------------------------------------------------- */

static bool header_supported(const struct log_stream_header *h)
{
    return h->version == LOG_FORMAT_VERSION && h->header_size == LOG_STREAM_HEADER_SIZE &&
           h->endian_tag == LOG_ENDIAN_TAG;
}

static enum step take_stream_header(struct logdec *dec)
{
    const uint8_t *p = dec->view + dec->pos;
    if (dec->len - dec->pos < LOG_STREAM_HEADER_SIZE)
        return STEP_NEED_MORE;
    if (log_crc32c(0, p, LOG_STREAM_HEADER_CRC_OFFSET) != le32(p + LOG_STREAM_HEADER_CRC_OFFSET))
        return STEP_SKIP;
    flush_garbage(dec);
    struct log_stream_header h;
    memcpy(&h, p, sizeof(h));
    uint64_t offset = offset_of(dec, dec->pos);
    if (!header_supported(&h)) {
        struct logdec_problem prob = { .kind = LOGDEC_BAD_VERSION, .offset = offset,
                                       .bytes = LOG_STREAM_HEADER_SIZE };
        report(dec, &prob);
    }
    /* A header starts a new stream: sequences restart at zero. */
    memset(dec->cpus, 0, sizeof(dec->cpus));
    dec->totals.headers++;
    if (dec->cb->header)
        dec->cb->header(dec->user, &h, offset);
    dec->pos += LOG_STREAM_HEADER_SIZE;
    return STEP_DONE;
}

/* ---- Blocks ----------------------------------------------------------- */

static bool read_block_header(const uint8_t *p, struct log_block_header *h)
{
    if (log_crc32c(0, p, LOG_BLOCK_HEADER_CRC_OFFSET) != le32(p + LOG_BLOCK_HEADER_CRC_OFFSET))
        return false;
    h->sync = le32(p);
    h->cpu = le16(p + 4);
    h->payload_len = le16(p + 6);
    h->seq = le32(p + 8);
    h->record_count = le16(p + 12);
    h->flags = le16(p + 14);
    h->first_record = le64(p + 16);
    h->base_tsc = le64(p + 24);
    h->payload_crc = le32(p + 32);
    h->header_crc = le32(p + 36);
    return h->cpu < LOG_MAX_CPUS;
}

/* A block whose header is good but whose payload is lost: the header
 * says exactly how many records. Later bytes are rescanned for blocks,
 * but not reported again as garbage. */
static void lose_block(struct logdec *dec, const struct log_block_header *h,
                       enum logdec_problem_kind kind, uint64_t offset, uint64_t bytes)
{
    struct logdec_problem p = {
        .kind = kind, .offset = offset, .bytes = bytes, .has_block = true,
        .cpu = h->cpu, .seq = h->seq, .blocks = 1,
        .records_known = true, .records = h->record_count,
    };
    report(dec, &p);
    dec->quiet_until = offset + bytes;
}

/* Checks h against the CPU's expected sequence; reports gaps. */
static void track_sequence(struct logdec *dec, const struct log_block_header *h, uint64_t offset)
{
    struct logdec_cpu_track *t = &dec->cpus[h->cpu];
    if (h->seq != t->next_seq) {
        bool gap = (uint32_t)(h->seq - t->next_seq) < UINT32_MAX / 2;
        struct logdec_problem p = {
            .kind = gap ? LOGDEC_MISSING_BLOCKS : LOGDEC_SEQ_BACKWARDS,
            .offset = offset, .has_block = true, .cpu = h->cpu, .seq = t->next_seq,
            .blocks = gap ? h->seq - t->next_seq : 0,
        };
        if (gap && h->first_record >= t->next_record) {
            p.records_known = true;
            p.records = h->first_record - t->next_record;
        }
        if (!gap)
            p.seq = h->seq;
        report(dec, &p);
    }
    t->seen = true;
    t->next_seq = h->seq + 1;
    t->next_record = h->first_record + h->record_count;
}

/* records of block h lost to a malformed record at offset. */
static void bad_record(struct logdec *dec, const struct log_block_header *h,
                       uint64_t offset, uint64_t records)
{
    struct logdec_problem p = {
        .kind = LOGDEC_BAD_RECORD, .offset = offset, .has_block = true,
        .cpu = h->cpu, .seq = h->seq, .records_known = true, .records = records,
    };
    report(dec, &p);
}

enum record_step {
    RECORD_OK,           /* decoded and passed on */
    RECORD_BAD_FIELDS,   /* framing and TSC good, a field out of range: skipped */
    RECORD_BAD_FRAME,    /* length or TSC delta broken: the rest is unreadable */
};

/* Decodes one record at *p and, unless its frame is broken, moves *p
 * past it: the general path, for what the fast one declines (kept out of
 * line so the fast loop keeps its registers). */
__attribute__((noinline)) static enum record_step decode_record(struct logdec *dec, struct logdec_record *r,
                                      const uint8_t **p, const uint8_t *end)
{
    const uint8_t *q = *p;
    uint64_t body_len, delta;
    r->type = *q++;
    if (log_varint_get(&q, end, &body_len) != 0 || body_len > (uint64_t)(end - q))
        return RECORD_BAD_FRAME;
    const uint8_t *body_end = q + body_len;
    if (log_varint_get(&q, body_end, &delta) != 0)
        return RECORD_BAD_FRAME;
    r->tsc += (uint64_t)log_unzigzag(delta);
    *p = body_end;
    if (logdec_parse_fields(r, q, body_end) != 0)
        return RECORD_BAD_FIELDS;
    dec->totals.records++;
    if (r->type == LOG_REC_LOSS)
        dec->totals.ring_dropped += r->u.loss.dropped;
    if (dec->cb->record)
        dec->cb->record(dec->user, r);
    return RECORD_OK;
}

static void ignore_record(void *user, const struct logdec_record *r)
{
    (void)user, (void)r;
}

/* The copy of the loop that packs varints with PEXT is compiled for the
 * CPUs that have it (BMI1 and BMI2, which also bring ANDN, TZCNT, BZHI
 * and SHLX; every such CPU has SSSE3's PSHUFB too), and runs only where
 * pext_is_fast() found them. */
#if defined(__x86_64__)
#define WITH_BMI2 __attribute__((target("bmi,bmi2")))
#else
#define WITH_BMI2
#endif

typedef void record_fn(void *user, const struct logdec_record *r);

/* The record a block's records are decoded into, where they are passed
 * on, and the bounds of a run of RIP-only samples: one object, so the
 * run's loop reaches all of it through one register. */
struct record_sink {
    struct logdec_record r;
    record_fn *on_record;
    void *user;
    uint64_t offset_base;     /* + a position in the payload: its stream offset */
    const uint8_t *rip_end;   /* RIP-only samples start before this */
    uint64_t stop;            /* the index after the block's last record */
};

/* RIP-only samples one after another from p (nearly all of a profile) in
 * a loop of their own, each passed on as soon as it is decoded, up to the
 * record index sink->stop or the first record that is not one or starts
 * at or after sink->rip_end; sink->r.index is then the next record's. As
 * no such record passes LOGDEC_FAST_RIP_ROOM bytes, the records of a
 * stretch that many bytes apart all start before rip_end: the inner loop
 * counts records down only, and keeps few values across the callback
 * (sink, its position, the count, the offset base, the tables); the
 * record's index moves on in place after each callback. Returns where the
 * run ends. */
static inline __attribute__((always_inline)) const uint8_t *
take_rip_run(struct record_sink *sink, const uint8_t *p, bool pext)
{
    struct logdec_record *r = &sink->r;
    const uint64_t offset_base = sink->offset_base;
    uint64_t records_left = sink->stop - r->index;
    while (records_left && p < sink->rip_end) {
        uint64_t left = (uint64_t)(sink->rip_end - p - 1) / LOGDEC_FAST_RIP_ROOM + 1;
        if (left > records_left)
            left = records_left;
        records_left -= left;
        do {
            r->offset = offset_base + (uint64_t)(uintptr_t)p;
            const uint8_t *next = logdec_fast_rip_take(r, p, pext);
            if (!next)
                return p;
            p = next;
            sink->on_record(sink->user, r);
            r->index++;
        } while (--left);
    }
    return p;
}

/* take_rip_run's two copies, each a function of its own: few values live
 * across the callback, so they all stay in the registers a call keeps. */
WITH_BMI2 __attribute__((noinline)) static const uint8_t *
take_rip_run_pext(struct record_sink *sink, const uint8_t *p)
{
    return take_rip_run(sink, p, true);
}

__attribute__((noinline)) static const uint8_t *
take_rip_run_shifts(struct record_sink *sink, const uint8_t *p)
{
    return take_rip_run(sink, p, false);
}

/* The records of a good block's payload; pext: logdec_fast.h's, a
 * constant in each of the two copies decode_payload calls. */
static inline __attribute__((always_inline)) void
decode_records(struct logdec *dec, const struct log_block_header *h, const uint8_t *payload,
               uint64_t payload_offset, bool pext)
{
    const uint32_t count = h->record_count;
    const uint8_t *p = payload, *end = payload + h->payload_len;
    /* Kept in locals: the callback may be any code, so what it could
     * reach (h, dec) would be read again after each call. RIP-only
     * samples are tried first where their loads stay in bounds. */
    struct record_sink sink = {
        .on_record = dec->cb->record ? dec->cb->record : ignore_record,
        .user = dec->user,
        .offset_base = payload_offset - (uint64_t)(uintptr_t)payload,
        .rip_end = h->payload_len > LOGDEC_FAST_RIP_ROOM ? end - LOGDEC_FAST_RIP_ROOM : payload,
        .stop = h->first_record + count,
    };
    struct logdec_record *r = &sink.r;
    r->cpu = h->cpu;
    r->block_seq = h->seq;
    r->tsc = h->base_tsc;
    r->index = h->first_record;
    const uint8_t *rip_end = sink.rip_end;
    const uint64_t stop = sink.stop;
    uint32_t slow = 0;
    logdec_fast_rip_prepare(r);
    for (; r->index != stop; r->index++) {
        if (p < rip_end) {
            p = pext ? take_rip_run_pext(&sink, p) : take_rip_run_shifts(&sink, p);
            if (r->index == stop)
                break;
        }
        r->offset = sink.offset_base + (uint64_t)(uintptr_t)p;
        if (p >= end)
            break;
        if (logdec_fast_record(r, &p, end, pext)) {
            sink.on_record(sink.user, r);
            logdec_fast_rip_prepare(r);
            continue;
        }
        const uint8_t *at = p;            /* p itself stays in a register */
        enum record_step step = decode_record(dec, r, &at, end);
        p = at;
        logdec_fast_rip_prepare(r);
        if (step == RECORD_BAD_FRAME)
            break;
        slow++;
        if (step == RECORD_BAD_FIELDS)
            bad_record(dec, h, r->offset, 1);
    }
    uint32_t n = count - (uint32_t)(stop - r->index);
    dec->totals.records += n - slow;         /* the general path counts its own */
    if (n != count || p != end)
        bad_record(dec, h, payload_offset + (uint64_t)(p - payload), count - n);
}

WITH_BMI2 static void decode_payload_pext(struct logdec *dec, const struct log_block_header *h,
                                          const uint8_t *payload, uint64_t payload_offset)
{
    decode_records(dec, h, payload, payload_offset, true);
}

static void decode_payload(struct logdec *dec, const struct log_block_header *h,
                           const uint8_t *payload, uint64_t payload_offset)
{
    if (dec->pext)
        decode_payload_pext(dec, h, payload, payload_offset);
    else
        decode_records(dec, h, payload, payload_offset, false);
}

static enum step take_block(struct logdec *dec)
{
    const uint8_t *p = dec->view + dec->pos;
    size_t avail = dec->len - dec->pos;
    struct log_block_header h;
    if (avail < LOG_BLOCK_HEADER_SIZE)
        return STEP_NEED_MORE;
    if (!read_block_header(p, &h))
        return STEP_SKIP;
    flush_garbage(dec);
    uint64_t offset = offset_of(dec, dec->pos);
    size_t size = LOG_BLOCK_HEADER_SIZE + h.payload_len;
    if (avail < size)
        return STEP_NEED_MORE;
    track_sequence(dec, &h, offset);
    if (logdec_crc32c(p + LOG_BLOCK_HEADER_SIZE, h.payload_len) != h.payload_crc) {
        lose_block(dec, &h, LOGDEC_BAD_PAYLOAD, offset, size);
        dec->pos += LOG_BLOCK_HEADER_SIZE;
        return STEP_DONE;
    }
    dec->totals.blocks++;
    dec->totals.block_bytes += size;
    if (dec->cb->block)
        dec->cb->block(dec->user, &h, offset);
    decode_payload(dec, &h, p + LOG_BLOCK_HEADER_SIZE, offset + LOG_BLOCK_HEADER_SIZE);
    dec->pos += size;
    return STEP_DONE;
}

/* ---- Driving ---------------------------------------------------------- */

static enum step take_one(struct logdec *dec)
{
    if (dec->len - dec->pos < LOG_SYNC_SIZE)
        return STEP_NEED_MORE;
    uint32_t sync = le32(dec->view + dec->pos);
    if (sync == LOG_STREAM_MAGIC)
        return take_stream_header(dec);
    if (sync == LOG_BLOCK_SYNC)
        return take_block(dec);
    return STEP_SKIP;
}

static void process(struct logdec *dec)
{
    for (;;) {
        enum step s = take_one(dec);
        if (s == STEP_NEED_MORE)
            return;
        if (s == STEP_SKIP)
            skip_garbage(dec);
    }
}

/* Drops examined bytes so the window has room for a whole block. */
static void compact(struct logdec *dec)
{
    if (dec->pos == 0)
        return;
    memmove(dec->buf, dec->buf + dec->pos, dec->len - dec->pos);
    dec->base += dec->pos;
    dec->len -= dec->pos;
    dec->pos = 0;
}

/* With nothing waiting in the window: the headers and blocks that lie
 * whole in data[0, len - LOGDEC_TAIL), decoded in place (the fast path
 * reads up to LOGDEC_TAIL bytes past a payload's end, which are data's
 * own); returns the bytes consumed. What is left starts a header or block
 * the rest of the input completes, or is the tail: the window takes it. */
static size_t decode_in_place(struct logdec *dec, const uint8_t *data, size_t len)
{
    dec->base += dec->len;               /* the window is empty: pos == len */
    dec->view = data;
    dec->len = len - LOGDEC_TAIL;
    dec->pos = 0;
    process(dec);
    size_t used = dec->pos;
    dec->base += used;
    dec->view = dec->buf;
    dec->len = dec->pos = 0;
    return used;
}

/* Whether the CPU has a fast PEXT (logdec_fast.h): BMI2 (CPUID.(EAX=07H,
 * ECX=0):EBX[8]), except on AMD before family 19h (Zen 3), whose PEXT is
 * microcoded and far slower than the shift/mask steps. */
static bool pext_is_fast(void)
{
#if defined(__x86_64__)
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid_count(CPUID_LEAF_EXTENDED_FEATURES, 0, &eax, &ebx, &ecx, &edx) ||
        !(ebx & CPUID_7_EBX_BMI2))
        return false;
    __get_cpuid(0, &eax, &ebx, &ecx, &edx);
    bool amd = ebx == CPUID_VENDOR_AMD_EBX;     /* "Auth" of AuthenticAMD */
    __get_cpuid(1, &eax, &ebx, &ecx, &edx);
    unsigned int family = (eax >> 8) & 0xfu;
    if (family == 0xfu)
        family += (eax >> 20) & 0xffu;
    return !amd || family >= CPUID_FAMILY_AMD_ZEN3;
#else
    return false;
#endif
}

void logdec_init(struct logdec *dec, const struct logdec_callbacks *cb, void *user)
{
    memset(dec, 0, offsetof(struct logdec, buf));
    memset(dec->buf + LOGDEC_WINDOW, 0, LOGDEC_TAIL);
    static int pext = -1;      /* probed once */
    if (pext < 0)
        pext = pext_is_fast();
    logdec_fast_shapes_build();
    dec->pext = pext;
    dec->cb = cb;
    dec->user = user;
    dec->view = dec->buf;
    dec->len = dec->pos = 0;
    dec->base = dec->garbage_start = dec->garbage_len = dec->quiet_until = 0;
    dec->finished = false;
    memset(&dec->totals, 0, sizeof(dec->totals));
    memset(dec->cpus, 0, sizeof(dec->cpus));
}

void logdec_feed(struct logdec *dec, const void *data, size_t len)
{
    const uint8_t *src = data;
    if (dec->finished)
        return;
    dec->totals.bytes += len;
    while (len) {
        if (dec->pos == dec->len && len > LOGDEC_TAIL) {
            size_t used = decode_in_place(dec, src, len);
            src += used;
            len -= used;
        }
        compact(dec);
        size_t room = LOGDEC_WINDOW - dec->len;
        size_t n = len < room ? len : room;
        memcpy(dec->buf + dec->len, src, n);
        dec->len += n;
        src += n;
        len -= n;
        process(dec);
    }
}

/* At the end of input, the unfinished header or block at pos. */
static void report_truncated(struct logdec *dec)
{
    const uint8_t *p = dec->buf + dec->pos;
    size_t avail = dec->len - dec->pos;
    struct log_block_header h;
    uint64_t offset = offset_of(dec, dec->pos);
    flush_garbage(dec);
    if (avail >= LOG_BLOCK_HEADER_SIZE && read_block_header(p, &h)) {
        track_sequence(dec, &h, offset);
        lose_block(dec, &h, LOGDEC_TRUNCATED, offset, avail);
        return;
    }
    struct logdec_problem prob = { .kind = LOGDEC_TRUNCATED, .offset = offset, .bytes = avail };
    report(dec, &prob);
}

/* True if the avail (< 4) bytes at p could begin a sync marker. */
static bool is_sync_prefix(const uint8_t *p, size_t avail)
{
    static const uint8_t stream[] = { 'V', 'T', 'G', 'S' }, block[] = { 'V', 'T', 'G', 'B' };
    return avail < LOG_SYNC_SIZE && (!memcmp(p, stream, avail) || !memcmp(p, block, avail));
}

/* An incomplete tail is either a cut-short header or block, or garbage
 * that merely starts like a sync marker: decide, then go on scanning. */
static void finish_tail(struct logdec *dec)
{
    while (dec->pos < dec->len) {
        process(dec);
        if (dec->pos >= dec->len)
            break;
        size_t avail = dec->len - dec->pos;
        uint32_t sync = avail >= LOG_SYNC_SIZE ? le32(dec->buf + dec->pos) : 0;
        bool block_ok = sync == LOG_BLOCK_SYNC && avail >= LOG_BLOCK_HEADER_SIZE;
        if ((sync == LOG_BLOCK_SYNC && !block_ok) || sync == LOG_STREAM_MAGIC ||
            is_sync_prefix(dec->buf + dec->pos, avail)) {
            report_truncated(dec);
            dec->pos = dec->len;
        } else if (block_ok) {
            struct log_block_header h;
            if (read_block_header(dec->buf + dec->pos, &h)) {
                report_truncated(dec);
                dec->pos += LOG_BLOCK_HEADER_SIZE;
            } else {
                skip_garbage(dec);
            }
        } else {
            skip_garbage(dec);
        }
    }
}

void logdec_finish(struct logdec *dec)
{
    if (dec->finished)
        return;
    finish_tail(dec);
    dec->finishing = true;
    flush_garbage(dec);
    dec->finished = true;
    if (!dec->totals.headers) {
        struct logdec_problem p = { .kind = LOGDEC_NO_HEADER, .offset = dec->totals.bytes };
        report(dec, &p);
    }
}

enum logdec_verdict logdec_verdict(const struct logdec *dec)
{
    const struct logdec_totals *t = &dec->totals;
    if (!t->headers && !t->blocks)
        return LOGDEC_NO_LOG;
    for (int k = 0; k < LOGDEC_PROBLEM_KINDS; k++)
        if (k != LOGDEC_PREFIX_SKIPPED && k != LOGDEC_SUFFIX_SKIPPED && t->problems[k])
            return LOGDEC_DAMAGED;
    return t->ring_dropped ? LOGDEC_DAMAGED : LOGDEC_CLEAN;
}

char *logdec_count_text(logdec_count v, char *buf)
{
    char digits[LOGDEC_COUNT_TEXT];
    size_t n = 0;
    do {
        digits[n++] = (char)('0' + (unsigned)(v % 10));
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        buf[i] = digits[n - 1 - i];
    buf[n] = '\0';
    return buf;
}

const char *logdec_problem_name(enum logdec_problem_kind kind)
{
    static const char *const names[LOGDEC_PROBLEM_KINDS] = {
        [LOGDEC_PREFIX_SKIPPED] = "prefix-skipped",
        [LOGDEC_GARBAGE] = "garbage",
        [LOGDEC_BAD_PAYLOAD] = "bad-payload",
        [LOGDEC_BAD_RECORD] = "bad-record",
        [LOGDEC_MISSING_BLOCKS] = "missing-blocks",
        [LOGDEC_SEQ_BACKWARDS] = "seq-backwards",
        [LOGDEC_TRUNCATED] = "truncated",
        [LOGDEC_BAD_VERSION] = "bad-version",
        [LOGDEC_NO_HEADER] = "no-header",
        [LOGDEC_SUFFIX_SKIPPED] = "suffix-skipped",
    };
    return (unsigned)kind < LOGDEC_PROBLEM_KINDS ? names[kind] : "unknown-problem";
}

const char *logdec_type_name(uint8_t type)
{
    static const char *const names[LOG_REC_TYPE_COUNT] = {
        [LOG_REC_CONSOLE] = "console",
        [LOG_REC_SAMPLE] = "sample",
        [LOG_REC_INTERVAL] = "interval",
        [LOG_REC_SWCOUNTERS] = "swcounters",
        [LOG_REC_LIFECYCLE] = "lifecycle",
        [LOG_REC_SYMBOLS] = "symbols",
        [LOG_REC_CONFIG] = "config",
        [LOG_REC_LOSS] = "loss",
        [LOG_REC_PMU_TOTALS] = "pmu-totals",
        [LOG_REC_EVENT_DESC] = "event-desc",
        [LOG_REC_EVENT_PERIOD] = "event-period",
        [LOG_REC_USER_STACK] = "user-stack",
        [LOG_REC_GUEST_PMU_PROG] = "guest-pmu-prog",
        [LOG_REC_GUEST_PMI] = "guest-pmi",
        [LOG_REC_VCPU_STATS] = "vcpu-stats",
        [LOG_REC_INTERVAL_EVENTS] = "interval-events",
    };
    return type < LOG_REC_TYPE_COUNT && names[type] ? names[type] : NULL;
}
