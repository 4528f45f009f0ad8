/* Streaming decoder of Vertigo profiling logs (docs/log-format.md).
 *
 * Feed bytes as they arrive (a file, a pipe, a fuzzer's buffer) with
 * logdec_feed() and call logdec_finish() at the end of input. The decoder
 * calls back once per stream header, per good block and per record, in
 * stream order, and once per problem: garbage it skipped, a block whose
 * checksum failed, blocks missing from a CPU's sequence, a stream cut
 * short. Every problem carries its stream byte offset and, where the
 * format allows, exactly how many blocks and records were lost. Bytes
 * before the first stream header (an emulator's own output on the same
 * channel) are skipped and reported as a note, not a fault. The decoder
 * resynchronizes at the next block whose header checksum is good. */
#ifndef HOST_TOOLS_LOGDEC_H
#define HOST_TOOLS_LOGDEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vertigo/log_format.h"

/* One decoded record. Pointers (text, raw) point into the decoder's
 * buffer and are valid only during the callback. Every field of a known
 * type is within the format's ranges (docs/log-format.md, "Validation"):
 * a sample's mode is below LOG_MODE_COUNT and its depth at most
 * LOG_STACK_MAX, a symbols kind is a known one, counts fit their arrays,
 * texts are at most LOG_TEXT_MAX bytes, a loss is at least 1; a record
 * that breaks one is reported as a bad-record problem instead. */
struct logdec_record {
    uint8_t type;            /* enum log_record_type, or unknown */
    uint16_t cpu;
    uint32_t block_seq;
    uint64_t index;          /* per-CPU record index */
    uint64_t offset;         /* stream offset of the record's type byte */
    uint64_t tsc;
    const uint8_t *raw;      /* the type-specific field bytes */
    uint32_t raw_len;
    union log_record_value u;
};

enum logdec_problem_kind {
    LOGDEC_PREFIX_SKIPPED,   /* note: bytes before the first stream header */
    LOGDEC_GARBAGE,          /* bytes that are no valid header or block */
    LOGDEC_BAD_PAYLOAD,      /* block header good, payload checksum bad */
    LOGDEC_BAD_RECORD,       /* checksum good but a record is malformed:
                                a field out of range loses that record, a
                                broken length or TSC the block's rest */
    LOGDEC_MISSING_BLOCKS,   /* gap in a CPU's block sequence */
    LOGDEC_SEQ_BACKWARDS,    /* block sequence repeated or went back */
    LOGDEC_TRUNCATED,        /* input ended inside a header or block */
    LOGDEC_BAD_VERSION,      /* stream header of an unsupported format */
    LOGDEC_NO_HEADER,        /* input ended without any stream header */
    LOGDEC_SUFFIX_SKIPPED,   /* note: non-log bytes from the last block to the
                                end of input (an emulator's own exit text) */
    LOGDEC_PROBLEM_KINDS,
};

struct logdec_problem {
    enum logdec_problem_kind kind;
    uint64_t offset;         /* stream offset where it starts */
    uint64_t bytes;          /* stream bytes affected */
    bool has_block;          /* cpu, seq refer to a known block */
    uint16_t cpu;
    uint32_t seq;            /* the (first) block concerned */
    uint32_t blocks;         /* blocks lost (MISSING_BLOCKS, BAD_PAYLOAD) */
    bool records_known;
    uint64_t records;        /* records lost, when records_known */
};

struct logdec_callbacks {
    /* Each may be NULL. */
    void (*header)(void *user, const struct log_stream_header *h, uint64_t offset);
    void (*block)(void *user, const struct log_block_header *h, uint64_t offset);
    void (*record)(void *user, const struct logdec_record *r);
    void (*problem)(void *user, const struct logdec_problem *p);
};

/* An exact count of lost records or blocks. Each loss record or problem
 * carries up to 2^64 - 1, so their sum over a hostile log can pass 2^64;
 * 128 bits cannot wrap (a stream holds fewer than 2^64 records). */
