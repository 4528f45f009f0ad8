/* Log benchmark (make bench, tests/bench/bench_log.sh): encoded size of a
 * RIP-only sample with a delta TSC (target <= 16 bytes), producer cost per
 * sample, and decoder throughput on one core in records/s and MB/s (target
 * >= 100 M records/s): the median of DECODE_PASSES passes by wall time and
 * by the thread's CPU time, with the slowest and fastest pass beside it.
 * `bench-log --decode-once N` encodes N samples and decodes them once in
 * decode_once(), for callgrind to count its instructions per record. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host-tools/logdec.h"
#include "host-tools/logdec_crc.h"
#include "lib/log_crc.h"
#include "vmm/log/log_emit.h"
#include "vmm/log/log_encode.h"
#include "vmm/log/log_ring.h"

#define SAMPLES      (1u << 20)
#define RING_SIZE    (1u << 20)
#define BLOCK_MAX    4096u
#define DECODE_PASSES 15
#define PERIOD_TICKS 200000u   /* 100 us between samples at 2 GHz */
#define CRC_PAYLOAD  4096u     /* the checksums are timed over payloads this long */

struct stream {
    uint8_t *data;
    size_t len, cap;
    uint64_t payload_bytes;
};

static double clock_s(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now_s(void)
{
    return clock_s(CLOCK_MONOTONIC);
}

static int double_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sorts t[0..n) and returns its median. */
static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof(*t), double_cmp);
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
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

static double produce(struct stream *s, uint32_t samples)
{
    static uint8_t storage[RING_SIZE];
    struct log_ring ring;
    struct log_sample sample;
    log_ring_init(&ring, 0, storage, RING_SIZE);
    uint64_t tsc = 1000000;
    double t0 = now_s();
    for (uint32_t i = 0; i < samples; i++) {
        sample_at(i, &sample);
        tsc += PERIOD_TICKS + (i * 7919u) % 5000u;
        if (log_ring_free(&ring) < log_ring_entry_size(LOG_SAMPLE_FIELDS_MAX))
            drain(&ring, s);
        if (!log_emit_sample(&ring, tsc, &sample))
            return -1;
    }
    drain(&ring, s);
    return (now_s() - t0) / samples;
}

typedef uint32_t crc_fn(uint32_t crc, const void *buf, size_t len);

/* GB/s of one CRC32C path over the CRC_PAYLOAD-byte pieces of len bytes,
 * median of DECODE_PASSES by CPU time. */
static double crc_gbps(crc_fn *fn, const uint8_t *buf, size_t len, uint32_t *out)
{
    double t[DECODE_PASSES];
    for (int pass = 0; pass < DECODE_PASSES; pass++) {
        double t0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
        for (size_t at = 0; at + CRC_PAYLOAD <= len; at += CRC_PAYLOAD)
            *out += fn(0, buf + at, CRC_PAYLOAD);
        t[pass] = clock_s(CLOCK_THREAD_CPUTIME_ID) - t0;
    }
    return (double)(len - len % CRC_PAYLOAD) / median(t, DECODE_PASSES) / 1e9;
}

static uint32_t decoder_crc(uint32_t crc, const void *buf, size_t len)
{
    (void)crc;
    return logdec_crc32c(buf, len);
}

/* The checksums of a block payload: the decoder's three lanes
 * (host-tools/logdec_crc.c), the hypervisor's one chain (lib/log_crc.c),
 * and the byte-table fallback of both, over 4 KiB payloads. */
static void bench_crc(const uint8_t *buf, size_t len)
{
    uint32_t sink = 0;
    double lanes = crc_gbps(decoder_crc, buf, len, &sink);
    double chain = crc_gbps(log_crc32c, buf, len, &sink);
    double table = crc_gbps(log_crc32c_bytewise, buf, len, &sink);
    printf("bench-log: CRC32C by CPU time (%s): decoder %.2f GB/s, hypervisor %.2f GB/s; "
           "byte table: %.2f GB/s [%08x]\n",
           log_crc32c_hw_available() ? "SSE4.2 instruction" : "no SSE4.2: byte table",
           lanes, chain, table, sink);
}

