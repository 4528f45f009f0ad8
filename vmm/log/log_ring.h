/* Per-CPU log rings: where producers put records and drains take blocks.
 *
 * Producers: one CPU owns a ring. On that CPU the VM-exit path writes
 * records and an NMI handler may interrupt it between reserving space and
 * committing, writing records of its own; both are producers. Writing
 * never blocks and takes no lock: space is reserved with compare-and-swap
 * and data is published only when the outermost producer on the CPU
 * commits (a nesting counter defers inner commits), so a drain never sees
 * a record that is still being written. A record that does not fit is
 * dropped whole and counted; the count is reported exactly by a loss
 * record placed before the next record that fits, or by the drain.
 *
 * Drain: one caller at a time per ring (any CPU; the drains serialize
 * among themselves). log_ring_read() hands out one complete, checksummed
 * block of committed records per call with work bounded by its buffer.
 *
 * Ring storage format (private to this file pair, not the wire format):
 * u16 fields_len | u8 type | u64 tsc | fields, contiguous modulo size. */
#ifndef VMM_LOG_RING_H
#define VMM_LOG_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vertigo/log_format.h"

#define LOG_RING_ENTRY_HEADER 11u   /* u16 len, u8 type, u64 tsc */
#define LOG_RING_MIN_SIZE     4096u

/* Smallest buffer log_ring_read accepts: a header, the largest record and
 * the loss record the drain may append. */
#define LOG_RING_READ_MIN (LOG_BLOCK_HEADER_SIZE + LOG_RECORD_WIRE_MAX + \
                           1u + 1u + 2u * LOG_VARINT_MAX)

struct log_ring;
/* Test hook: runs inside log_ring_write after space is reserved and the
 * record copied, before the commit: simulates an NMI nesting there. */
typedef void (*log_ring_hook_fn)(struct log_ring *ring, void *arg);

struct log_ring {
    uint8_t *data;
    uint64_t size;          /* bytes, a power of two */
    uint16_t cpu;
    /* Producer side (owning CPU and its NMI handler). */
    uint64_t head;          /* bytes reserved, ever */
    uint64_t commit;        /* bytes published to the drain, ever */
    uint32_t nest;          /* producers active on this CPU */
    uint64_t dropped;       /* records dropped, not yet reported */
    uint64_t dropped_total; /* records dropped, ever (statistics) */
    /* Drain side. */
    uint64_t tail;          /* bytes consumed, ever */
    uint32_t block_seq;     /* sequence number of the next block */
    uint64_t records_out;   /* records sent in blocks, ever */
    uint64_t last_tsc;      /* TSC of the last record drained */
    log_ring_hook_fn hook;  /* NULL except in tests */
    void *hook_arg;
};

/* Prepares ring for CPU cpu over storage of size bytes (a power of two,
 * >= LOG_RING_MIN_SIZE). Returns false (ring unusable) otherwise. */
bool log_ring_init(struct log_ring *ring, uint16_t cpu, void *storage, uint64_t size);

/* Producer: appends one record (type, TSC, len bytes of encoded fields,
 * 1 <= len <= LOG_FIELDS_MAX). Safe on the owning CPU from any context,
 * nested in itself (NMI). Returns false if the record was dropped (ring
 * full or bad length); the drop is counted and reported later. */
bool log_ring_write(struct log_ring *ring, uint8_t type, uint64_t tsc,
                    const void *fields, size_t len);

/* Producer: log_ring_write of one sample record (log_encode_sample's
 * fields), in one call: samples are written at every PMI, so their path
 * skips a call layer and the record checks a generic write needs. Returns
 * false if the sample was dropped (ring full or a sample the encoder
 * refuses); the drop is counted and reported later. */
struct log_sample;
bool log_ring_write_sample(struct log_ring *ring, uint64_t tsc, const struct log_sample *s);

/* Drain: writes one block (header and records) of committed records to
 * buf and returns its size in bytes, or 0 when there is nothing to send or
 * max < LOG_RING_READ_MIN. Sends as many whole records as fit in max bytes
 * (at most LOG_BLOCK_HEADER_SIZE + LOG_BLOCK_PAYLOAD_MAX), so the work is
 * bounded by max; call again for more. When every committed record has
 * been sent it also appends a loss record for pending drops. */
size_t log_ring_read(struct log_ring *ring, void *buf, size_t max);

/* Drain: true if committed records or unreported drops are waiting.
 * Inline: the drain asks it of every CPU's ring at each block. */
static inline bool log_ring_pending(const struct log_ring *ring)
{
    return __atomic_load_n(&ring->commit, __ATOMIC_ACQUIRE) != ring->tail ||
           __atomic_load_n(&ring->dropped, __ATOMIC_RELAXED) != 0;
}

/* Free bytes the producer could reserve now (for tests and statistics). */
uint64_t log_ring_free(const struct log_ring *ring);

/* Bytes of ring storage a record with len field bytes takes. */
static inline uint64_t log_ring_entry_size(size_t len)
{
    return LOG_RING_ENTRY_HEADER + len;
}

#endif
