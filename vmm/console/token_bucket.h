/* A token bucket on the TSC: at most `burst` tokens, earning `rate` a
 * second of TSC time; what a guest makes Vertigo do (console bytes, lines
 * of Vertigo's own about its requests) is paid from one, so a guest that
 * asks in a loop gets that share and no more. Portable and host-tested. */
#ifndef VMM_TOKEN_BUCKET_H
#define VMM_TOKEN_BUCKET_H

#include <stdbool.h>
#include <stdint.h>

struct token_bucket {
    uint64_t tokens;            /* what may be spent now */
    uint64_t last_tsc;          /* the TSC tokens were counted up to */
    bool started;               /* full at the first take */
};

/* Takes `cost` tokens at TSC now_tsc (the TSC running at tsc_hz) if the
 * bucket holds them: true; false, nothing taken, if not. tsc_hz 0 (rate
 * unknown) means no limit. burst and rate are the caller's constants
 * (rate >= 1, tsc_hz * burst < 2^64); tokens earned are never lost
 * between calls. */
bool token_bucket_take(struct token_bucket *b, uint64_t cost, uint64_t burst, uint64_t rate,
                       uint64_t now_tsc, uint64_t tsc_hz);

#endif
