/* Vertigo profiling log: the binary stream format shared by the hypervisor
 * (encoder, per-CPU rings, drains), the guest library and the host tools
 * (decoder, `vertigo decode|stats`). docs/log-format.md is the byte-by-byte
 * specification; this header is its C rendering and must stay in step.
 *
 * A stream is a stream header followed by blocks. All multi-byte fixed
 * fields are little-endian. A block is a fixed header (sync marker, CPU,
 * per-CPU sequence number, record count, base TSC, two CRC32C checksums)
 * followed by a payload of variable-length records. Records inside a
 * payload use LEB128 varints; the TSC of each record is a zigzag delta
 * from the previous record of the same block (the first from base_tsc).
 *
 * The second half of this header declares the in-memory record values the
 * encoder takes and the decoder returns (not wire layouts). */
#ifndef VERTIGO_LOG_FORMAT_H
#define VERTIGO_LOG_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- Identification ------------------------------------------------ */

#define LOG_STREAM_MAGIC   0x53475456u  /* "VTGS" in stream byte order */
#define LOG_BLOCK_SYNC     0x42475456u  /* "VTGB" in stream byte order */
#define LOG_SYNC_SIZE      4u
#define LOG_FORMAT_VERSION 1u
#define LOG_ENDIAN_TAG     0x01020304u  /* reads back 0x04030201 if swapped */
#define LOG_BUILD_ID_SIZE  20u
#define LOG_MAX_CPUS       256u

/* ---- Stream header (64 bytes, once at the start of a stream) ------- */

enum log_pmu_backend {
    LOG_PMU_NONE   = 0,   /* no counters: only software events */
    LOG_PMU_HW     = 1,   /* architectural performance monitoring */
    LOG_PMU_SOFT   = 2,   /* software model of the PMU (emulators) */
    LOG_PMU_BROKEN = 3,   /* CPUID claims a PMU that does not count */
};

struct log_pmu_desc {
    uint8_t backend;        /* enum log_pmu_backend */
    uint8_t version;        /* CPUID.0AH:EAX[7:0] (SDM Vol. 3B, 20.2) */
    uint8_t gp_count;       /* general-purpose counters per CPU */
    uint8_t gp_width;       /* bits */
    uint8_t fixed_count;    /* fixed-function counters per CPU */
    uint8_t fixed_width;    /* bits */
    uint8_t reserved[2];    /* zero */
} __attribute__((packed));

struct log_stream_header {
    uint32_t magic;                      /* LOG_STREAM_MAGIC */
    uint16_t version;                    /* LOG_FORMAT_VERSION */
    uint16_t header_size;                /* sizeof(struct log_stream_header) */
    uint32_t endian_tag;                 /* LOG_ENDIAN_TAG */
    uint16_t cpu_count;                  /* CPUs that may emit blocks */
    uint16_t flags;                      /* zero in version 1 */
    uint64_t tsc_hz;                     /* TSC ticks per second, 0 if unknown */
    uint8_t build_id[LOG_BUILD_ID_SIZE]; /* identifies the Vertigo binary */
    struct log_pmu_desc pmu;
    uint32_t record_types;               /* bit n set: type n may appear */
    uint32_t reserved;                   /* zero */
    uint32_t header_crc;                 /* CRC32C of bytes 0..59 */
} __attribute__((packed));

#define LOG_STREAM_HEADER_SIZE 64u
#define LOG_STREAM_HEADER_CRC_OFFSET 60u
_Static_assert(sizeof(struct log_pmu_desc) == 8, "pmu desc is 8 bytes");
_Static_assert(sizeof(struct log_stream_header) == LOG_STREAM_HEADER_SIZE,
               "stream header is 64 bytes");
_Static_assert(offsetof(struct log_stream_header, header_crc) ==
               LOG_STREAM_HEADER_CRC_OFFSET, "stream header CRC offset");

/* ---- Block header (40 bytes, then payload_len bytes of records) ---- */