typedef unsigned __int128 logdec_count;

#define LOGDEC_COUNT_TEXT 40u       /* decimal digits of 2^128 - 1, and a NUL */

/* Writes v in decimal to buf (LOGDEC_COUNT_TEXT bytes); returns buf. */
char *logdec_count_text(logdec_count v, char *buf);

/* Running totals the decoder keeps (read them after logdec_finish). */
struct logdec_totals {
    uint64_t bytes;                 /* bytes fed */
    uint64_t headers;
    uint64_t blocks;                /* blocks with good checksums */
    uint64_t records;               /* records decoded and passed on */
    uint64_t block_bytes;           /* bytes of good blocks */
    logdec_count ring_dropped;      /* sum of loss records */
    uint64_t problems[LOGDEC_PROBLEM_KINDS];
    logdec_count records_lost;      /* known counts from problems */
    logdec_count blocks_lost;
};

struct logdec_cpu_track {
    bool seen;
    uint32_t next_seq;
    uint64_t next_record;
};

#define LOGDEC_WINDOW (2u * (LOG_BLOCK_HEADER_SIZE + LOG_BLOCK_PAYLOAD_MAX))
/* Zero bytes after the window, never written: the fast path
 * (logdec_fast.h) reads 8 bytes at a time up to a payload's end. */
#define LOGDEC_TAIL 8u

/* Decoder state: large (a window of two maximal blocks), so allocate it
 * statically or on the heap. Fields are private. Blocks that lie whole in
 * the bytes fed are decoded where they are; only a header or block cut by
 * the end of what was fed is copied into the window to wait for the rest. */
struct logdec {
    const struct logdec_callbacks *cb;
    void *user;
    uint8_t buf[LOGDEC_WINDOW + LOGDEC_TAIL];
    const uint8_t *view;     /* the bytes being examined: buf, or the caller's */
    size_t len;              /* bytes in view */
    size_t pos;              /* next byte to examine */
    uint64_t base;           /* stream offset of view[0] */
    uint64_t garbage_start;  /* stream offset of pending skipped bytes */
    uint64_t garbage_len;
    uint64_t quiet_until;    /* skipped bytes before this are already reported */
    bool finished;
    bool finishing;         /* logdec_finish is flushing the tail */
    bool pext;               /* the fast path packs varints with PEXT */
    struct logdec_totals totals;
    struct logdec_cpu_track cpus[LOG_MAX_CPUS];
};

/* Resets dec to the start of a stream; cb and user are kept by pointer. */
void logdec_init(struct logdec *dec, const struct logdec_callbacks *cb, void *user);

/* Decodes len more bytes of the stream, calling back for everything that
 * is complete. Keeps an incomplete tail for the next call. */
void logdec_feed(struct logdec *dec, const void *data, size_t len);

/* Ends the stream: reports a truncated tail, pending garbage, and a
 * missing stream header. Call once; feeding afterwards is ignored. */
void logdec_finish(struct logdec *dec);

enum logdec_verdict {
    LOGDEC_CLEAN = 0,        /* header found, nothing lost or corrupt */
    LOGDEC_NO_LOG = 1,       /* no stream header and no block at all */
    LOGDEC_DAMAGED = 2,      /* corruption, gaps, truncation or ring loss */
};

/* The overall verdict after logdec_finish (PREFIX_SKIPPED is harmless). */
enum logdec_verdict logdec_verdict(const struct logdec *dec);

/* Short names: "garbage", "bad-payload", ...; "sample", "console", ... */
const char *logdec_problem_name(enum logdec_problem_kind kind);
const char *logdec_type_name(uint8_t type);

/* Parses the type-specific fields [p, end) of a record of r->type into
 * r->u (sets raw/raw_len). Returns 0, or -1 if malformed. Unknown types
 * parse as raw bytes only. (Used by logdec.c; exposed for tests.) */
int logdec_parse_fields(struct logdec_record *r, const uint8_t *p, const uint8_t *end);

#endif
