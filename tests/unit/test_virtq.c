/* Tests of the transmit virtqueue (vmm/log/virtq.c) against a simulated
 * virtio device that consumes the available ring the way a device does
 * (reads descriptors at the addresses the driver wrote, returns them in
 * the used ring), and of the PCI CONFIG_ADDRESS encoding (vmm/log/pci.h). */
#include <stdlib.h>

#include "tests/unit/unit.h"
#include "vmm/log/pci.h"
#include "vmm/log/virtq.h"

#define SIM_OUT_MAX (2u << 20)

struct sim_device {
    struct virtq *q;        /* only for its ring pointers and size */
    uint16_t last_avail;    /* next available entry the device reads */
    uint16_t used_idx;
    uint8_t *out;           /* bytes received, in order */
    size_t out_len;
    uint32_t buffers;       /* buffers consumed, not wrapped */
};

static uint8_t ring_mem[VIRTQ_LEGACY_BYTES_MAX] __attribute__((aligned(VIRTQ_LEGACY_ALIGN)));

/* Device side: takes up to max available buffers, appends their bytes and
 * completes them in the used ring. Returns how many it took. */
static unsigned int sim_consume(struct sim_device *d, unsigned int max)
{
    struct virtq *q = d->q;
    unsigned int n = 0;
    uint16_t avail_idx = __atomic_load_n(&q->avail->idx, __ATOMIC_ACQUIRE);

    while (d->last_avail != avail_idx && n < max) {
        uint16_t id = q->avail->ring[d->last_avail % q->size];
        const struct virtq_desc *desc = &q->desc[id];
        if (d->out_len + desc->len <= SIM_OUT_MAX)
            memcpy(d->out + d->out_len, (const void *)(uintptr_t)desc->addr, desc->len);
        d->out_len += desc->len;
        q->used->ring[d->used_idx % q->size] = (struct virtq_used_elem){ id, 0 };
        d->used_idx++;
        __atomic_store_n(&q->used->idx, d->used_idx, __ATOMIC_RELEASE);
        d->last_avail++;
        d->buffers++;
        n++;
    }
    return n;
}

static struct sim_device sim_new(struct virtq *q)
{
    struct sim_device d = { .q = q, .out = malloc(SIM_OUT_MAX) };
    return d;
}

TEST(virtq_legacy_layout_follows_spec)
{
    /* 128 entries: 2048 B descriptors, available ring at 2048 (4 + 256 +
     * 2 bytes), used ring at the next 4096 boundary: 6 + 8 * 128 bytes. */
    CHECK_EQ(virtq_used_offset(128), 4096);
    CHECK_EQ(virtq_legacy_bytes(128), 4096 + 6 + 8 * 128);
    /* 256 entries: 4096 + 518 bytes before the used ring -> 8192. */
    CHECK_EQ(virtq_used_offset(256), 8192);
    CHECK_EQ(virtq_used_offset(1), 4096);
    CHECK(virtq_legacy_bytes(VIRTQ_MAX_SIZE) <= VIRTQ_LEGACY_BYTES_MAX);

    struct virtq q;
    uint8_t slots[64];
    CHECK(virtq_init(&q, ring_mem, sizeof(ring_mem), 128, slots, 4, 16));
    CHECK_EQ((uintptr_t)q.avail - (uintptr_t)ring_mem, 2048);
    CHECK_EQ((uintptr_t)q.used - (uintptr_t)ring_mem, 4096);
    CHECK_EQ(q.avail->flags, VIRTQ_AVAIL_F_NO_INTERRUPT);
    CHECK_EQ(q.avail->idx, 0);
}

TEST(virtq_init_rejects_bad_sizes_and_memory)
{
    struct virtq q;
    uint8_t slots[64];
    CHECK(!virtq_init(&q, ring_mem, sizeof(ring_mem), 0, slots, 4, 16));
    CHECK(!virtq_init(&q, ring_mem, sizeof(ring_mem), 100, slots, 4, 16));    /* not 2^n */
    CHECK(!virtq_init(&q, ring_mem, sizeof(ring_mem), 2 * VIRTQ_MAX_SIZE, slots, 4, 16));
    CHECK(!virtq_init(&q, ring_mem, virtq_legacy_bytes(256) - 1, 256, slots, 4, 16));
    CHECK(!virtq_init(&q, ring_mem + 8, sizeof(ring_mem) - 8, 16, slots, 4, 16));
    CHECK(!virtq_init(&q, ring_mem, sizeof(ring_mem), 16, slots, 0, 16));
    CHECK(virtq_init(&q, ring_mem, virtq_legacy_bytes(256), 256, slots, 4, 16));
    /* More slots than queue entries: only `size` descriptors are used. */
    CHECK(virtq_init(&q, ring_mem, sizeof(ring_mem), 2, slots, 4, 16));
    CHECK_EQ(q.slot_count, 2);
}