struct log_block_header {
    uint32_t sync;          /* LOG_BLOCK_SYNC */
    uint16_t cpu;           /* producing CPU, < LOG_MAX_CPUS */
    uint16_t payload_len;   /* bytes of records after this header */
    uint32_t seq;           /* per-CPU block sequence, 0, 1, 2, ... */
    uint16_t record_count;  /* records in the payload */
    uint16_t flags;         /* zero in version 1 */
    uint64_t first_record;  /* per-CPU index of the payload's first record */
    uint64_t base_tsc;      /* TSC the first record's delta is taken from */
    uint32_t payload_crc;   /* CRC32C of the payload */
    uint32_t header_crc;    /* CRC32C of bytes 0..35 of this header */
} __attribute__((packed));

#define LOG_BLOCK_HEADER_SIZE 40u
#define LOG_BLOCK_HEADER_CRC_OFFSET 36u
#define LOG_BLOCK_PAYLOAD_MAX 65535u
_Static_assert(sizeof(struct log_block_header) == LOG_BLOCK_HEADER_SIZE,
               "block header is 40 bytes");
_Static_assert(offsetof(struct log_block_header, header_crc) ==
               LOG_BLOCK_HEADER_CRC_OFFSET, "block header CRC offset");

/* ---- Records --------------------------------------------------------
 * Wire form inside a payload:
 *   u8 type | varint body_len | body
 *   body = varint zigzag(tsc - previous tsc) | type-specific fields
 * A decoder skips the body of a type it does not know. */

enum log_record_type {
    LOG_REC_CONSOLE    = 1,   /* console text */
    LOG_REC_SAMPLE     = 2,   /* one PMU sample */
    LOG_REC_INTERVAL   = 3,   /* one row of interval counts */
    LOG_REC_SWCOUNTERS = 4,   /* software-counter snapshot */
    LOG_REC_LIFECYCLE  = 5,   /* domain/VCPU life-cycle event */
    LOG_REC_SYMBOLS    = 6,   /* chunk of guest symbol data */
    LOG_REC_CONFIG     = 7,   /* configuration echo (text) */
    LOG_REC_LOSS       = 8,   /* records a ring dropped */
    LOG_REC_PMU_TOTALS = 9,   /* PMU counter totals of one VCPU */
    LOG_REC_EVENT_DESC = 10,  /* name and code of an event id */
    LOG_REC_EVENT_PERIOD = 11, /* what one sample of an event id stands for */
    LOG_REC_USER_STACK = 12,  /* user registers and stack bytes of the next samples */
    LOG_REC_GUEST_PMU_PROG = 13,  /* a guest counter's new programming (virtual PMU) */
    LOG_REC_GUEST_PMI  = 14,  /* a PMI of a guest's virtual PMU */
    LOG_REC_VCPU_STATS = 15,  /* a VCPU's exits and VCPU switches, at its domain's end */
    LOG_REC_INTERVAL_EVENTS = 16, /* the event ids of a VCPU's next interval rows */
    LOG_REC_TYPE_COUNT = 17,  /* one past the last known type */
};

#define LOG_VARINT_MAX       10u    /* bytes of a 64-bit LEB128 varint */
#define LOG_FIELDS_MAX       1024u  /* type-specific field bytes per record */
#define LOG_RECORD_WIRE_MAX  (1u + 2u + LOG_VARINT_MAX + LOG_FIELDS_MAX)
#define LOG_STACK_MAX        32u    /* return addresses in one sample */
#define LOG_EVENTS_MAX       32u    /* events in a totals record */
#define LOG_INTERVAL_EVENTS_MAX 32u /* events in an interval row */
#define LOG_SWCOUNTERS_MAX   32u    /* counters in a snapshot */
#define LOG_TEXT_MAX         1000u  /* bytes of text in one record */
#define LOG_USER_STACK_MAX   896u   /* user stack bytes in one user-stack record */

enum log_mode {
    LOG_MODE_HYPERVISOR   = 0,
    LOG_MODE_GUEST_KERNEL = 1,
    LOG_MODE_GUEST_USER   = 2,
    LOG_MODE_COUNT        = 3,
};

/* Sample flag byte: bits 0-1 mode, bit 2 CR3 present, bit 3 stack present. */
/* In a hypervisor sample's stack: the end of Vertigo's frames and the start
 * of the guest's context at the exit Vertigo was handling (its RIP, then
 * its callers); the sample's CR3 is then the guest's. 0 is never a return
 * address. */
