/* libFuzzer target for the log decoder: feeds the input in chunks whose
 * sizes come from the input's first byte (so resynchronization across
 * feed boundaries is exercised), formats every record and problem as
 * `vertigo decode` would, and checks the decoder's own invariants. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "host-tools/log_text.h"
#include "host-tools/logdec.h"

static FILE *sink;

static void on_header(void *user, const struct log_stream_header *h, uint64_t offset)
{
    (void)user;
    log_text_header(sink, h, offset);
}

static void on_record(void *user, const struct logdec_record *r)
{
    uint64_t *bytes = user;
    if (r->offset >= *bytes)
        abort();   /* a record cannot start beyond the bytes fed */
    log_text_record(sink, r);
}

static void on_problem(void *user, const struct logdec_problem *p)
{
    (void)user;
    log_text_problem(sink, p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct logdec dec;
    static const struct logdec_callbacks cb = {
        .header = on_header, .record = on_record, .problem = on_problem,
    };
    if (!sink)
        sink = fopen("/dev/null", "w");
    if (size == 0)
        return 0;
    size_t chunk = (size_t)data[0] * 7 + 1;
    uint64_t fed = 0;
    logdec_init(&dec, &cb, &fed);
    for (size_t off = 1; off < size; off += chunk) {
        size_t n = size - off < chunk ? size - off : chunk;
        fed += n;
        logdec_feed(&dec, data + off, n);
    }
    logdec_finish(&dec);
    if (dec.totals.block_bytes > dec.totals.bytes || dec.totals.bytes != size - 1)
        abort();
    (void)logdec_verdict(&dec);
    return 0;
}
