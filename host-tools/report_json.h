/* `vertigo report --json`: the report as one JSON object, for programs
 * (schema "vertigo-report/1", docs/user-guide.md "JSON output"): the
 * events with their samples and event counts, the total, the samples of
 * each mode and domain, what the log lost, the sort keys, then one object
 * per row with its shares, sample counts, per-event shares and keys. */
#ifndef HOST_TOOLS_REPORT_JSON_H
#define HOST_TOOLS_REPORT_JSON_H

#include <stdint.h>
#include <stdio.h>

#include "host-tools/report_rows.h"

/* Writes t (built from p with the resolved options o) to out; modes is
 * report_function_modes(p). Shows the rows report_write would show. */
void report_json(FILE *out, const struct profile *p, const struct report_options *o,
                 const struct report_table *t, const uint8_t *modes);

#endif
