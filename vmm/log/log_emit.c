/* Emitting log records: encode into a stack buffer, then log_ring_write.
 * Samples (NMI context, the hot path) go through log_ring_write_sample,
 * which does both in one call with a buffer sized for samples only. */
#include "vmm/log/log_emit.h"

#include "vmm/log/log_encode.h"

/* Encodes with fn into a LOG_FIELDS_MAX buffer and writes the result. */
#define LOG_EMIT_BODY(ring, tsc, type, fn, value)                     \
    do {                                                              \
        uint8_t fields[LOG_FIELDS_MAX];                               \
        size_t len = fn(fields, value);                               \
        return log_ring_write(ring, type, tsc, fields, len);          \
    } while (0)

bool log_emit_sample(struct log_ring *ring, uint64_t tsc, const struct log_sample *s)
{
    return log_ring_write_sample(ring, tsc, s);
}

bool log_emit_console(struct log_ring *ring, uint64_t tsc, const struct log_console *c)
{
    LOG_EMIT_BODY(ring, tsc, LOG_REC_CONSOLE, log_encode_console, c);
}

bool log_emit_interval(struct log_ring *ring, uint64_t tsc, const struct log_interval *iv)
{
    LOG_EMIT_BODY(ring, tsc, LOG_REC_INTERVAL, log_encode_interval, iv);
}

bool log_emit_swcounters(struct log_ring *ring, uint64_t tsc, const struct log_swcounters *sw)
{
    LOG_EMIT_BODY(ring, tsc, LOG_REC_SWCOUNTERS, log_encode_swcounters, sw);
}

bool log_emit_lifecycle(struct log_ring *ring, uint64_t tsc, const struct log_lifecycle *lc)
{
    LOG_EMIT_BODY(ring, tsc, LOG_REC_LIFECYCLE, log_encode_lifecycle, lc);
}

bool log_emit_symbols(struct log_ring *ring, uint64_t tsc, const struct log_symbols *sym)
{
    LOG_EMIT_BODY(ring, tsc, LOG_REC_SYMBOLS, log_encode_symbols, sym);
}

bool log_emit_config(struct log_ring *ring, uint64_t tsc, const struct log_config *cfg)
{
    LOG_EMIT_BODY(ring, tsc, LOG_REC_CONFIG, log_encode_config, cfg);
}

bool log_emit_pmu_totals(struct log_ring *ring, uint64_t tsc, const struct log_pmu_totals *pt)
{
    LOG_EMIT_BODY(ring, tsc, LOG_REC_PMU_TOTALS, log_encode_pmu_totals, pt);
}

bool log_emit_vcpu_stats(struct log_ring *ring, uint64_t tsc, const struct log_vcpu_stats *vs)
{
    LOG_EMIT_BODY(ring, tsc, LOG_REC_VCPU_STATS, log_encode_vcpu_stats, vs);
}

bool log_emit_event_desc(struct log_ring *ring, uint64_t tsc, const struct log_event_desc *ed)
{
    LOG_EMIT_BODY(ring, tsc, LOG_REC_EVENT_DESC, log_encode_event_desc, ed);
}

bool log_emit_event_period(struct log_ring *ring, uint64_t tsc, const struct log_event_period *ep)
{
    LOG_EMIT_BODY(ring, tsc, LOG_REC_EVENT_PERIOD, log_encode_event_period, ep);
}

bool log_emit_user_stack(struct log_ring *ring, uint64_t tsc, const struct log_user_stack *us)
{
    LOG_EMIT_BODY(ring, tsc, LOG_REC_USER_STACK, log_encode_user_stack, us);
}

bool log_emit_guest_pmu_prog(struct log_ring *ring, uint64_t tsc,
                             const struct log_guest_pmu_prog *gp)
{
    LOG_EMIT_BODY(ring, tsc, LOG_REC_GUEST_PMU_PROG, log_encode_guest_pmu_prog, gp);
}

bool log_emit_guest_pmi(struct log_ring *ring, uint64_t tsc, const struct log_guest_pmi *pmi)
{
    LOG_EMIT_BODY(ring, tsc, LOG_REC_GUEST_PMI, log_encode_guest_pmi, pmi);
}

bool log_emit_interval_events(struct log_ring *ring, uint64_t tsc,
                              const struct log_interval_events *ie)
{
    LOG_EMIT_BODY(ring, tsc, LOG_REC_INTERVAL_EVENTS, log_encode_interval_events, ie);
}
