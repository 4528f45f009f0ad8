/* Log benchmark (make bench): encoded size of a RIP-only sample with a
 * delta TSC (target <= 16 bytes), producer cost per sample, and decoder
 * throughput on one core in records/s and MB/s (target >= 20 M records/s). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host-tools/logdec.h"
#include "vmm/log_crc.h"
#include "vmm/log_emit.h"
#include "vmm/log_encode.h"
#include "vmm/log_ring.h"

#define SAMPLES      (1u << 20)
#define RING_SIZE    (1u << 20)
#define BLOCK_MAX    4096u
#define DECODE_PASSES 10
#define PERIOD_TICKS 200000u   /* 100 us between samples at 2 GHz */

struct stream {
    uint8_t *data;
    size_t len, cap;
    uint64_t payload_bytes;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void drain(struct log_ring *ring, struct stream *s)
{
    size_t n;
    while (s->len + BLOCK_MAX <= s->cap &&
           (n = log_ring_read(ring, s->data + s->len, BLOCK_MAX)) > 0) {
        s->len += n;
        s->payload_bytes += n - LOG_BLOCK_HEADER_SIZE;
    }
}

/* Kernel-mode RIP-only samples, a deterministic spread of RIPs and periods. */
static void sample_at(uint32_t i, struct log_sample *s)
{
    memset(s, 0, sizeof(*s));
    s->domain = 1;
    s->mode = LOG_MODE_GUEST_KERNEL;
    s->rip = 0xffffffff81000000ull + (i * 2654435761u) % 0x1000000u;
}

static double produce(struct stream *s)
{
    static uint8_t storage[RING_SIZE];
    struct log_ring ring;
    struct log_sample sample;
    log_ring_init(&ring, 0, storage, RING_SIZE);
    uint64_t tsc = 1000000;
    double t0 = now_s();
    for (uint32_t i = 0; i < SAMPLES; i++) {
        sample_at(i, &sample);
        tsc += PERIOD_TICKS + (i * 7919u) % 5000u;
        if (log_ring_free(&ring) < log_ring_entry_size(LOG_SAMPLE_FIELDS_MAX))
            drain(&ring, s);
        if (!log_emit_sample(&ring, tsc, &sample))
            return -1;
    }
    drain(&ring, s);
    return (now_s() - t0) / SAMPLES;
}

typedef uint32_t crc_fn(uint32_t crc, const void *buf, size_t len);

/* GB/s of one CRC32C path over len bytes, best of DECODE_PASSES. */
static double crc_gbps(crc_fn *fn, const uint8_t *buf, size_t len, uint32_t *out)
{
    double best = 1e9;
    for (int pass = 0; pass < DECODE_PASSES; pass++) {
        double t0 = now_s();
        *out += fn(0, buf, len);
        double t = now_s() - t0;
        best = t < best ? t : best;
    }
    return (double)len / best / 1e9;
}

/* The checksum the decoder runs on every block (vmm/log_crc.c, shared
 * with the hypervisor) against its byte-table fallback. */
static void bench_crc(const uint8_t *buf, size_t len)
{
    uint32_t sink = 0;
    double fast = crc_gbps(log_crc32c, buf, len, &sink);
    double table = crc_gbps(log_crc32c_bytewise, buf, len, &sink);
    printf("bench-log: CRC32C (decoder and hypervisor, %s): %.2f GB/s; byte table: %.2f GB/s "
           "[%08x]\n", log_crc32c_hw_available() ? "SSE4.2 instruction" : "no SSE4.2: byte table",
           fast, table, sink);
}

static void count_record(void *user, const struct logdec_record *r)
{
    uint64_t *sum = user;
    *sum += r->u.sample.rip ^ r->tsc;
}

int main(void)
{
    struct stream s = { .cap = (size_t)SAMPLES * 24 + BLOCK_MAX };
    s.data = malloc(s.cap);
    struct logdec *dec = malloc(sizeof(*dec));
    if (!s.data || !dec)
        return 1;
    double emit_s = produce(&s);
    static const struct logdec_callbacks cb = { .record = count_record };
    uint64_t sum = 0, records = 0;
    double secs = 1e9;   /* best pass: the machine may be shared */
    for (int pass = 0; pass < DECODE_PASSES; pass++) {
        double t0 = now_s();
        logdec_init(dec, &cb, &sum);
        logdec_feed(dec, s.data, s.len);
        logdec_finish(dec);
        double t = now_s() - t0;
        secs = t < secs ? t : secs;
        records += dec->totals.records;
    }
    printf("bench-log: sample record (RIP only, kernel, delta TSC ~%u ticks): %.2f bytes in "
           "payload, %.2f bytes with block headers (target <= 16)\n", PERIOD_TICKS,
           (double)s.payload_bytes / SAMPLES, (double)s.len / SAMPLES);
    printf("bench-log: producer + drain: %.1f ns per sample (encode, ring write, block framing)\n",
           emit_s * 1e9);
    printf("bench-log: decoder: %.1f M records/s, %.1f MB/s on one core, best of %d passes "
           "(target >= 20 M records/s) [checksum %llx]\n", (double)SAMPLES / secs / 1e6,
           (double)s.len / secs / 1e6, DECODE_PASSES, (unsigned long long)(sum & 0xffff));
    bench_crc(s.data, s.len);
    if (records != (uint64_t)SAMPLES * DECODE_PASSES)
        printf("bench-log: ERROR: decoded %llu records, expected %llu\n",
               (unsigned long long)records, (unsigned long long)SAMPLES * DECODE_PASSES);
    free(dec);
    free(s.data);
    return records == (uint64_t)SAMPLES * DECODE_PASSES ? 0 : 1;
}
