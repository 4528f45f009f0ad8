/* A token bucket on the TSC (see vmm/console/token_bucket.h). */
#include "vmm/console/token_bucket.h"

/* Tokens earned since last_tsc; last_tsc moves only by the time those
 * tokens took, so no fraction of a token is lost between calls. */
static void refill(struct token_bucket *b, uint64_t burst, uint64_t rate, uint64_t now_tsc,
                   uint64_t tsc_hz)
{
    uint64_t elapsed = now_tsc > b->last_tsc ? now_tsc - b->last_tsc : 0;
    uint64_t full = tsc_hz / rate * burst;      /* TSC ticks that earn a full bucket */
    if (!b->started || elapsed >= full) {
        b->tokens = burst;
        b->last_tsc = now_tsc;
        b->started = true;
        return;
    }
    uint64_t earned = elapsed * rate / tsc_hz;  /* < 2^64: elapsed < full */
    b->last_tsc += earned * tsc_hz / rate;
    b->tokens = b->tokens + earned > burst ? burst : b->tokens + earned;
}

bool token_bucket_take(struct token_bucket *b, uint64_t cost, uint64_t burst, uint64_t rate,
                       uint64_t now_tsc, uint64_t tsc_hz)
{
    if (!tsc_hz)
        return true;
    refill(b, burst, rate, now_tsc, tsc_hz);
    if (b->tokens < cost)
        return false;
    b->tokens -= cost;
    return true;
}
