/* fuzz-report-seed OUTDIR [LOG...]: writes the report fuzzer's seeds
 * (input format: tests/fuzz/fuzz_report.h) to OUTDIR: every hostile log
 * of tests/fuzz/hostile_logs.h at a small scale, and each LOG given (the
 * report tests' synthetic capture), each record as the decoder read it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host-tools/logdec.h"
#include "tests/fuzz/fuzz_report.h"
#include "tests/fuzz/hostile_logs.h"
#include "vmm/log/log_varint.h"

#define SEED_SCALE 3u
#define PATH_LEN 1024u
#define OPTS_HOSTILE (FUZZ_OPT_GUEST_ROOT | FUZZ_OPT_BY_MODE)
#define OPTS_CAPTURE (FUZZ_OPT_GUEST_ROOT | FUZZ_OPT_VERTIGO_ELF | FUZZ_OPT_BY_MODE | FUZZ_OPT_CHILDREN)

/* The seed being written and where the decoder stands. */
struct seed {
    struct log_test_stream out;
    uint8_t next_ctl;                /* flags for the next record */
    uint64_t prev_tsc;
};

static void on_header(void *user, const struct log_stream_header *h, uint64_t offset)
{
    (void)h, (void)offset;
    ((struct seed *)user)->next_ctl |= FUZZ_CTL_NEW_STREAM;
}

static void on_block(void *user, const struct log_block_header *h, uint64_t offset)
{
    struct seed *s = user;
    (void)offset;
    s->next_ctl |= FUZZ_CTL_NEW_BLOCK;
    s->prev_tsc = h->base_tsc;
}

static void on_record(void *user, const struct logdec_record *r)
{
    struct seed *s = user;
    uint8_t delta[LOG_VARINT_MAX];
    size_t delta_len = log_varint_put(delta, log_zigzag((int64_t)(r->tsc - s->prev_tsc)));
    size_t len = delta_len + r->raw_len;
    uint8_t head[FUZZ_RECORD_HEAD] = { (uint8_t)(s->next_ctl | (r->cpu & FUZZ_CTL_CPU_MASK)), r->type,
                                       (uint8_t)len, (uint8_t)(len >> 8) };
    log_test_stream_append(&s->out, head, sizeof(head));
    log_test_stream_append(&s->out, delta, delta_len);
    if (r->raw_len)
        log_test_stream_append(&s->out, r->raw, r->raw_len);
    s->next_ctl = 0;
    s->prev_tsc = r->tsc;
}

static bool write_seed(const char *dir, const char *name, uint8_t options, const void *log, size_t len)
{
    static const struct logdec_callbacks cb = { .header = on_header, .block = on_block,
                                                .record = on_record };
    struct seed s = { 0 };
    struct logdec *dec = malloc(sizeof(*dec));
    if (!dec)
        return false;
    log_test_stream_append(&s.out, &options, 1);
    logdec_init(dec, &cb, &s);
    logdec_feed(dec, log, len);
    logdec_finish(dec);
    free(dec);
    char path[PATH_LEN];
    snprintf(path, sizeof(path), "%s/seed-%s", dir, name);
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(s.out.data, 1, s.out.len, f) == s.out.len;
    ok &= f && fclose(f) == 0;
    log_test_stream_free(&s.out);
    if (!ok)
        perror(path);
    return ok;
}

static bool seed_from_file(const char *dir, const char *path)
{
    FILE *f = fopen(path, "rb");
    struct log_test_stream log = { 0 };
    char buf[65536];
    size_t n;
    while (f && (n = fread(buf, 1, sizeof(buf), f)) > 0)
        log_test_stream_append(&log, buf, n);
    if (f)
        fclose(f);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    bool ok = f && write_seed(dir, base, OPTS_CAPTURE, log.data, log.len) &&
              write_seed(dir, "kallsyms-file", OPTS_CAPTURE | FUZZ_OPT_KALLSYMS, log.data, log.len);
    log_test_stream_free(&log);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: fuzz-report-seed OUTDIR [LOG...]\n");
        return 1;
    }
    bool ok = true;
    for (const char *const *kind = hostile_log_kinds; *kind; kind++) {
        struct log_test_stream log = { 0 };
        ok &= hostile_log_write(*kind, SEED_SCALE, &log);
        ok &= write_seed(argv[1], *kind, OPTS_HOSTILE, log.data, log.len);
        log_test_stream_free(&log);
    }
    for (int i = 2; i < argc; i++)
        ok &= seed_from_file(argv[1], argv[i]);
    return ok ? 0 : 1;
}
