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

#include "vmm/console/line_queue.h"
#include "vmm/console/token_bucket.h"

#define DOMAIN_CONSOLE_LINE 160u    /* longest line emitted whole */

/* Each domain's console is rate-limited: a line costs its length plus one
 * byte from a bucket that holds DOMAIN_CONSOLE_BURST bytes and refills at
 * DOMAIN_CONSOLE_RATE bytes per second of TSC. Vertigo's serial console
 * writes 11.5 KB/s at 115200 baud, so a domain's share of it is bounded at
 * about a third however hard it writes; a Linux domain's whole boot log
 * (some 40 KB) fits the burst. A line over the rate is dropped and
 * counted, never waited for. An admitted line is queued for the console
 * (vmm/console/console_drain.h), whose queue of LINE_QUEUE_BYTES holds a burst; a
 * line that finds it full is dropped and counted too. */
#define DOMAIN_CONSOLE_BURST 65536u
#define DOMAIN_CONSOLE_RATE  4096u

/* Lines dropped for one reason: over the run, and since the last note. */
struct domain_console_drops {
    uint64_t lines, bytes;
    uint64_t unreported_lines, unreported_bytes;
};

struct domain_console_rate {
    struct token_bucket bucket;
    struct domain_console_drops dropped;    /* over the rate */
};

/* Receives one line without its newline (len <= DOMAIN_CONSOLE_LINE). */
typedef void domain_console_emit_fn(void *ctx, const char *line, size_t len);

struct domain_console {
    char line[DOMAIN_CONSOLE_LINE];
    size_t len;
    struct domain_console_rate rate;
    struct domain_console_drops full;       /* the console queue was full */
    struct line_queue queue;                /* admitted lines, for the console */
};

/* Adds len bytes of output; emits every line they complete. NUL bytes and
 * carriage returns are dropped, other control bytes become '?', so a
 * domain cannot forge lines of another source. */
void domain_console_write(struct domain_console *c, const char *text, size_t len,
                          domain_console_emit_fn *emit, void *ctx);

/* True if a line of len bytes (plus its newline) may be printed at TSC
 * now_tsc (the TSC running at tsc_hz; 0: unknown, no limit); false if it
 * is dropped, counted in r->dropped. */
bool domain_console_admit(struct domain_console_rate *r, size_t len, uint64_t now_tsc,
                          uint64_t tsc_hz);

/* Counts a dropped line of len bytes (plus its newline) in d. */
void domain_console_count_drop(struct domain_console_drops *d, size_t len);

/* Emits the unfinished line, if any (the domain ended). */
void domain_console_flush(struct domain_console *c, domain_console_emit_fn *emit, void *ctx);

#endif
