/* The report fuzzer's harness (see fuzz_report.h): frames the input's
 * records into a valid stream, loads it as `vertigo report` does
 * (profile_complete: loss, symbol problems, warnings), runs the report,
 * folded, CSV and pprof writers, and checks that their totals agree. */
#include "tests/fuzz/fuzz_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host-tools/profile.h"
#include "host-tools/text_quote.h"
#include "host-tools/vertigo.h"
#include "tests/fuzz/hostile_logs.h"
#include "tests/unit/test_log_util.h"
#include "vmm/log/log_varint.h"

#define PATH_LEN 512u
#define ROOT_LEN (PATH_LEN + 32u)            /* PATH_LEN/fuzz/report-root.XXXXXX */
#define CPUS 4u
#define BLOCK_FILL 8192u             /* payload bytes before the harness closes a block */
/* Fixtures are found from the source tree's path built in (tests/fuzz/fuzz.mk),
 * so the fuzzer runs from any directory. */
#ifndef VERTIGO_SOURCE_DIR
#define VERTIGO_SOURCE_DIR "."
#endif
#define KALLSYMS VERTIGO_SOURCE_DIR "/tests/fixtures/profile/kallsyms.txt"

static char root_dir[ROOT_LEN], vertigo_elf[PATH_LEN + 32u];

/* ---- The fuzz root: hostile_root_make's files ------------------------------- */

static void remove_tree(const char *dir)
{
    char cmd[ROOT_LEN + 16];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "fuzz-report: could not remove %s\n", dir);
}

/* One root per build, kept: made in a temporary directory and renamed
 * into place, so a run that stops half way leaves none, and runs at the
 * same time (the fuzzer, the corpus replay) share whichever was first. */
bool fuzz_report_setup(const char *build_dir)
{
    char workload[PATH_LEN + 32u], fuzz_dir[PATH_LEN + 8u], tmp[ROOT_LEN], done[ROOT_LEN + 16u];
    if (strlen(build_dir) >= PATH_LEN)
        return false;
    snprintf(workload, sizeof(workload), "%s/profile/root/bin/workload", build_dir);
    snprintf(vertigo_elf, sizeof(vertigo_elf), "%s/profile/hvmini", build_dir);
    snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/fuzz", build_dir);
    snprintf(root_dir, sizeof(root_dir), "%s/report-root", fuzz_dir);
    snprintf(done, sizeof(done), "%s/.complete", root_dir);
    mkdir(fuzz_dir, 0755);
    if (access(done, F_OK) != 0) {
        snprintf(tmp, sizeof(tmp), "%s/report-root.XXXXXX", fuzz_dir);
        if (!mkdtemp(tmp))
            return false;
        char mark[ROOT_LEN + 16u];
        snprintf(mark, sizeof(mark), "%s/.complete", tmp);
        FILE *f = hostile_root_make(tmp, workload) ? fopen(mark, "w") : NULL;
        if (!f || fclose(f) != 0 || rename(tmp, root_dir) != 0)
            remove_tree(tmp);                  /* or another run made it first */
    }
    return access(done, F_OK) == 0 && access(vertigo_elf, R_OK) == 0;
}

/* ---- Framing the input into a stream --------------------------------------- */

struct framer {
    struct log_test_stream out, payload;
    int cpu;                         /* of the open block, -1: none */
    uint16_t records;
    uint32_t seq[CPUS];
    uint64_t first[CPUS];
};

static void close_block(struct framer *f)
{
    if (f->cpu < 0)
        return;
    unsigned c = (unsigned)f->cpu;
    log_test_block(&f->out, (uint16_t)c, f->seq[c]++, f->first[c], 1000, f->records, &f->payload);
    f->first[c] += f->records;
    f->records = 0;
    f->payload.len = 0;
    f->cpu = -1;
}

static void new_stream(struct framer *f)
{
    close_block(f);
    memset(f->seq, 0, sizeof(f->seq));
    memset(f->first, 0, sizeof(f->first));
    log_test_stream_header(&f->out, CPUS);
}