#define LOG_EXIT_CONTEXT_MARK 0u
#define LOG_SAMPLE_MODE_MASK  0x03u
#define LOG_SAMPLE_HAS_CR3    0x04u
#define LOG_SAMPLE_HAS_STACK  0x08u
#define LOG_SAMPLE_FLAGS_MASK 0x0fu

enum log_lifecycle_event {
    LOG_LC_DOMAIN_CREATE  = 1,
    LOG_LC_DOMAIN_START   = 2,
    LOG_LC_DOMAIN_STOP    = 3,   /* arg: exit status */
    LOG_LC_DOMAIN_DESTROY = 4,
    LOG_LC_VCPU_ONLINE    = 5,
    LOG_LC_VCPU_OFFLINE   = 6,
    LOG_LC_EVENT_COUNT    = 7,
};

enum log_symbols_kind {
    LOG_SYM_KALLSYMS  = 1,   /* text lines of /proc/kallsyms */
    LOG_SYM_PROC_MAPS = 2,   /* text lines of /proc/PID/maps */
    LOG_SYM_JIT_MAP   = 3,   /* text lines of a perf-PID.map, with epoch */
    LOG_SYM_PROCESS   = 4,   /* text lines "PID CR3 COMM" (hex CR3): which
                                address space a sample's CR3 names */
    LOG_SYM_KERNEL_BUILD_ID = 5,  /* one line: the running kernel's GNU build
                                id in hex (from /sys/kernel/notes) */
    LOG_SYM_KIND_COUNT = 6,
};

/* Console source value meaning "the hypervisor itself". */
#define LOG_CONSOLE_HYPERVISOR 0u

struct log_console {
    uint32_t source;         /* LOG_CONSOLE_HYPERVISOR or a domain id */
    const char *text;        /* not NUL-terminated */
    uint32_t len;            /* <= LOG_TEXT_MAX */
};

struct log_sample {
    uint32_t domain;
    uint32_t vcpu;
    uint8_t mode;            /* enum log_mode */
    uint32_t event;          /* event id, run-wide (see LOG_REC_EVENT_DESC) */
    uint64_t rip;
    bool has_cr3;
    uint64_t cr3;
    uint32_t depth;          /* return addresses in stack[], <= LOG_STACK_MAX */
    uint64_t stack[LOG_STACK_MAX];
};

/* One event of an interval row. A row lists the session's events in
 * order; entry k's event id is the k-th id of the VCPU's last
 * interval-events record (LOG_REC_INTERVAL_EVENTS), or k itself when the
 * VCPU has none (a log from before them). enabled, for every event, is the row's
 * instructions; the extrapolated value is raw x enabled / running,
 * rounded to nearest (docs/log-format.md). */
struct log_interval_event {
    uint64_t raw;            /* events counted while it was on a counter */
    uint64_t running;        /* retired instructions it was on a counter,
                                <= the row's instructions */
};

/* One row of an interval multiplexing session: one VCPU's interval of
 * retired instructions. */
struct log_interval {
    uint32_t domain;
    uint32_t vcpu;
    uint64_t number;         /* interval number, from 0 (gaps: rows lost) */
    uint64_t instructions;   /* retired guest instructions in the interval */
    uint64_t tsc_span;       /* TSC ticks from its first to its last instruction */
    uint32_t count;          /* entries in events[] */
    struct log_interval_event events[LOG_INTERVAL_EVENTS_MAX];
};

struct log_counter_value {
    uint32_t id;
    uint64_t value;
};

struct log_swcounters {
    uint32_t domain;
    uint32_t vcpu;
    uint32_t count;
    struct log_counter_value counters[LOG_SWCOUNTERS_MAX];
};

struct log_lifecycle {
    uint32_t domain;
    uint32_t vcpu;
    uint8_t event;           /* enum log_lifecycle_event */
    uint64_t arg;
};

