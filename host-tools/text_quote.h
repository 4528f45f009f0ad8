/* Quoting text from a log (names a hostile log may fill with anything)
 * for the formats the host tools write. */
#ifndef HOST_TOOLS_TEXT_QUOTE_H
#define HOST_TOOLS_TEXT_QUOTE_H

#include <stdio.h>

/* s as a JSON string: quotes and backslashes escaped, bytes outside
 * printable ASCII as \u00XX. */
void json_put_string(FILE *out, const char *s);

/* s as one CSV (sep ',') or TSV (sep '\t') field: in double quotes, with
 * quotes doubled, when it holds sep, a quote or a line break. */
void csv_put_field(FILE *out, const char *s, char sep);

#endif