static void count_record(void *user, const struct logdec_record *r)
{
    uint64_t *sum = user;
    *sum += r->u.sample.rip ^ r->tsc;
}

/* Decodes the stream once; returns the records decoded. Callgrind counts
 * the instructions of this function alone (--toggle-collect). */
__attribute__((noinline)) static uint64_t decode_once(struct logdec *dec, const struct stream *s,
                                                      uint64_t *sum)
{
    static const struct logdec_callbacks cb = { .record = count_record };
    logdec_init(dec, &cb, sum);
    logdec_feed(dec, s->data, s->len);
    logdec_finish(dec);
    return dec->totals.records;
}

/* Throughput in M records/s for the median, slowest and fastest pass. */
static void print_rate(const char *what, double *t, uint32_t samples)
{
    double mid = median(t, DECODE_PASSES);
    printf("bench-log: decoder by %s: %.1f M records/s median of %d passes (slowest %.1f, "
           "fastest %.1f)\n", what, samples / mid / 1e6, DECODE_PASSES,
           samples / t[DECODE_PASSES - 1] / 1e6, samples / t[0] / 1e6);
}

static int decode_only(uint32_t samples, struct stream *s, struct logdec *dec)
{
    uint64_t sum = 0;
    if (produce(s, samples) < 0)
        return 1;
    uint64_t records = decode_once(dec, s, &sum);
    printf("bench-log: decoded %llu records [checksum %llx]\n", (unsigned long long)records,
           (unsigned long long)(sum & 0xffff));
    return records == samples ? 0 : 1;
}

int main(int argc, char **argv)
{
    struct stream s = { .cap = (size_t)SAMPLES * 24 + BLOCK_MAX };
    s.data = malloc(s.cap);
    struct logdec *dec = malloc(sizeof(*dec));
    if (!s.data || !dec)
        return 1;
    if (argc == 3 && !strcmp(argv[1], "--decode-once")) {
        unsigned long n = strtoul(argv[2], NULL, 10);
        return n && n <= SAMPLES ? decode_only((uint32_t)n, &s, dec) : 2;
    }
    double emit_s = produce(&s, SAMPLES);
    uint64_t sum = 0, records = 0;
    double wall[DECODE_PASSES], cpu[DECODE_PASSES];
    for (int pass = 0; pass < DECODE_PASSES; pass++) {
        double w0 = now_s(), c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
        records += decode_once(dec, &s, &sum);
        cpu[pass] = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
        wall[pass] = now_s() - w0;
    }
    printf("bench-log: sample record (RIP only, kernel, delta TSC ~%u ticks): %.2f bytes in "
           "payload, %.2f bytes with block headers (target <= 16)\n", PERIOD_TICKS,
           (double)s.payload_bytes / SAMPLES, (double)s.len / SAMPLES);
    printf("bench-log: producer + drain: %.1f ns per sample (encode, ring write, block framing)\n",
           emit_s * 1e9);
    print_rate("CPU time", cpu, SAMPLES);
    print_rate("wall time", wall, SAMPLES);
    printf("bench-log: decoder: %.1f MB/s by CPU time on one core (target >= 100 M records/s, "
           "RIP-only samples) [checksum %llx]\n", (double)s.len / cpu[DECODE_PASSES / 2] / 1e6,
           (unsigned long long)(sum & 0xffff));
    bench_crc(s.data, s.len);
    if (records != (uint64_t)SAMPLES * DECODE_PASSES)
        printf("bench-log: ERROR: decoded %llu records, expected %llu\n",
               (unsigned long long)records, (unsigned long long)SAMPLES * DECODE_PASSES);
    free(dec);
    free(s.data);
    return records == (uint64_t)SAMPLES * DECODE_PASSES ? 0 : 1;
}