struct log_symbols {
    uint32_t domain;
    uint8_t kind;            /* enum log_symbols_kind */
    uint32_t pid;            /* 0 for kallsyms */
    uint64_t epoch;          /* JIT map epoch; 0 otherwise */
    uint32_t chunk;          /* chunk number within (domain, kind, pid, epoch) */
    bool last;               /* last chunk of this data set */
    bool abandoned;          /* Vertigo gave the unfinished set up (to make room
                                for another): the chunks before this one are
                                void; the record has no text. Wire: the `last`
                                byte is 2. */
    const uint8_t *data;
    uint32_t len;            /* <= LOG_TEXT_MAX */
};

struct log_config {
    const char *text;
    uint32_t len;            /* <= LOG_TEXT_MAX */
};

struct log_loss {
    uint64_t dropped;        /* records this CPU's ring dropped */
};

struct log_pmu_totals {
    uint32_t domain;
    uint32_t vcpu;
    uint32_t count;
    struct log_counter_value totals[LOG_EVENTS_MAX];  /* id = event id */
};

/* The event ids of a VCPU's interval rows from here on (in its CPU's
 * record order): entry k of each row is event id ids[k]. Written before
 * the first row of each session and before a row written on another CPU
 * (the domain's end). */
struct log_interval_events {
    uint32_t domain;
    uint32_t vcpu;
    uint32_t count;          /* <= LOG_INTERVAL_EVENTS_MAX */
    uint32_t ids[LOG_INTERVAL_EVENTS_MAX];
};

/* Event ids are run-wide: the hypervisor gives each distinct event (name
 * and code) one id the first time any VCPU counts or samples it, and
 * keeps it for the run, so every record of every VCPU and domain means
 * the same event by the same id. */
struct log_event_desc {
    uint32_t event;          /* event id used in samples and counts */
    uint64_t code;           /* what the event counts: LOG_EVENT_CODE below */
    const char *name;
    uint32_t len;            /* <= LOG_TEXT_MAX */
};

/* The sampling period of an event id: each of its samples logged after
 * this record stands for `period` occurrences of the event (a counter
 * overflowing every `period` events; timer samples: TSC ticks of guest
 * time). Written when a sampling session starts, after its event-desc
 * records. With per_vcpu (frequency mode, sample.freq=), the period of
 * only that domain's VCPU from now on: written on the VCPU's CPU when its
 * period changes, after the sample the old period produced; a record
 * without per_vcpu (a new session) ends every VCPU's own period. */
struct log_event_period {
    uint32_t event;
    uint64_t period;         /* >= 1 */
    bool per_vcpu;           /* domain and vcpu below are on the wire */
    uint32_t domain;
    uint32_t vcpu;
};

/* An event-desc code: its source in bits 63:56, the source's own code in
 * bits 55:0.
 *   LOG_EVENT_SRC_HW     (umask << 8) | event select (PERFEVTSEL bits 15:0)
 *   LOG_EVENT_SRC_SW     (software event kind << 16) | exit reason
 *   LOG_EVENT_SRC_TIMER  0 (timer samples) */
#define LOG_EVENT_SRC_HW      0u
#define LOG_EVENT_SRC_SW      1u
#define LOG_EVENT_SRC_TIMER   2u
#define LOG_EVENT_CODE_SHIFT  56
#define LOG_EVENT_CODE(src, value) \
    (((uint64_t)(src) << LOG_EVENT_CODE_SHIFT) | ((uint64_t)(value) & ((1ull << LOG_EVENT_CODE_SHIFT) - 1)))
#define LOG_EVENT_CODE_SRC(code)   ((unsigned int)((code) >> LOG_EVENT_CODE_SHIFT))
#define LOG_EVENT_CODE_VALUE(code) ((code) & ((1ull << LOG_EVENT_CODE_SHIFT) - 1))

/* The value of any record, by type (decoders and tests hold one). */
/* A copy of the user stack from RSP up and the registers a DWARF (CFI)
 * unwinder starts from, taken with a guest user-mode sample (the session's
 * VERTIGO_SESSION_USER_STACK): written just before the sample record(s)
 * of the same PMI on the same CPU, it belongs to the following samples of
 * that CPU with the same domain, VCPU and RIP (as perf's
 * --call-graph dwarf records PERF_SAMPLE_REGS_USER and _STACK_USER). */
