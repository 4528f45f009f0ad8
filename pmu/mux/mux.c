/* Interval multiplexing: sets, turns and extrapolation (see pmu/mux/mux.h). */
#include "pmu/mux/mux.h"

#define FIXED_MAX 32u

/* The counters one set has taken so far. */
struct set_use {
    unsigned int gp_used;
    uint32_t fixed_used;
};

static bool fixed_free(const struct set_use *u, const struct mux_counters *c, int8_t j)
{
    return j >= 0 && (unsigned int)j < FIXED_MAX && (c->fixed_mask & (1u << j)) &&
           !(u->fixed_used & (1u << j));
}

/* Places event e in set s if it fits there. */
static bool place(struct mux_plan *plan, struct set_use *u, unsigned int s, unsigned int e,
                  const struct mux_event_need *need, const struct mux_counters *c)
{
    if (fixed_free(u, c, need->fixed_index)) {
        u->fixed_used |= 1u << need->fixed_index;
        plan->on_fixed[e] = true;
    } else if (need->gp_ok && u->gp_used < c->gp) {
        plan->on_fixed[e] = false;
        plan->gp_index[e] = (uint8_t)u->gp_used++;
    } else {
        return false;
    }
    plan->set_of[e] = (uint8_t)s;
    return true;
}

/* True if an empty set could hold the event: some counter counts it. */
static bool countable(const struct mux_event_need *need, const struct mux_counters *c)
{
    struct set_use empty = { 0, 0 };
    return fixed_free(&empty, c, need->fixed_index) || (need->gp_ok && c->gp > 0);
}

enum mux_err mux_plan_sets(const struct mux_event_need *events, unsigned int n,
                           const struct mux_counters *counters, struct mux_plan *out,
                           unsigned int *bad)
{
    struct set_use use[MUX_EVENTS_MAX] = { { 0, 0 } };
    *out = (struct mux_plan){ .event_count = n };
    if (n == 0)
        return MUX_ERR_NO_EVENTS;
    if (n > MUX_EVENTS_MAX)
        return MUX_ERR_TOO_MANY_EVENTS;
    for (unsigned int e = 0; e < n; e++) {
        if (!countable(&events[e], counters)) {
            *bad = e;
            return MUX_ERR_NO_COUNTER;
        }
        unsigned int s = 0;
        while (!place(out, &use[s], s, e, &events[e], counters))
            s++;                /* ends: an empty set always fits it */
        if (s + 1 > out->set_count)
            out->set_count = s + 1;
    }
    return MUX_OK;
}

enum mux_err mux_check_lengths(uint64_t interval, uint64_t sub, unsigned int set_count)
{
    if (interval == 0)
        return MUX_ERR_INTERVAL_ZERO;
    if (sub == 0)
        return MUX_ERR_SUB_ZERO;
    if (sub > interval)
        return MUX_ERR_SUB_LONGER;
    if (interval / sub < set_count)
        return MUX_ERR_TOO_FEW_TURNS;
    return MUX_OK;
}

unsigned int mux_set_at(const struct mux_plan *plan, uint64_t interval, uint64_t sub,
                        uint64_t subs)
{
    if (plan->set_count == 0)
        return 0;
    /* (interval * subs + sub) mod sets, without overflowing the product */
    uint64_t sets = plan->set_count;
    uint64_t turn = ((interval % sets) * (subs % sets) + sub % sets) % sets;
    return (unsigned int)turn;
}

/* (hi:lo) / d for hi < d, bit by bit: no 128-bit division from a runtime
 * library (the hypervisor links none). */
static uint64_t div_128_64(uint64_t hi, uint64_t lo, uint64_t d)
{
    uint64_t q = 0;
    for (int bit = 63; bit >= 0; bit--) {
        bool carry = hi >> 63;
        hi = hi << 1 | lo >> 63;
        lo <<= 1;
        q <<= 1;
        if (carry || hi >= d) {
            hi -= d;
            q |= 1;
        }
    }
    return q;
}

enum mux_estimate mux_extrapolate(uint64_t raw, uint64_t enabled, uint64_t running,
                                  uint64_t *value)
{
    if (running == 0) {
        *value = 0;
        return MUX_UNMEASURED;
    }
    if (running >= enabled) {
        *value = raw;
        return MUX_MEASURED;
    }
    /* raw x enabled + running / 2, as 128 bits (the multiplication needs
     * no library call), divided by running */
    unsigned __int128 num = (unsigned __int128)raw * enabled + running / 2;
    uint64_t hi = (uint64_t)(num >> 64), lo = (uint64_t)num;
    *value = hi >= running ? UINT64_MAX : div_128_64(hi, lo, running);
    return MUX_SCALED;
}

const char *mux_err_text(enum mux_err err)
{
    switch (err) {
    case MUX_OK: return "ok";
    case MUX_ERR_NO_EVENTS: return "no events to multiplex";
    case MUX_ERR_TOO_MANY_EVENTS: return "more events than multiplexing takes (64)";
    case MUX_ERR_NO_COUNTER: return "no counter of this PMU can count the event";
    case MUX_ERR_INTERVAL_ZERO: return "the interval length must be at least 1 instruction";
    case MUX_ERR_SUB_ZERO: return "the sub-interval length must be at least 1 instruction";
    case MUX_ERR_SUB_LONGER: return "the sub-interval is longer than the interval";
    case MUX_ERR_TOO_FEW_TURNS:
        return "the interval holds fewer sub-intervals than there are event sets "
               "(some events would go unmeasured in an interval)";
    }
    return "unknown error";
}
