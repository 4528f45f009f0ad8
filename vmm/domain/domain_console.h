/* A domain's console output, cut into lines: each complete line (or a
 * full buffer, or what is left when the domain ends) goes to an emitter,
 * which Vertigo points at its text console (prefixed "[NAME] ") and at
 * the log (a console record with source = the domain's id). Portable and
 * host-tested. */
#ifndef VMM_DOMAIN_CONSOLE_H
#define VMM_DOMAIN_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DOMAIN_CONSOLE_LINE 160u    /* longest line emitted whole */

/* Each domain's console is rate-limited: a line costs its length plus one
 * byte from a bucket that holds DOMAIN_CONSOLE_BURST bytes and refills at
 * DOMAIN_CONSOLE_RATE bytes per second of TSC. Vertigo prints a line on
 * its polled UART in root mode (115200 baud: 11.5 KB/s at best), so a
 * domain's share of that is bounded at about a third of it however hard
 * it writes; a Linux domain's whole boot log (some 40 KB) fits the burst. A
 * line that does not fit is dropped and counted, never waited for. */
#define DOMAIN_CONSOLE_BURST 65536u
#define DOMAIN_CONSOLE_RATE  4096u

struct domain_console_rate {
    uint64_t tokens;            /* bytes the domain may print now */
    uint64_t last_tsc;          /* the TSC tokens were counted up to */
    bool started;
    uint64_t dropped_lines, dropped_bytes;  /* over the whole run */
    uint64_t unreported_lines, unreported_bytes;   /* since the last note */
};

/* Receives one line without its newline (len <= DOMAIN_CONSOLE_LINE). */
typedef void domain_console_emit_fn(void *ctx, const char *line, size_t len);

struct domain_console {
    char line[DOMAIN_CONSOLE_LINE];
    size_t len;
    struct domain_console_rate rate;
};

/* Adds len bytes of output; emits every line they complete. NUL bytes and
 * carriage returns are dropped, other control bytes become '?', so a
 * domain cannot forge lines of another source. */
void domain_console_write(struct domain_console *c, const char *text, size_t len,
                          domain_console_emit_fn *emit, void *ctx);

/* True if a line of len bytes (plus its newline) may be printed at TSC
 * now_tsc (the TSC running at tsc_hz; 0: unknown, no limit); false if it
 * is dropped, counted in dropped_* and unreported_*. */
bool domain_console_admit(struct domain_console_rate *r, size_t len, uint64_t now_tsc,
                          uint64_t tsc_hz);

/* Emits the unfinished line, if any (the domain ended). */
void domain_console_flush(struct domain_console *c, domain_console_emit_fn *emit, void *ctx);

#endif