enum log_user_reg {
    LOG_UREG_RIP, LOG_UREG_RSP, LOG_UREG_RBP, LOG_UREG_RBX,
    LOG_UREG_R12, LOG_UREG_R13, LOG_UREG_R14, LOG_UREG_R15,
    LOG_UREG_COUNT,
};

struct log_user_stack {
    uint32_t domain;
    uint32_t vcpu;
    uint64_t regs[LOG_UREG_COUNT];
    const uint8_t *data;     /* the bytes at regs[LOG_UREG_RSP] and up */
    uint32_t len;            /* <= LOG_USER_STACK_MAX */
};

/* The guest's own virtual PMU (pmu.guest=on). A counter is named by its
 * IA32_PERF_GLOBAL_STATUS bit: general-purpose counter k is k (< 32),
 * fixed counter j is 32 + j (< 48). */
#define LOG_GUEST_COUNTER_FIXED 32u
#define LOG_GUEST_COUNTER_LIMIT 48u
/* The largest control a counter's programming can have (see below). */
#define LOG_GUEST_CONTROL_MAX(counter) \
    ((counter) < LOG_GUEST_COUNTER_FIXED ? 0xffffffffull : 0xfull)

/* A counter of the guest's virtual PMU was enabled to count something the
 * VCPU had not programmed on it before (a programming seen already, e.g.
 * at every context switch of a counted thread, is not logged again; a
 * VCPU logs at most a bounded number of them, docs/log-format.md). */
struct log_guest_pmu_prog {
    uint32_t domain;
    uint32_t vcpu;
    uint8_t counter;         /* see LOG_GUEST_COUNTER_FIXED */
    uint64_t control;        /* general-purpose: IA32_PERFEVTSELk as written
                                (bits 31:0); fixed: the counter's 4-bit field of
                                IA32_FIXED_CTR_CTRL (bit 0 OS, 1 USR, 3 PMI) */
};

/* How a PMI of the guest's virtual PMU went, by the guest's LVTPC. */
enum log_guest_pmi_delivery {
    LOG_GUEST_PMI_NMI    = 0,   /* injected as an NMI (LVTPC in NMI mode) */
    LOG_GUEST_PMI_VECTOR = 1,   /* LVTPC asked for a fixed vector: not delivered */
    LOG_GUEST_PMI_MASKED = 2,   /* LVTPC masked: lost, as on hardware */
    LOG_GUEST_PMI_DELIVERY_COUNT = 3,
};

struct log_guest_pmi {
    uint32_t domain;
    uint32_t vcpu;
    uint64_t status;         /* the guest's IA32_PERF_GLOBAL_STATUS after the overflow */
    uint8_t delivery;        /* enum log_guest_pmi_delivery */
};

/* A VCPU's statistics when its domain ends: its VM exits (all, and the
 * exit reasons that occurred, by basic exit reason), how often it was
 * switched in on its CPU after its start (another VCPU ran there in
 * between) and the TSC ticks the PMU's part of those switches took. */
#define LOG_VCPU_STATS_REASONS_MAX 32u

struct log_vcpu_stats {
    uint32_t domain;
    uint32_t vcpu;
    uint64_t exits;
    uint64_t switches;
    uint64_t switch_ticks;
    uint32_t count;          /* entries in reasons[] */
    struct log_counter_value reasons[LOG_VCPU_STATS_REASONS_MAX];  /* id = exit reason */
};

union log_record_value {
    struct log_console console;
    struct log_sample sample;
    struct log_interval interval;
    struct log_swcounters swcounters;
    struct log_lifecycle lifecycle;
    struct log_symbols symbols;
    struct log_config config;
    struct log_loss loss;
    struct log_pmu_totals pmu_totals;
    struct log_event_desc event_desc;
    struct log_event_period event_period;
    struct log_user_stack user_stack;
    struct log_guest_pmu_prog guest_pmu_prog;
    struct log_guest_pmi guest_pmi;
    struct log_vcpu_stats vcpu_stats;
    struct log_interval_events interval_events;
};

#endif
