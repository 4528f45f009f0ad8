/* A domain's share of a CPU's log ring for the records its guest causes on
 * demand (its console lines, its symbol chunks): at most 1/LOG_QUOTA_SHARE
 * of the ring may hold such records of one domain at a time, so a domain
 * that floods fills its own share and loses its own records, never the
 * samples, Vertigo's records or another domain's. What a domain has in
 * the ring is counted from the ring's positions: the bytes it wrote since
 * the drain last passed all of them (an upper bound while the drain is
 * part-way). Portable. */
#ifndef VMM_LOG_QUOTA_H
#define VMM_LOG_QUOTA_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/log/log_ring.h"

#define LOG_QUOTA_SHARE 4u

struct log_quota {
    uint64_t end;           /* the ring's head after the domain's last record */
    uint64_t bytes;         /* ring bytes it wrote since the drain passed them all */
    uint64_t refused;       /* records refused, ever */
};

/* True if a record of at most max_bytes ring bytes (entry header
 * included) fits the domain's share of ring now; false counts a refusal. */
bool log_quota_admit(struct log_quota *q, const struct log_ring *ring, uint64_t max_bytes);

/* After the write: the ring's head before and after it (the bytes the
 * record took; 0 if it was dropped). */
void log_quota_charge(struct log_quota *q, uint64_t head_before, uint64_t head_after);

#endif