/* One record: control byte, type, body; returns the bytes it took. */
static size_t frame_record(struct framer *f, const uint8_t *p, size_t left)
{
    uint8_t ctl = p[0], type = p[1];
    size_t len = (size_t)(p[2] | p[3] << 8);
    if (len > left - FUZZ_RECORD_HEAD)
        len = left - FUZZ_RECORD_HEAD;
    int cpu = ctl & FUZZ_CTL_CPU_MASK;
    if (ctl & FUZZ_CTL_NEW_STREAM)
        new_stream(f);
    if (f->cpu != cpu || (ctl & FUZZ_CTL_NEW_BLOCK) || f->payload.len + len > BLOCK_FILL ||
        f->records == UINT16_MAX)
        close_block(f);
    if (ctl & FUZZ_CTL_GAP)
        f->seq[cpu]++;
    f->cpu = cpu;
    uint8_t head[1 + LOG_VARINT_MAX];
    head[0] = type;
    size_t head_len = 1 + log_varint_put(head + 1, len);
    log_test_stream_append(&f->payload, head, head_len);
    if (len)
        log_test_stream_append(&f->payload, p + FUZZ_RECORD_HEAD, len);
    f->records++;
    return FUZZ_RECORD_HEAD + len;
}

static void frame_input(struct framer *f, const uint8_t *data, size_t size)
{
    f->cpu = -1;
    new_stream(f);
    for (size_t off = 0; size - off >= FUZZ_RECORD_HEAD;)
        off += frame_record(f, data + off, size - off);
    close_block(f);
}

/* ---- Loading and writing ---------------------------------------------------- */

/* Counts the samples the decoder passes on, then hands each record to
 * the profile. */
struct counted {
    struct profile *p;
    uint64_t samples;
    char first_event[PROFILE_EVENT_NAME_MAX];
};

/* A sample the decoder passed on is what the general field parser reads
 * from its bytes (the decoder's fast path took most of them). */
static void check_sample(const struct logdec_record *r)
{
    struct logdec_record general = { .type = LOG_REC_SAMPLE };
    const struct log_sample *a = &r->u.sample, *b = &general.u.sample;
    if (logdec_parse_fields(&general, r->raw, r->raw + r->raw_len) != 0 || a->mode != b->mode ||
        a->domain != b->domain || a->vcpu != b->vcpu || a->event != b->event || a->rip != b->rip ||
        a->has_cr3 != b->has_cr3 || a->cr3 != b->cr3 || a->depth != b->depth ||
        memcmp(a->stack, b->stack, a->depth * sizeof(a->stack[0])))
        abort();
}

static void count_record(void *user, const struct logdec_record *r)
{
    struct counted *c = user;
    c->samples += r->type == LOG_REC_SAMPLE;
    if (r->type == LOG_REC_SAMPLE)
        check_sample(r);
    if (r->type == LOG_REC_EVENT_DESC && !c->first_event[0]) {
        size_t n = r->u.event_desc.len < sizeof(c->first_event) - 1 ? r->u.event_desc.len
                                                                     : sizeof(c->first_event) - 1;
        memcpy(c->first_event, r->u.event_desc.name, n);
        c->first_event[n] = '\0';
    }
    profile_record(c->p, r);
}

static void count_header(void *user, const struct log_stream_header *h, uint64_t offset)
{
    profile_header(((struct counted *)user)->p, h, offset);
}

static struct profile_options options_of(uint8_t opt, const char *event)
{
    return (struct profile_options){
        .sym = { .guest_root = opt & FUZZ_OPT_GUEST_ROOT ? root_dir : NULL,
                 .kallsyms_path = opt & FUZZ_OPT_KALLSYMS ? KALLSYMS : NULL,
                 .vertigo_elf = opt & FUZZ_OPT_VERTIGO_ELF ? vertigo_elf : NULL },
        .event = opt & FUZZ_OPT_EVENT && event[0] ? event : NULL,
        .timeline = true,
    };
}

/* The text a writer produces (malloc'd). */
static char *render(const struct profile *p, bool (*writer)(FILE *out, const struct profile *p),
                    const struct report_options *ro)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        abort();
    if (writer && !writer(out, p))
        abort();
    if (!writer)
        report_write(out, p, ro);
    fclose(out);
    return text;
}

/* The sum of the numbers after the from_end-th separator from the end
 * (folded: the last space; CSV: the samples column) of each line after
 * the first skip lines. */
static uint64_t sum_column(const char *text, char sep, unsigned from_end, unsigned skip)
{
    uint64_t sum = 0;
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (skip) {
            skip--;
            continue;
        }
        const char *end = strchr(l, '\n'), *q = end ? end : l + strlen(l);
        for (unsigned k = 0; k < from_end && q > l; k++)
            while (q > l && *--q != sep) {}
        sum += strtoull(q + 1, NULL, 10);
    }
    return sum;
}

/* Whether the last n fields of every CSV row after the header (the
 * numbers: source_line .. percent) hold something. */
