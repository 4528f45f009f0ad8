/* A domain's console output, cut into lines (see vmm/domain_console.h). */
#include "vmm/domain_console.h"

void domain_console_flush(struct domain_console *c, domain_console_emit_fn *emit, void *ctx)
{
    if (c->len)
        emit(ctx, c->line, c->len);
    c->len = 0;
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
