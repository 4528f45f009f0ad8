/* Quoting text for JSON, CSV and TSV (see text_quote.h). */
#include "host-tools/text_quote.h"

#include <string.h>

void json_put_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c < 0x20 || *c > 0x7e)
            fprintf(out, "\\u%04x", *c);
        else
            fputc(*c, out);
    }
    fputc('"', out);
}

void csv_put_field(FILE *out, const char *s, char sep)
{
    char specials[] = { sep, '"', '\n', '\r', '\0' };
    if (!strpbrk(s, specials)) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}
