/* Text from a log (names a hostile log may fill with anything) on its way
 * into the host tools' outputs: the one place that decides, per output
 * format, what of it passes, what is escaped and what is replaced.
 *
 * Every writer puts a log-supplied string (a symbol, image, process,
 * event or domain name, a path) through the function of its format:
 *
 *   format     valid UTF-8              control characters     invalid bytes
 *   JSON       passes                   \u00XX, \n, \t, ...    \ufffd
 *   CSV        passes (quoted when it   TAB, CR, LF pass in    U+FFFD
 *              holds sep, '"', CR, LF)  quotes; others U+FFFD
 *   TSV, text  passes                   \t \n \r \xNN (TSV:    U+FFFD
 *                                       and \\ for '\')
 *   pprof      passes                   U+FFFD                 U+FFFD
 *
 * Control characters are C0 (below 0x20), DEL and C1 (U+0080..U+009F:
 * 8-bit terminals read U+009B as CSI). So no escape sequence, carriage
 * return or line break from a log reaches a terminal or splits a row,
 * JSON and protobuf readers get valid UTF-8, and a valid UTF-8 name
 * (a C++ symbol, a path in any language) is shown as it is.
 *
 * text_clean is the cleaning of names as they are read (the symbolizer's
 * interned names, event names): control characters and invalid bytes
 * become '?', in place. */
#ifndef HOST_TOOLS_TEXT_QUOTE_H
#define HOST_TOOLS_TEXT_QUOTE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TEXT_REPLACEMENT "\xef\xbf\xbd"   /* U+FFFD, in UTF-8 */

/* The length (1 to 4) of the valid UTF-8 sequence at s, with its code
 * point in *cp, or 0 when s starts no valid sequence (a stray
 * continuation byte, an overlong form, a surrogate, a code point above
 * U+10FFFF, a sequence cut short). s is NUL-terminated. */
size_t utf8_sequence(const unsigned char *s, uint32_t *cp);

/* Whether code point cp is a control character (C0, DEL or C1). */
int text_is_control(uint32_t cp);

/* s as a JSON string, in double quotes. */
void json_put_string(FILE *out, const char *s);

/* s as one CSV field whose separator is sep (','; ';' for locales that
 * use it): in double quotes, with quotes doubled, when it holds sep, a
 * quote or a line break (RFC 4180). For TSV use tsv_put_field. */
void csv_put_field(FILE *out, const char *s, char sep);

/* s as one TSV field (the "linear TSV" escapes: \t, \n, \r, \\), so a
 * field never holds a tab or line break. */
void tsv_put_field(FILE *out, const char *s);

/* s for a terminal or a text report (TSV's escapes, '\' as it is);
 * returns the bytes written. */
size_t text_put(FILE *out, const char *s);

/* The bytes text_put writes for s (for column widths). */
size_t text_width(const char *s);

/* s by text_put, then spaces up to width bytes. */
void text_put_padded(FILE *out, const char *s, size_t width);

/* s made valid UTF-8 without control characters (pprof's string table,
 * whose readers reject invalid UTF-8): a malloc'd copy of *len bytes
 * (NUL-terminated), NULL when out of memory. */
char *text_utf8_copy(const char *s, size_t *len);

/* Cleans s in place: every control character and invalid byte becomes
 * '?'. The result is valid UTF-8 and never longer than s. */
void text_clean(char *s);

#endif
