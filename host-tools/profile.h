/* Sample aggregation for `vertigo report` and `vertigo export`.
 *
 * A profile is fed by the log decoder's record callback (profile_record):
 * symbols records go to the symbolizer, samples are aggregated by their
 * raw contents (domain, VCPU, mode, event, CR3, JIT position, RIP and
 * call stack) so that each distinct sample is symbolized once. After the
 * input ends, profile_finish() applies the event filter and resolves
 * every distinct sample into frames (leaf first) through the symbolizer.
 * The writers (report, pprof, folded, CSV) read the resolved samples;
 * script and Perfetto also their times (profile_timeline.h).
 *
 * This header also declares the writers and the two subcommands; each
 * writer lives in its own file (cmd_report.c, export_<format>.c). */
#ifndef HOST_TOOLS_PROFILE_H
#define HOST_TOOLS_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "host-tools/domain_names.h"
#include "host-tools/log_arith.h"
#include "host-tools/logdec.h"
#include "host-tools/profile_timeline.h"
#include "host-tools/report_callgraph.h"
#include "host-tools/symbolize.h"
#include "host-tools/time_filter.h"

#define PROFILE_EVENT_NAME_MAX 64u
/* Events one profile shows side by side (the report's columns, pprof's
 * values per sample): beyond it the output would grow as events x
 * functions, quadratic in the log's size, so --event must choose one.
 * As many as a Vertigo session counts or samples (LOG_EVENTS_MAX). */
#define PROFILE_EVENTS_MAX 32u

struct profile_options {
    struct sym_options sym;
    const char *event;           /* keep only this event (name or id), or NULL */
    const char *comm;            /* keep only samples of these processes (a comma list), or NULL */
    const char *pid;             /* ... of these PIDs (a comma list), or NULL */
    const char *dso;             /* ... whose RIP is in these images (a comma list), or NULL */
    const char *symbols;         /* ... whose leaf function is one of these (a comma list) */
    const char *time;            /* ... in these time ranges (time_filter.h), or NULL */
    bool quiet;                  /* no warnings on stderr (perf's -q) */
    bool timeline;               /* keep each sample's time (profile_timeline.h) */
    /* The DOM texts of sym's per-domain files (the command line's). */
    char domain_keys[4][SYM_DOMAIN_FILES_MAX][DOMAIN_NAME_MAX];
};

/* One event kept in the profile (columns of the report). */
struct profile_event {
    uint32_t id;                 /* event id in the log */
    char name[PROFILE_EVENT_NAME_MAX];   /* from event-desc, or "event<ID>" */
    uint64_t total;              /* samples of this event */
    uint64_t events;             /* occurrences: the samples' periods added up */
    uint64_t period;             /* the period of all its samples; 0 if they differ */
    bool period_known;           /* the log gave a period (event-period records);
                                    if not, each sample counts as one event */
    bool past_int64;             /* events passed 2^63 - 1 (pprof's values are signed) */
    uint64_t int64_offset;       /* ... at the sample record of this offset */
};

/* A distinct sample and how many times it occurred. */
struct profile_sample {
    uint32_t domain, vcpu;
    uint8_t mode;                /* enum log_mode */
    uint32_t event;              /* index into profile.events */
    uint64_t count;
    uint64_t period;             /* events one occurrence stands for (>= 1) */
    struct sym_process process;  /* the guest process it interrupted */
    uint32_t depth;              /* frames, leaf (the sampled RIP) first */
    const uint32_t *frames;      /* symbolizer frame ids */
    /* A hypervisor sample taken while Vertigo handled a guest's exit:
     * frames[context ..] are the guest's at that exit (frames[context] its
     * RIP, an interrupted RIP like frames[0], then its callers) under
     * Vertigo's frames[0 .. context); 0 when the sample has none. */
    uint32_t context;
    /* Frames left out at the end of the stack: a return address of the
     * user frame-pointer walk that no mapping of the sample's process
     * covers, or the context a walk read under an entry stub's first call,
     * and their callers (profile.c: walk_left_code, entry_stub_first_call). */
    uint32_t cut;
    /* Which frames were named at their own address (bit i: frames[i]):
     * the leaf, the guest's RIP at an exit, a user RIP an interrupt or
     * exception saved (under an asm_* entry stub), a new program's entry
     * point that an execve left as the saved user RIP, the entry of
     * ret_from_fork that a task switch returns to. Every other frame is a
     * return address, named at its call's last byte (profile_frame_address). */
    uint64_t at_address;
};

/* The address frame i of s stands for: its own for a frame named at its
 * address, else the return address, one byte after the one it was named at. */
static inline uint64_t profile_frame_address(const struct profile_sample *s, uint32_t i,
                                             const struct sym_frame *f)
{
    return (s->at_address >> i) & 1 ? f->addr : f->addr + 1;
}

