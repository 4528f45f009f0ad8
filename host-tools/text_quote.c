/* Log text into each output format (see text_quote.h). */
#include "host-tools/text_quote.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define UTF8_CONT_MIN 0x80u              /* continuation bytes 10xxxxxx */
#define UTF8_CONT_MAX 0xbfu

static int is_cont(unsigned char c)
{
    return c >= UTF8_CONT_MIN && c <= UTF8_CONT_MAX;
}

/* RFC 3629's table: the lead byte fixes the length and the range of the
 * second byte (which rules out overlong forms, surrogates and code points
 * past U+10FFFF); later bytes are any continuation. */
size_t utf8_sequence(const unsigned char *s, uint32_t *cp)
{
    unsigned char c = s[0];
    unsigned char lo = UTF8_CONT_MIN, hi = UTF8_CONT_MAX;
    size_t n;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        *cp = c & 0x1fu;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        *cp = c & 0x0fu;
        lo = c == 0xe0 ? 0xa0 : lo;
        hi = c == 0xed ? 0x9f : hi;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        *cp = c & 0x07u;
        lo = c == 0xf0 ? 0x90 : lo;
        hi = c == 0xf4 ? 0x8f : hi;
    } else {
        return 0;
    }
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if (!is_cont(s[i]))
            return 0;
        *cp = *cp << 6 | (s[i] & 0x3fu);
    }
    return n;
}

int text_is_control(uint32_t cp)
{
    return cp < 0x20 || (cp >= 0x7f && cp < 0xa0);
}

/* ---- JSON ---------------------------------------------------------------- */

void json_put_string(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', out);
    while (*p) {
        uint32_t cp;
        size_t n = utf8_sequence(p, &cp);
        if (!n) {
            fputs("\\ufffd", out);
            p++;
            continue;
        }
        if (cp == '"' || cp == '\\')
            fprintf(out, "\\%c", (char)cp);
        else if (cp == '\n')
            fputs("\\n", out);
        else if (cp == '\t')
            fputs("\\t", out);
        else if (cp == '\r')
            fputs("\\r", out);
        else if (text_is_control(cp))
            fprintf(out, "\\u%04x", (unsigned)cp);
        else
            fwrite(p, 1, n, out);
        p += n;
    }
    fputc('"', out);
}

/* ---- CSV and TSV ------------------------------------------------------------ */

void csv_put_field(FILE *out, const char *s, char sep)
{
    char specials[] = { sep, '"', '\n', '\r', '\0' };
    bool quoted = strpbrk(s, specials) != NULL;
    const unsigned char *p = (const unsigned char *)s;
    if (quoted)
        fputc('"', out);
    while (*p) {
        uint32_t cp;
        size_t n = utf8_sequence(p, &cp);
        bool kept = n && (!text_is_control(cp) || cp == '\t' || cp == '\n' || cp == '\r');
        if (!kept) {
            fputs(TEXT_REPLACEMENT, out);
            p += n ? n : 1;
            continue;
        }
        if (cp == '"')
            fputc('"', out);
        fwrite(p, 1, n, out);
        p += n;
    }
    if (quoted)
        fputc('"', out);
}

/* Writes s with control characters escaped (backslashes too when
 * escape_backslash); returns the bytes written (or that would be, with
 * out NULL). */
static size_t put_escaped(FILE *out, const char *s, bool escape_backslash)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t written = 0;
    while (*p) {
        uint32_t cp;
        size_t n = utf8_sequence(p, &cp);
        char esc[8] = "";
        if (!n)
            snprintf(esc, sizeof(esc), "%s", TEXT_REPLACEMENT);
        else if (cp == '\t' || cp == '\n' || cp == '\r')
            snprintf(esc, sizeof(esc), "\\%c", cp == '\t' ? 't' : cp == '\n' ? 'n' : 'r');
        else if (cp == '\\' && escape_backslash)
            snprintf(esc, sizeof(esc), "\\\\");
        else if (text_is_control(cp))
            snprintf(esc, sizeof(esc), "\\x%02x", (unsigned)cp);
        size_t len = esc[0] ? strlen(esc) : n;
        if (out)
            fwrite(esc[0] ? (const void *)esc : (const void *)p, 1, len, out);
        written += len;
        p += n ? n : 1;
    }
    return written;
}

void tsv_put_field(FILE *out, const char *s)
{
    put_escaped(out, s, true);
}

/* ---- Text ----------------------------------------------------------------- */

size_t text_put(FILE *out, const char *s)
{
    return put_escaped(out, s, false);
}

size_t text_width(const char *s)
{
    return put_escaped(NULL, s, false);
}

void text_put_padded(FILE *out, const char *s, size_t width)
{
    for (size_t n = text_put(out, s); n < width; n++)
        fputc(' ', out);
}

/* ---- pprof and names as read ------------------------------------------------ */

char *text_utf8_copy(const char *s, size_t *len)
{
    size_t in = strlen(s);
    char *copy = malloc(3 * in + 1), *q = copy;   /* each byte at most U+FFFD */
    if (!copy)
        return NULL;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        uint32_t cp;
        size_t n = utf8_sequence(p, &cp);
        if (!n || text_is_control(cp)) {
            memcpy(q, TEXT_REPLACEMENT, sizeof(TEXT_REPLACEMENT) - 1);
            q += sizeof(TEXT_REPLACEMENT) - 1;
        } else {
            memcpy(q, p, n);
            q += n;
        }
        p += n ? n : 1;
    }
    *q = '\0';
    *len = (size_t)(q - copy);
    return copy;
}

void text_clean(char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    char *q = s;
    while (*p) {
        uint32_t cp;
        size_t n = utf8_sequence(p, &cp);
        if (!n || text_is_control(cp)) {
            *q++ = '?';
        } else {
            memmove(q, p, n);
            q += n;
        }
        p += n ? n : 1;
    }
    *q = '\0';
}
