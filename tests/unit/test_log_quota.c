/* A domain's share of a CPU's log ring (vmm/log/log_quota.c) on a real ring:
 * a flooding domain fills its quarter and loses only its own records;
 * another domain's records and Vertigo's still fit; the share frees as
 * the drain takes the flooder's records. */
#include "tests/unit/unit.h"

#include "vmm/log/log_emit.h"
#include "vmm/log/log_quota.h"
#include "vmm/log/log_ring.h"

#define RING_SIZE 16384u
#define TEXT_LEN  200u
#define RECORD_MAX (TEXT_LEN + 64u)      /* fields and entry header, generously */

static uint8_t storage[RING_SIZE];
static uint8_t drained[RING_SIZE];

/* One console record of domain `source` through its quota; true if written. */
static bool console(struct log_ring *ring, struct log_quota *q, uint32_t source)
{
    static const char text[TEXT_LEN] = "flood";
    if (!log_quota_admit(q, ring, RECORD_MAX))
        return false;
    uint64_t before = ring->head;
    bool ok = log_emit_console(ring, 1, &(struct log_console){ .source = source, .text = text,
                                                               .len = TEXT_LEN });
    log_quota_charge(q, before, ring->head);
    return ok;
}

TEST(a_flooding_domain_fills_only_its_share)
{
    struct log_ring ring;
    struct log_quota flood = { 0 }, quiet = { 0 };
    unsigned int written = 0;

    CHECK(log_ring_init(&ring, 0, storage, RING_SIZE));
    for (unsigned int i = 0; i < 1000; i++)
        written += console(&ring, &flood, 1);
    CHECK(written > 0);
    CHECK(ring.head <= RING_SIZE / LOG_QUOTA_SHARE);
    CHECK(ring.head + RECORD_MAX > RING_SIZE / LOG_QUOTA_SHARE);
    CHECK_EQ(flood.refused, 1000 - written);
    CHECK_EQ(ring.dropped_total, 0);            /* the ring itself dropped nothing */
    /* the other domain's records all fit, up to its own share */
    for (unsigned int i = 0; i < written; i++)
        CHECK(console(&ring, &quiet, 2));
    CHECK_EQ(quiet.refused, 0);
    /* Vertigo's own records fit in the half left */
    CHECK(log_emit_console(&ring, 2, &(struct log_console){ .source = LOG_CONSOLE_HYPERVISOR,
                                                              .text = "vertigo", .len = 7 }));
    /* once drained, the flooder has its share again */
    while (log_ring_read(&ring, drained, sizeof(drained)))
        ;
    CHECK(console(&ring, &flood, 1));
    CHECK_EQ(flood.refused, 1000 - written);
}