struct profile_raw;              /* private aggregation state */

/* What the log lost (profile_complete): its decoder's totals and what
 * the symbol records lost. */
struct profile_loss {
    logdec_count ring_dropped;   /* records dropped by Vertigo's rings */
    logdec_count records_lost;   /* records in damaged or missing blocks */
    logdec_count blocks_lost;
    struct sym_problems symbols;
};

struct profile {
    struct symbolizer *sym;
    struct profile_event *events;
    uint32_t event_count;
    struct profile_sample *samples;
    uint64_t sample_count;       /* distinct samples */
    uint64_t total;              /* samples kept, all events */
    uint64_t raw_samples;        /* samples decoded, before the event filter */
    uint64_t frames_cut;         /* the samples kept's cut frames, each occurrence counted */
    struct profile_raw *raw;
    struct domain_names *domains;    /* names, and which domains are passive */
    bool several_domains;        /* the samples kept come from more than one */
    struct {                     /* profile_options' sample filters */
        const char *comm, *pid, *dso, *symbols;
        struct time_filter time;
    } filter;
    bool quiet;                  /* profile_options.quiet: writers leave out headers */
    bool have_build_id;          /* build_id, tsc_hz: the first stream header's */
    uint8_t build_id[LOG_BUILD_ID_SIZE];
    uint64_t tsc_hz;             /* TSC ticks per second, 0 if unknown */
    bool keep_timeline;          /* profile_options.timeline */
    uint64_t newest_sample_tsc;  /* of the samples read so far */
    bool samples_void;           /* a set took its place before a sample read earlier */
    bool rereading;              /* the second pass of profile_read_log */
    uint64_t symbol_records;     /* symbol records the first pass took */
    uint64_t symbol_records_again;   /* ... the second passed */
    struct profile_timeline timeline;   /* with keep_timeline, after profile_finish */
    struct profile_loss loss;
    struct log_overflow overflow;   /* an event's events passed 2^64 - 1 (log_arith.h) */
};

/* Prepares p and its symbolizer. Returns false with a message in err
 * (e.g. "--guest-root DIR: No such file or directory"). */
bool profile_init(struct profile *p, const struct profile_options *o, char *err, size_t err_len);

/* Decoder stream-header callback: user is the struct profile. */
void profile_header(void *user, const struct log_stream_header *h, uint64_t offset);

/* Decoder record callback: user is the struct profile. */
void profile_record(void *user, const struct logdec_record *r);

/* Both callbacks, for a decoder whose user is the struct profile. */
extern const struct logdec_callbacks profile_decoder_callbacks;

/* Reads in (named path in messages, rewound if need be) into p through
 * dec, which it initializes with profile_decoder_callbacks, and finishes
 * dec. Each CPU's records reach the log on their own, so a sample can
 * arrive before a process identity or maps set that another CPU shipped
 * earlier in TSC time (or, on one CPU, between the chunks of a set that
 * takes its place at its first chunk). A sample is named by the sets in
 * force at its own TSC: when a set arrives that takes its place before a
 * sample already read, the samples read so far are void; the rest of the
 * log gives its symbol records only, and then the log is read again from
 * its start for everything else, with every symbol record known (symbol
 * records past those, in a log still being written, are taken as they
 * arrive). Returns 0, or VERTIGO_EXIT_USAGE after a message (read error). */
int profile_read_log(struct profile *p, const char *cmd, const char *path, FILE *in,
                     struct logdec *dec);

/* After a first pass through the log (profile_record in arrival order):
 * whether its samples were void, and then readies p for the second pass
 * (the samples and the records read with them forgotten, the symbols
 * kept). profile_read_log's step, for a caller that feeds the decoder
 * itself. */
bool profile_read_again(struct profile *p);

/* Applies the event filter and symbolizes. Returns false with a message
 * in err when the filter names an event absent from the log, when there
 * is no filter and the samples name more than PROFILE_EVENTS_MAX events,
 * or when an event's samples stand for more than 2^64 - 1 events
 * (p->overflow names the record). */
bool profile_finish(struct profile *p, const char *event, char *err, size_t err_len);

/* The name an event id of the log was last described with (event-desc
 * records of every session: counting, multiplexing and sampling events
 * share the ids), NULL if none; after profile_finish, while p lives. */
const char *profile_event_name(const struct profile *p, uint32_t id);

/* Frees everything p owns. */
void profile_free(struct profile *p);

/* Loads path ("-" = stdin) into p: init, decode, complete. Prints
 * "vertigo CMD: ..." diagnostics to stderr and returns an enum
 * vertigo_exit: OK, USAGE (bad option value, I/O error, unknown event, a
 * limit), NO_LOG, or DAMAGED (the profile is still complete for what was
 * read, unless p->overflow.hit: an event's events passed 2^64 - 1, and
 * nothing may be written). */