static bool csv_numbers_filled(const char *csv, unsigned n)
{
    for (const char *l = strchr(csv, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
        const char *end = strchr(l + 1, '\n'), *q = end ? end : l + strlen(l);
        for (unsigned k = 0; k < n; k++) {
            if (q[-1] == ',' || q - 1 <= l)
                return false;
            while (q > l + 1 && *--q != ',') {}
        }
    }
    return true;
}

/* Whether text may reach a terminal: valid UTF-8 with no control
 * character but line feeds and tabs (what text_quote.h guarantees of
 * every writer, whatever names the log holds). */
static bool terminal_safe(const char *text)
{
    const unsigned char *p = (const unsigned char *)text;
    uint32_t cp;
    for (size_t n; *p; p += n)
        if (!(n = utf8_sequence(p, &cp)) || (text_is_control(cp) && cp != '\n' && cp != '\t'))
            return false;
    return true;
}

static uint64_t count_text(const char *text, const char *needle)
{
    uint64_t n = 0;
    for (const char *at = text; (at = strstr(at, needle)); at += strlen(needle))
        n++;
    return n;
}

static void check_writers(const struct profile *p, uint8_t opt)
{
    uint64_t total = 0, by_event = 0;
    for (uint64_t i = 0; i < p->sample_count; i++)
        total += p->samples[i].count;
    for (uint32_t e = 0; e < p->event_count; e++)
        by_event += p->events[e].total;
    if (total != p->total || by_event != p->total || p->total > p->raw_samples)
        abort();
    struct report_options ro = { .sort = (enum report_sort)(opt & FUZZ_OPT_SORT_MASK),
                                 .keys = { REPORT_KEY_COMM, REPORT_KEY_PID, REPORT_KEY_DSO, REPORT_KEY_SYM },
                                 .key_count = REPORT_KEY_COUNT,
                                 .children = opt & FUZZ_OPT_CHILDREN, .by_mode = opt & FUZZ_OPT_BY_MODE };
    char *report = render(p, NULL, &ro), *folded = render(p, export_folded, NULL);
    char *csv = render(p, export_csv, NULL), *pprof = render(p, export_pprof, NULL);
    char *script = render(p, script_write, NULL), *trace = render(p, export_perfetto, NULL);
    if (!terminal_safe(report) || !terminal_safe(folded) || !terminal_safe(csv) ||
        !terminal_safe(script) || !terminal_safe(trace))
        abort();
    const char *line = strstr(report, "\n# Total samples: ");
    if (!line || strtoull(line + 18, NULL, 10) != p->total)
        abort();
    /* CSV: samples,period_events,events,percent end each row */
    if (sum_column(folded, ' ', 1, 0) != p->total || sum_column(csv, ',', 4, 1) != p->total ||
        !csv_numbers_filled(csv, 5))
        abort();
    /* every sample once in time order: script ends each with a blank line */
    if (p->timeline.occ_count != p->total || count_text(script, "\n\n") != p->total ||
        count_text(trace, "\"ph\":\"i\"") != p->total)
        abort();
    free(report);
    free(folded);
    free(csv);
    free(pprof);
    free(script);
    free(trace);
}

/* One pass of the decoder through the framed stream, counting. */
static void read_framed(struct logdec *dec, struct counted *c, const struct log_test_stream *s)
{
    static const struct logdec_callbacks cb = { .header = count_header, .record = count_record };
    logdec_init(dec, &cb, c);
    logdec_feed(dec, s->data, s->len);
    logdec_finish(dec);
}

void fuzz_report_run(const uint8_t *data, size_t size)
{
    if (size < 1)
        return;
    struct framer f = { 0 };
    frame_input(&f, data + 1, size - 1);
    /* The event filter (set once the log is read) names its first event
     * description. */
    struct counted c = { 0 };
    struct logdec *dec = malloc(sizeof(*dec));
    struct profile p;
    char err[256];
    struct profile_options o = options_of(data[0], "");
    if (!dec || !profile_init(&p, &o, err, sizeof(err)))
        abort();
    c.p = &p;
    read_framed(dec, &c, &f.out);
    if (profile_read_again(&p)) {       /* as profile_read_log: a set came after samples */
        c.samples = 0;
        read_framed(dec, &c, &f.out);
    }
    o = options_of(data[0], c.first_event);
    FILE *saved = stderr;
    stderr = fopen("/dev/null", "w");
    int status = profile_complete(&p, "report", "fuzz", &o, dec);
    fclose(stderr);
    stderr = saved;
    if (p.raw_samples != c.samples)
        abort();
    if ((status == VERTIGO_EXIT_OK || status == VERTIGO_EXIT_DAMAGED) && !p.overflow.hit)
        check_writers(&p, data[0]);
    profile_free(&p);
    free(dec);
    log_test_stream_free(&f.out);
    log_test_stream_free(&f.payload);
}
