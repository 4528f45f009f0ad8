/* Text writer for decoded logs: the one-line-per-item format printed by
 * `vertigo decode` and checked by the golden fixtures (tests/fixtures/log).
 * Records print as "@OFFSET cpu=C seq=S #INDEX tsc=T TYPE fields...",
 * problems as "! @OFFSET KIND details", stream headers as "# stream ...". */
#ifndef HOST_TOOLS_LOG_TEXT_H
#define HOST_TOOLS_LOG_TEXT_H

#include <stdio.h>

#include "host-tools/logdec.h"

/* Each writes one line (with its newline) to out. */
void log_text_header(FILE *out, const struct log_stream_header *h, uint64_t offset);
void log_text_record(FILE *out, const struct logdec_record *r);
void log_text_problem(FILE *out, const struct logdec_problem *p);

/* Writes len bytes as a double-quoted string, escaping quotes,
 * backslashes and non-printable bytes (\n, \t, \xNN). */
void log_text_quoted(FILE *out, const void *text, size_t len);

/* Names of enum values, or NULL for a value the format does not define. */
const char *log_text_mode_name(uint8_t mode);
const char *log_text_lifecycle_name(uint8_t event);
const char *log_text_symbols_name(uint8_t kind);
const char *log_text_pmu_backend_name(uint8_t backend);

#endif