int profile_load(struct profile *p, const char *cmd, const char *path,
                 const struct profile_options *o);

/* The end of profile_load, after dec (whose callbacks were
 * profile_decoder_callbacks with p) has finished the input named path:
 * the exit status of the decoding, the loss into p->loss, the Vertigo ELF
 * check, profile_finish, and on stderr what the log and its symbol records
 * lost and which guest files could not be read. Returns as profile_load. */
int profile_complete(struct profile *p, const char *cmd, const char *path,
                     const struct profile_options *o, const struct logdec *dec);

/* Display name of a sample mode: "hypervisor", "kernel", "user". */
const char *profile_mode_name(uint8_t mode);

/* The name of domain in the log (dom.N.name= of Vertigo's command line,
 * else "domN"), written into buf if need be. */
const char *profile_domain_name(const struct profile *p, uint32_t domain,
                                char buf[DOMAIN_NAME_MAX]);

/* True if p's samples come from more than one domain (after
 * profile_finish). */
bool profile_several_domains(const struct profile *p);

/* ---- Writers -------------------------------------------------------- */

/* What a report row is (perf report's sort keys). */
enum report_key {
    REPORT_KEY_COMM,             /* the process name ("Command") */
    REPORT_KEY_PID,              /* "PID:COMM" */
    REPORT_KEY_DSO,              /* the image ("Shared Object") */
    REPORT_KEY_SYM,              /* the function, with its mode tag and source */
    REPORT_KEY_DOMAIN,           /* the domain, by its name */
    REPORT_KEY_VCPU,             /* the VCPU's number in its domain */
    REPORT_KEY_COUNT,
};

enum report_sort {
    REPORT_SORT_SAMPLES,         /* default: rows per image and function
                                    ("Image", "Symbol  [Source]" columns) */
    REPORT_SORT_SYMBOL,          /* perf keys: keys[] = { sym } */
    REPORT_SORT_IMAGE,           /* perf keys: keys[] = { dso } */
    REPORT_SORT_KEYS,            /* perf keys: keys[0 .. key_count) */
    REPORT_SORT_DEFAULT,         /* no --sort: perf's default comm,dso,sym when
                                    the log names processes, else samples
                                    (report_write decides) */
};

struct report_options {
    enum report_sort sort;
    enum report_key keys[REPORT_KEY_COUNT];   /* REPORT_SORT_KEYS: the columns */
    unsigned int key_count;
    bool children;               /* inclusive (call-stack) percentages */
    struct callgraph_options call_graph;   /* -g: chains under each row */
    bool by_mode;                /* table by domain, VCPU and mode */
    bool json;                   /* one JSON object instead (report_json.h) */
    double percent_limit;        /* rows below this share are not shown */
    const char *source;          /* input name for the header */
};

/* Parses perf's --sort value (comm, pid, dso, sym, their aliases command,
 * shared_object, image, symbol, and Vertigo's domain, comma-combined; or
 * samples) into o.
 * False with a message in err when a key is unknown or repeated. */
bool report_parse_sort(struct report_options *o, const char *value, char *err, size_t err_len);

/* The flat profile, perf-report style (cmd_report.c). */
void report_write(FILE *out, const struct profile *p, const struct report_options *o);

/* Gzipped pprof profile.proto (export_pprof.c). Returns false on I/O error. */
bool export_pprof(FILE *out, const struct profile *p);
/* Whether pprof can hold p: its values are signed 64-bit, so no event's
 * events may pass 2^63 - 1. False with the event and the record in err. */
bool export_pprof_fits(const struct profile *p, char *err, size_t err_len);
/* Folded stacks "root;caller;leaf COUNT" (export_folded.c). */
bool export_folded(FILE *out, const struct profile *p);
/* CSV, one row per (event, domain, VCPU, mode, image, symbol) (export_csv.c). */
bool export_csv(FILE *out, const struct profile *p);
/* Chrome Trace Event JSON for Perfetto's UI and chrome://tracing: every
 * sample at its time on its VCPU's track (export_perfetto.c). Needs the
 * timeline. */
bool export_perfetto(FILE *out, const struct profile *p);
/* Perfetto's protobuf trace: every sample a PerfSample with its interned
 * call stack (export_pftrace.c). Needs the timeline. */
bool export_pftrace(FILE *out, const struct profile *p);
/* perf script's text: every sample in time order with its call chain
 * (cmd_script.c). Needs the timeline. */
bool script_write(FILE *out, const struct profile *p);

/* Subcommands (cmd_report.c, cmd_export.c, cmd_script.c). */
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_diff(int argc, char **argv);
extern const char cmd_diff_help[];
int cmd_top(int argc, char **argv);
extern const char cmd_top_help[];

#endif
