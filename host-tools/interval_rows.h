/* The rows of interval multiplexing sessions in a log, for `vertigo
 * timeline` and `vertigo correlate`: every interval record (one VCPU's
 * interval of N retired instructions), its events' extrapolated values
 * (raw x enabled / running, pmu/mux/mux.h, marked measured, extrapolated or
 * unmeasured), the events' names from the event-desc records, and the
 * rows missing from each VCPU's numbering (loss). A row's entries are
 * events by their run-wide ids (its VCPU's interval-events record,
 * host-tools/interval_ids.h); the set's events (its columns) are every
 * id the rows have, in id order, and each row fills those it has. */
#ifndef HOST_TOOLS_INTERVAL_ROWS_H
#define HOST_TOOLS_INTERVAL_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host-tools/domain_names.h"
#include "host-tools/interval_ids.h"
#include "host-tools/keymap.h"
#include <stdio.h>

#include "host-tools/log_arith.h"
#include "vertigo/log_format.h"

#define IV_EVENTS_MAX    LOG_INTERVAL_EVENTS_MAX     /* a set's events (and a row's) */
#define IV_NAME_MAX      48u

enum iv_how {
    IV_MEASURED,                /* on a counter the whole interval */
    IV_SCALED,                  /* part of it: extrapolated */
    IV_UNMEASURED,              /* never on a counter: no value */
};

/* One row as stored: 56 bytes, plus its record's offset, its VCPU's list
 * of event ids (interval_ids_current) and its events' raw and off values
 * (off = instructions - running) kept apart as varints, as the log has
 * them (iv_row_events decodes them): a row of one event takes about 64
 * bytes where fixed arrays of 32 took 856. */
struct iv_row {
    uint64_t number;
    uint64_t instructions;      /* every event's enabled */
    uint64_t tsc_start;         /* the record's TSC less its span */
    uint64_t tsc_span;
    uint64_t x_instructions;    /* the VCPU's instructions before this row */
    uint32_t domain, vcpu;
    uint64_t bytes : 58;        /* where its offset and events start in iv_set.bytes */
    uint64_t count : 6;         /* events, <= IV_EVENTS_MAX */
};

/* A row's events, decoded by the set's event (column): the extrapolated
 * value and its mark follow from raw, running and the row's instructions
 * (pmu/mux/mux.h); an event the row does not have (another session's)
 * has in_row 0 and no value. */
struct iv_events {
    uint32_t count;             /* the set's events */
    uint64_t raw[IV_EVENTS_MAX], running[IV_EVENTS_MAX], value[IV_EVENTS_MAX];
    uint8_t how[IV_EVENTS_MAX];
    uint8_t in_row[IV_EVENTS_MAX];
};

struct iv_set {
    struct iv_row *rows;        /* by domain, VCPU and number */
    size_t count, cap;
    uint8_t *bytes;             /* per row: varint offset, then varint raw and off per event */
    size_t byte_count, byte_cap;
    unsigned int event_count;   /* the events of all rows (iv_finish) */
    uint32_t ids[IV_EVENTS_MAX];                /* their run-wide ids, ascending */
    char names[IV_EVENTS_MAX][IV_NAME_MAX];     /* theirs; "" if no event-desc */
    uint32_t more_ids;          /* ids past IV_EVENTS_MAX the rows have (an error) */
    struct interval_ids lists;  /* each VCPU's event ids (interval-events records) */
    struct keymap desc_of;      /* event id -> index in descs */
    char (*descs)[IV_NAME_MAX]; /* each id's last event-desc name */
    size_t desc_count, desc_cap;
    uint64_t tsc_hz;            /* from the stream header; 0: unknown */
    uint8_t pmu_backend;        /* enum log_pmu_backend, from the stream header */
    const char *source;         /* the input's path ("-": stdin), set by iv_load */
    struct domain_names domains;    /* the log's names of its domains (config records) */
    uint64_t missing;           /* rows absent from the numbering */
    uint64_t repeated;          /* rows whose number came twice (dropped) */
    bool no_memory;
    struct log_overflow overflow;   /* a row's TSC below its span, or a sum past 2^64 - 1 */
};

/* The events of row r of s into out. */
void iv_row_events(const struct iv_set *s, const struct iv_row *r, struct iv_events *out);

/* The offset in the log of row r's record. */
uint64_t iv_row_offset(const struct iv_set *s, const struct iv_row *r);

/* The session's interval N. A full row holds N retired instructions, or N
 * plus the overflow's skid when the clock's PMI came late (docs/pmu.md,
 * skid), so N is the shortest row that is not its VCPU's last (that one
 * stops early at the domain's end); with only last rows, the largest. */
uint64_t iv_interval_length(const struct iv_set *s);

/* Reads the log at path ("-": stdin) into s. Returns an enum vertigo_exit:
 * OK, USAGE when the rows have more than IV_EVENTS_MAX events between
 * them (said on stderr), or DAMAGED (decoder problems, or rows missing from a VCPU's
 * numbering: each gap is named on stderr as "CMD: dom D vcpu V: intervals
 * A..B missing"), or the input's error. cmd prefixes the messages. A row
 * whose TSC is below its span, or missing rows or a VCPU's instructions
 * adding up past 2^64 - 1, is an overflow (s->overflow, named on stderr,
 * DAMAGED): the rows must not be written then. */
int iv_load(struct iv_set *s, const char *cmd, const char *path);

/* Adds one decoded row, the record at offset (iv_load's record
 * callback); then iv_finish. */
void iv_add_row(struct iv_set *s, const struct log_interval *iv, uint64_t tsc, uint64_t offset);

/* Sorts the rows, drops repeated ones, counts and names the gaps (to err,
 * if not NULL), sets each row's x_instructions and finds the set's
 * events (ids and names; more_ids when they are too many). */
void iv_finish(struct iv_set *s, const char *cmd, FILE *err);

void iv_free(struct iv_set *s);

/* The name of the set's event e ("event7" for id 7 when the log names
 * none), in buf. */
const char *iv_event_name(const struct iv_set *s, unsigned int e, char *buf, size_t size);

/* Parses a comma list of event names or ids into out (at most
 * IV_EVENTS_MAX); NULL list: every event. Returns the number chosen, or
 * -1 after "CMD: unknown event 'X'" on stderr. */
int iv_pick_events(const struct iv_set *s, const char *cmd, const char *list, unsigned int *out);

/* "measured", "extrapolated", "unmeasured". */
const char *iv_how_name(enum iv_how how);

#endif
