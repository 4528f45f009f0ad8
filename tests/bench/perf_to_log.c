/* perf-to-log ELF GUEST_PATH PERIOD OUT: the samples of a perf.data, as
 * `perf script -F pid,ip,dso` prints them on standard input (a line with
 * the PID, then one address per line, the sampled one first and the
 * callers' return addresses after it, each followed by its image in
 * parentheses, which the PID line lacks; a blank line after each
 * sample), written as
 * a Vertigo log to OUT with the hypervisor's encoder: guest user samples
 * of domain 0 (at most LOG_STACK_MAX callers kept), the process maps
 * naming ELF's text as GUEST_PATH, each process's identity (its name is
 * GUEST_PATH's last component) and event 0 "cpu-clock:u" of period
 * PERIOD. tests/bench/bench_report.sh gives the same profile to `perf
 * report` and to `vertigo report` this way. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fixtures/profile/gen_profile.h"
#include "vmm/log/log_emit.h"
#include "vmm/log/log_encode.h"
#include "vmm/log/log_ring.h"

#define RING_BYTES (1u << 20)
#define DRAIN_BELOW (64u * 1024u)
#define BLOCK_MAX 16384u
#define TSC_HZ 1000000000ull         /* one tick per nanosecond */
#define TSC_STEP 40000u              /* ticks between samples */
#define CR3_BASE 0x10000000ull       /* process i's page tables at CR3_BASE + i x CR3_STEP */
#define CR3_STEP 0x2000u             /* the bits above PCID and the PTI bit */
#define PROCS_MAX 64u
#define LINE_MAX_BYTES 512u
#define TEXT_MAX_BYTES 4096u
#define EVENT_NAME "cpu-clock:u"

/* ELF's executable segment: where it is mapped and its file offset. */
struct text {
    const char *elf;
    uint64_t start, end, offset;
};

/* The address on a callchain line "ADDR (IMAGE)": perf prints an address
 * of a known image relative to the image's file, which for ELF is turned
 * back into the address it was mapped at; others are kept as printed. */
static uint64_t line_address(const char *p, const struct text *t)
{
    char *rest;
    uint64_t a = strtoull(p, &rest, 16);
    const char *open = strchr(rest, '('), *close = open ? strrchr(open, ')') : NULL;
    size_t n = strlen(t->elf);
    if (close && (size_t)(close - open - 1) == n && !strncmp(open + 1, t->elf, n))
        a = a - t->offset + t->start;
    return a;
}

struct writer {
    FILE *out;
    struct log_ring ring;
    uint64_t tsc;
    uint32_t pids[PROCS_MAX];
    unsigned int proc_count;
    const char *comm;
};

static void drain(struct writer *w, bool all)
{
    static uint8_t block[BLOCK_MAX];
    size_t n;
    if (!all && log_ring_free(&w->ring) > DRAIN_BELOW)
        return;
    while ((n = log_ring_read(&w->ring, block, sizeof(block))) > 0)
        fwrite(block, 1, n, w->out);
}

static void emit_text(struct writer *w, uint8_t kind, uint32_t pid, const char *text)
{
    struct log_symbols s = { .domain = 0, .kind = kind, .pid = pid, .epoch = 0, .chunk = 0,
                             .last = true, .data = (const uint8_t *)text,
                             .len = (uint32_t)strlen(text) };
    drain(w, false);
    log_emit_symbols(&w->ring, w->tsc += TSC_STEP, &s);
}

