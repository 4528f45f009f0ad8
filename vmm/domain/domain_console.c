/* A domain's console output, cut into lines (see vmm/domain/domain_console.h). */
#include "vmm/domain/domain_console.h"

void domain_console_flush(struct domain_console *c, domain_console_emit_fn *emit, void *ctx)
{
    if (c->len)
        emit(ctx, c->line, c->len);
    c->len = 0;
}

void domain_console_count_drop(struct domain_console_drops *d, size_t len)
{
    d->lines++;
    d->bytes += (uint64_t)len + 1;
    d->unreported_lines++;
    d->unreported_bytes += (uint64_t)len + 1;
}

bool domain_console_admit(struct domain_console_rate *r, size_t len, uint64_t now_tsc,
                          uint64_t tsc_hz)
{
    if (token_bucket_take(&r->bucket, (uint64_t)len + 1, DOMAIN_CONSOLE_BURST,
                          DOMAIN_CONSOLE_RATE, now_tsc, tsc_hz))
        return true;
    domain_console_count_drop(&r->dropped, len);
    return false;
}

void domain_console_write(struct domain_console *c, const char *text, size_t len,
                          domain_console_emit_fn *emit, void *ctx)
{
    for (size_t i = 0; i < len; i++) {
        char ch = text[i];
        if (ch == '\n') {
            emit(ctx, c->line, c->len);
            c->len = 0;
            continue;
        }
        if (ch == '\0' || ch == '\r')
            continue;
        if ((unsigned char)ch < 0x20 && ch != '\t')
            ch = '?';
        if ((unsigned char)ch == 0x7f)
            ch = '?';
        c->line[c->len++] = ch;
        if (c->len == DOMAIN_CONSOLE_LINE)
            domain_console_flush(c, emit, ctx);
    }
}
