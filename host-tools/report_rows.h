/* The rows of `vertigo report`: samples grouped by the report's keys
 * (perf report's sort keys: process name, PID, image, function; and the
 * domain), with
 * self and inclusive (children) counts per event, sorted for printing.
 * The default report's rows are the keys (image, function). */
#ifndef HOST_TOOLS_REPORT_ROWS_H
#define HOST_TOOLS_REPORT_ROWS_H

#include <stdint.h>

#include "host-tools/keymap.h"
#include "host-tools/profile.h"

/* What a row stands for: the fields of keys the report does not group by
 * are zero (NULL for comm). */
struct report_row {
    uint32_t domain;
    uint32_t vcpu;
    const char *comm;
    uint32_t pid;
    uint32_t image;
    uint32_t function;
    uint64_t self, children;     /* samples, all events */
    uint64_t *self_ev, *children_ev;   /* samples per event */
    uint32_t graph;              /* its chains' tree in the table's graph (-g), or UINT32_MAX */
};

struct report_table {
    const struct profile *p;
    const struct report_options *o;
    bool has[REPORT_KEY_COUNT];  /* the keys rows are grouped by */
    bool leaf_only;              /* self shares only (a text report without
                                    --children): the leaf's row alone */
    struct report_row *rows;
    uint32_t row_count;
    size_t row_cap;
    uint64_t **counts;           /* per row: 2 * events counters */
    uint64_t *counted_in;        /* per row: the last sample (index + 1) counted in its children */
    struct keymap row_map;       /* (pid, comm, image/function, place) -> row */
    struct keymap place_map;     /* (domain, VCPU) -> place: a number below 2^32 */
    uint32_t place_count;
    struct callgraph graph;      /* the rows' chains, with a call-graph mode (-g) */
};

/* The keys of o, in column order, into keys; returns how many. */
unsigned int report_keys(const struct report_options *o, enum report_key keys[REPORT_KEY_COUNT]);

/* Groups p's samples into t's rows and sorts them: by overhead (children
 * first with --children), ties by the keys' values. */
void report_table_build(struct report_table *t, const struct profile *p,
                        const struct report_options *o);

void report_table_free(struct report_table *t);

/* Each function's mode (enum log_mode; LOG_MODE_COUNT for none): the mode
 * of the first frame that names it, as its symbol or inlined there. A
 * malloc'd array indexed by function id. */
uint8_t *report_function_modes(const struct profile *p);

#endif
