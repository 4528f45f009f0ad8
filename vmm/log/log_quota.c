/* A domain's share of a CPU's log ring (see vmm/log/log_quota.h). */
#include "vmm/log/log_quota.h"

bool log_quota_admit(struct log_quota *q, const struct log_ring *ring, uint64_t max_bytes)
{
    uint64_t tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);    /* the drain's */
    if (tail >= q->end)
        q->bytes = 0;                   /* everything it wrote has left the ring */
    if (q->bytes + max_bytes <= ring->size / LOG_QUOTA_SHARE)
        return true;
    q->refused++;
    return false;
}

void log_quota_charge(struct log_quota *q, uint64_t head_before, uint64_t head_after)
{
    if (head_after <= head_before)
        return;
    q->bytes += head_after - head_before;
    q->end = head_after;
}