TEST(virtq_full_queue_takes_nothing_until_device_uses_buffers)
{
    struct virtq q;
    static uint8_t slots[8 * 32];
    uint8_t data[1000];
    for (size_t i = 0; i < sizeof(data); i++)
        data[i] = (uint8_t)(i * 7 + 1);
    CHECK(virtq_init(&q, ring_mem, sizeof(ring_mem), 16, slots, 8, 32));
    struct sim_device d = sim_new(&q);

    size_t sent = virtq_send(&q, data, sizeof(data));
    CHECK_EQ(sent, 8 * 32);                 /* every slot, no more */
    CHECK_EQ(virtq_in_flight(&q), 8);
    CHECK_EQ(q.avail->idx, 8);
    CHECK_EQ(virtq_send(&q, data + sent, sizeof(data) - sent), 0);
    CHECK_EQ(virtq_reclaim(&q), 0);         /* device has not used any */

    CHECK_EQ(sim_consume(&d, 3), 3);
    CHECK_EQ(virtq_reclaim(&q), 3);
    CHECK_EQ(virtq_in_flight(&q), 5);
    size_t more = virtq_send(&q, data + sent, sizeof(data) - sent);
    CHECK_EQ(more, 3 * 32);
    sent += more;
    while (sim_consume(&d, 100))
        ;
    CHECK_EQ(d.out_len, sent);
    CHECK(memcmp(d.out, data, sent) == 0);  /* in order, nothing lost */
    free(d.out);
}

/* Random producer and device speeds over more than 65536 buffers, so both
 * free-running indices wrap: every byte arrives once, in order. */
TEST(virtq_stream_survives_index_wrap)
{
    struct virtq q;
    static uint8_t slots[16 * 24];
    enum { TOTAL = 70000 * 24 };     /* at least 70000 buffers of <= 24 bytes */
    uint8_t *data = malloc(TOTAL);
    srand(1234);
    for (size_t i = 0; i < TOTAL; i++)
        data[i] = (uint8_t)rand();
    CHECK(virtq_init(&q, ring_mem, sizeof(ring_mem), 32, slots, 16, 24));
    struct sim_device d = sim_new(&q);

    size_t sent = 0, full_events = 0;
    while (sent < TOTAL) {
        virtq_reclaim(&q);
        size_t chunk = 1 + (size_t)rand() % 100;
        if (chunk > TOTAL - sent)
            chunk = TOTAL - sent;
        size_t n = virtq_send(&q, data + sent, chunk);
        if (!n)
            full_events++;
        sent += n;
        CHECK(virtq_in_flight(&q) <= 16);
        sim_consume(&d, (unsigned int)rand() % 6);
    }
    while (sim_consume(&d, 100))
        ;
    virtq_reclaim(&q);
    CHECK_EQ(q.avail->idx, q.next_avail);   /* published what was queued */
    CHECK(d.buffers > 65536);               /* both indices wrapped */
    CHECK_EQ(q.avail->idx, (uint16_t)d.buffers);
    CHECK_EQ(d.out_len, (size_t)TOTAL);
    CHECK(memcmp(d.out, data, TOTAL) == 0);
    CHECK(full_events > 0);                 /* the full-queue path ran */
    CHECK_EQ(virtq_in_flight(&q), 0);
    CHECK_EQ(q.bad_used, 0);
    free(d.out);
    free(data);
}

TEST(virtq_reclaim_ignores_bogus_used_entries)
{
    struct virtq q;
    static uint8_t slots[4 * 8];
    uint8_t data[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    CHECK(virtq_init(&q, ring_mem, sizeof(ring_mem), 8, slots, 4, 8));
    CHECK_EQ(virtq_send(&q, data, 8), 8);   /* descriptor 0 in flight */
    /* Device returns an id out of range and one that is not in flight. */
    q.used->ring[0] = (struct virtq_used_elem){ 9, 0 };
    q.used->ring[1] = (struct virtq_used_elem){ 2, 0 };
    q.used->idx = 2;
    CHECK_EQ(virtq_reclaim(&q), 0);
    CHECK_EQ(q.bad_used, 2);
    CHECK_EQ(virtq_in_flight(&q), 1);
    /* A used index far ahead is bounded by the queue size. */
    q.used->idx = 2 + 1000;
    CHECK(virtq_reclaim(&q) <= 1);
    CHECK_EQ(q.last_used, 2 + 8);
}

TEST(pci_config_address_encoding)
{
    struct pci_bdf bdf = { .bus = 1, .device = 2, .function = 3 };
    /* enable | bus << 16 | device << 11 | function << 8 | register */
    CHECK_EQ(pci_config_address(bdf, 0x10), 0x80011310u);
    CHECK_EQ(pci_config_address(bdf, 0x13), 0x80011310u);  /* dword aligned */
    struct pci_bdf last = { .bus = 255, .device = 31, .function = 7 };
    CHECK_EQ(pci_config_address(last, 0xfc), 0x80fffffcu);

    CHECK(pci_config_address_selects(0x80011310u, bdf));
    CHECK(pci_config_address_selects(0x80011300u | 0x3c, bdf));
    CHECK(pci_config_address_selects(0x8f011300u, bdf));     /* reserved bits */
    CHECK(!pci_config_address_selects(0x00011310u, bdf));    /* not enabled */
    CHECK(!pci_config_address_selects(0x80011410u, bdf));    /* function 4 */
    CHECK(!pci_config_address_selects(0x80011b10u, bdf));    /* device 3 */
    CHECK(!pci_config_address_selects(0x80021310u, bdf));    /* bus 2 */
}
