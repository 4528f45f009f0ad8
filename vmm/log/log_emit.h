/* Emitting log records: encode a record value and write it to a ring in
 * one call. What hypervisor code calls (log_emit_sample from the PMU NMI
 * handler, log_emit_console from the console, ...). Each returns false
 * when the record was dropped (counted by the ring, reported later) or
 * broke a format limit (also counted as a drop). */
#ifndef VMM_LOG_EMIT_H
#define VMM_LOG_EMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "vertigo/log_format.h"
#include "vmm/log/log_ring.h"

bool log_emit_console(struct log_ring *ring, uint64_t tsc, const struct log_console *c);
bool log_emit_sample(struct log_ring *ring, uint64_t tsc, const struct log_sample *s);
bool log_emit_interval(struct log_ring *ring, uint64_t tsc, const struct log_interval *iv);
bool log_emit_swcounters(struct log_ring *ring, uint64_t tsc, const struct log_swcounters *sw);
bool log_emit_lifecycle(struct log_ring *ring, uint64_t tsc, const struct log_lifecycle *lc);
bool log_emit_symbols(struct log_ring *ring, uint64_t tsc, const struct log_symbols *sym);
bool log_emit_config(struct log_ring *ring, uint64_t tsc, const struct log_config *cfg);
bool log_emit_pmu_totals(struct log_ring *ring, uint64_t tsc, const struct log_pmu_totals *pt);
bool log_emit_vcpu_stats(struct log_ring *ring, uint64_t tsc, const struct log_vcpu_stats *vs);
bool log_emit_event_desc(struct log_ring *ring, uint64_t tsc, const struct log_event_desc *ed);
bool log_emit_event_period(struct log_ring *ring, uint64_t tsc, const struct log_event_period *ep);
bool log_emit_user_stack(struct log_ring *ring, uint64_t tsc, const struct log_user_stack *us);
bool log_emit_guest_pmu_prog(struct log_ring *ring, uint64_t tsc,
                             const struct log_guest_pmu_prog *gp);
bool log_emit_guest_pmi(struct log_ring *ring, uint64_t tsc, const struct log_guest_pmi *pmi);
bool log_emit_interval_events(struct log_ring *ring, uint64_t tsc,
                              const struct log_interval_events *ie);

#endif
