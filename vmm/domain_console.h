/* A domain's console output, cut into lines: each complete line (or a
 * full buffer, or what is left when the domain ends) goes to an emitter,
 * which Vertigo points at its text console (prefixed "[NAME] ") and at
 * the log (a console record with source = the domain's id). Portable and
 * host-tested. */
#ifndef VMM_DOMAIN_CONSOLE_H
#define VMM_DOMAIN_CONSOLE_H

#include <stddef.h>

#define DOMAIN_CONSOLE_LINE 160u    /* longest line emitted whole */

/* Receives one line without its newline (len <= DOMAIN_CONSOLE_LINE). */
typedef void domain_console_emit_fn(void *ctx, const char *line, size_t len);

struct domain_console {
    char line[DOMAIN_CONSOLE_LINE];
    size_t len;
};

/* Adds len bytes of output; emits every line they complete. NUL bytes and
 * carriage returns are dropped, other control bytes become '?', so a
 * domain cannot forge lines of another source. */
void domain_console_write(struct domain_console *c, const char *text, size_t len,
                          domain_console_emit_fn *emit, void *ctx);

/* Emits the unfinished line, if any (the domain ended). */
void domain_console_flush(struct domain_console *c, domain_console_emit_fn *emit, void *ctx);

#endif
