/* A domain's console output, cut into lines (see vmm/domain/domain_console.h). */
#include "vmm/domain/domain_console.h"

void domain_console_flush(struct domain_console *c, domain_console_emit_fn *emit, void *ctx)
{
    if (c->len)
        emit(ctx, c->line, c->len);
    c->len = 0;
}

/* Tokens earned since last_tsc; last_tsc moves only by the time those
 * tokens took, so no fraction of a byte is lost between calls. */
static void refill(struct domain_console_rate *r, uint64_t now_tsc, uint64_t tsc_hz)
{
    uint64_t elapsed = now_tsc > r->last_tsc ? now_tsc - r->last_tsc : 0;
    uint64_t full = tsc_hz / DOMAIN_CONSOLE_RATE * DOMAIN_CONSOLE_BURST;
    if (!r->started || elapsed >= full) {
        r->tokens = DOMAIN_CONSOLE_BURST;
        r->last_tsc = now_tsc;
        r->started = true;
        return;
    }
    uint64_t earned = elapsed * DOMAIN_CONSOLE_RATE / tsc_hz;   /* < 2^64: elapsed < full */
    r->last_tsc += earned * tsc_hz / DOMAIN_CONSOLE_RATE;
    r->tokens = r->tokens + earned > DOMAIN_CONSOLE_BURST ? DOMAIN_CONSOLE_BURST
                                                          : r->tokens + earned;
}

bool domain_console_admit(struct domain_console_rate *r, size_t len, uint64_t now_tsc,
                          uint64_t tsc_hz)
{
    uint64_t cost = (uint64_t)len + 1;
    if (!tsc_hz)
        return true;
    refill(r, now_tsc, tsc_hz);
    if (r->tokens >= cost) {
        r->tokens -= cost;
        return true;
    }
    r->dropped_lines++;
    r->dropped_bytes += cost;
    r->unreported_lines++;
    r->unreported_bytes += cost;
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