/* The CR3 of process pid, announcing it (maps, identity) when it is new. */
static uint64_t process_cr3(struct writer *w, uint32_t pid, uint64_t start, uint64_t end,
                            uint64_t offset, const char *path)
{
    unsigned int i = 0;
    while (i < w->proc_count && w->pids[i] != pid)
        i++;
    uint64_t cr3 = CR3_BASE + (uint64_t)i * CR3_STEP;
    if (i < w->proc_count || i == PROCS_MAX)
        return i == PROCS_MAX ? CR3_BASE : cr3;
    w->pids[w->proc_count++] = pid;
    char text[TEXT_MAX_BYTES];
    snprintf(text, sizeof(text), "%08" PRIx64 "-%08" PRIx64 " r-xp %08" PRIx64 " 00:02 1 %s\n",
             start, end, offset, path);
    emit_text(w, LOG_SYM_PROC_MAPS, pid, text);
    snprintf(text, sizeof(text), "%u %" PRIx64 " %s\n", pid, cr3, w->comm);
    emit_text(w, LOG_SYM_PROCESS, pid, text);
    return cr3;
}

static void preamble(struct writer *w, uint64_t period)
{
    struct log_stream_info info = { .cpu_count = 1, .tsc_hz = TSC_HZ,
                                    .record_types = ((1u << LOG_REC_TYPE_COUNT) - 1) & ~1u };
    uint8_t hdr[LOG_STREAM_HEADER_SIZE];
    log_encode_stream_header(hdr, &info);
    fwrite(hdr, 1, sizeof(hdr), w->out);
    static const char config[] = "synthetic=perf-to-log";
    log_emit_config(&w->ring, w->tsc, &(struct log_config){ config, sizeof(config) - 1 });
    log_emit_event_desc(&w->ring, w->tsc += TSC_STEP,
                        &(struct log_event_desc){ 0, 0, EVENT_NAME, sizeof(EVENT_NAME) - 1 });
    log_emit_event_period(&w->ring, w->tsc += TSC_STEP,
                          &(struct log_event_period){ .event = 0, .period = period });
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: perf-to-log ELF GUEST_PATH PERIOD OUT < perf-script-output\n");
        return 1;
    }
    struct text t = { .elf = argv[1] };
    if (!gen_elf_text(argv[1], &t.start, &t.end, &t.offset)) {
        fprintf(stderr, "perf-to-log: %s: no executable segment\n", argv[1]);
        return 1;
    }
    static uint8_t storage[RING_BYTES];
    static struct writer w;
    w.out = fopen(argv[4], "wb");
    if (!w.out) {
        perror(argv[4]);
        return 1;
    }
    const char *slash = strrchr(argv[2], '/');
    w.comm = slash ? slash + 1 : argv[2];
    log_ring_init(&w.ring, 0, storage, sizeof(storage));
    preamble(&w, strtoull(argv[3], NULL, 0));
    char line[LINE_MAX_BYTES];
    struct log_sample s = { .mode = LOG_MODE_GUEST_USER, .has_cr3 = true };
    bool in_sample = false;
    uint64_t samples = 0;
    unsigned int addrs = 0;
    for (;;) {
        bool eof = !fgets(line, sizeof(line), stdin);
        char *p = line + strspn(line, " \t");
        if (eof || *p == '\n' || !*p) {         /* the end of a sample */
            if (in_sample && addrs) {
                s.depth = addrs - 1;
                drain(&w, false);
                log_emit_sample(&w.ring, w.tsc += TSC_STEP, &s);
                samples++;
            }
            in_sample = false;
            if (eof)
                break;
        } else if (!strchr(p, '(')) {                      /* "PID", no image */
            uint32_t pid = (uint32_t)strtoul(line, NULL, 10);
            s.cr3 = process_cr3(&w, pid, t.start, t.end, t.offset, argv[2]);
            in_sample = true;
            addrs = 0;
        } else if (in_sample && addrs <= LOG_STACK_MAX) {   /* an address */
            uint64_t a = line_address(p, &t);
            if (addrs == 0)
                s.rip = a;
            else
                s.stack[addrs - 1] = a;
            addrs++;
        }
    }
    drain(&w, true);
    if (fclose(w.out) != 0) {
        perror(argv[4]);
        return 1;
    }
    printf("perf-to-log: %" PRIu64 " samples\n", samples);
    return 0;
}
