/* Transmit-only split virtqueue, legacy layout (vmm/log/virtq.h). The driver
 * writes descriptors and available-ring entries before it publishes the
 * available index (virtio 1.x, 2.7.13 "Supplying Buffers to The Device":
 * a write barrier before the idx update) and reads used entries only
 * after reading the used index (acquire). */
#include "vmm/log/virtq.h"

#include "lib/mem.h"

#define AVAIL_HEADER_BYTES 4u   /* flags, idx */
#define AVAIL_EVENT_BYTES  2u   /* used_event after the ring */

/* Largest queue: descriptors and available ring round up to 5 pages,
 * then the used ring (see virtq_legacy_bytes). */
_Static_assert(16u * VIRTQ_MAX_SIZE + 4u + 2u * VIRTQ_MAX_SIZE + 2u <= 5u * VIRTQ_LEGACY_ALIGN &&
               5u * VIRTQ_LEGACY_ALIGN + 4u + 8u * VIRTQ_MAX_SIZE + 2u <= VIRTQ_LEGACY_BYTES_MAX,
               "static storage holds the largest queue");

static size_t align_up(size_t value, size_t align)
{
    return (value + align - 1) & ~(align - 1);
}

size_t virtq_used_offset(uint16_t size)
{
    size_t avail_end = sizeof(struct virtq_desc) * size + AVAIL_HEADER_BYTES +
                       sizeof(uint16_t) * size + AVAIL_EVENT_BYTES;
    return align_up(avail_end, VIRTQ_LEGACY_ALIGN);
}

size_t virtq_legacy_bytes(uint16_t size)
{
    /* used: flags, idx, ring, avail_event */
    return virtq_used_offset(size) + 4u + sizeof(struct virtq_used_elem) * size + 2u;
}

static bool size_ok(uint16_t size)
{
    return size && size <= VIRTQ_MAX_SIZE && (size & (size - 1u)) == 0;
}

bool virtq_init(struct virtq *q, void *ring_mem, size_t ring_bytes, uint16_t size,
                uint8_t *slots, uint16_t slot_count, uint32_t slot_bytes)
{
    if (!size_ok(size) || ring_bytes < virtq_legacy_bytes(size) ||
        ((uintptr_t)ring_mem & (VIRTQ_LEGACY_ALIGN - 1)) || !slots || !slot_count ||
        !slot_bytes)
        return false;
    memset(ring_mem, 0, virtq_legacy_bytes(size));
    memset(q, 0, sizeof(*q));
    q->size = size;
    q->slot_count = slot_count < size ? slot_count : size;
    q->slot_bytes = slot_bytes;
    q->slots = slots;
    q->desc = ring_mem;
    q->avail = (struct virtq_avail *)((uint8_t *)ring_mem + sizeof(struct virtq_desc) * size);
    q->used = (struct virtq_used *)((uint8_t *)ring_mem + virtq_used_offset(size));
    q->avail->flags = VIRTQ_AVAIL_F_NO_INTERRUPT;
    for (uint16_t i = 0; i < q->slot_count; i++)
        q->free_ids[i] = (uint16_t)(q->slot_count - 1u - i);   /* pop 0 first */
    q->free_count = q->slot_count;
    return true;
}

uint16_t virtq_in_flight(const struct virtq *q)
{
    return (uint16_t)(q->slot_count - q->free_count);
}

unsigned int virtq_reclaim(struct virtq *q)
{
    uint16_t used_idx = __atomic_load_n(&q->used->idx, __ATOMIC_ACQUIRE);
    uint16_t pending = (uint16_t)(used_idx - q->last_used);
    unsigned int taken = 0;

    if (pending > q->size)
        pending = q->size;      /* a device that ran ahead: never loop more */
    for (uint16_t i = 0; i < pending; i++) {
        const struct virtq_used_elem *e =
            &q->used->ring[virtq_ring_slot(q->last_used, q->size)];
        uint32_t id = e->id;
        q->last_used++;
        if (id >= q->slot_count || !q->in_flight[id]) {
            q->bad_used++;
            continue;
        }
        q->in_flight[id] = false;
        q->free_ids[q->free_count++] = (uint16_t)id;
        taken++;
    }
    return taken;
}

/* Fills one free slot with up to slot_bytes and puts its descriptor in
 * the next available-ring entry (not yet published). */
static size_t queue_one(struct virtq *q, const uint8_t *bytes, size_t len)
{
    uint16_t id = q->free_ids[--q->free_count];
    uint8_t *slot = q->slots + (size_t)id * q->slot_bytes;
    size_t n = len < q->slot_bytes ? len : q->slot_bytes;

    memcpy(slot, bytes, n);
    q->desc[id] = (struct virtq_desc){ .addr = (uint64_t)(uintptr_t)slot,
                                       .len = (uint32_t)n, .flags = 0, .next = 0 };
    q->in_flight[id] = true;
    q->avail->ring[virtq_ring_slot(q->next_avail, q->size)] = id;
    q->next_avail++;
    return n;
}

size_t virtq_send(struct virtq *q, const uint8_t *bytes, size_t len)
{
    size_t sent = 0;

    while (sent < len && q->free_count)
        sent += queue_one(q, bytes + sent, len - sent);
    if (sent)
        __atomic_store_n(&q->avail->idx, q->next_avail, __ATOMIC_RELEASE);
    return sent;
}
