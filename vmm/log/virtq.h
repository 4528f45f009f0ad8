/* A split virtqueue driven by Vertigo as a transmit-only driver, in the
 * legacy memory layout (virtio 1.x, 2.7 "Split Virtqueues" and 4.1.5.1.x
 * "Legacy Interfaces: A Note on Virtqueue Layout"): descriptor table,
 * then the available ring, then the used ring at the next 4096-byte
 * boundary, all in one physically contiguous area. Portable: the host
 * tests drive it with a simulated device.
 *
 * Each descriptor owns one fixed data slot; virtq_send copies bytes into
 * free slots so the caller's buffer can be reused at once. Descriptor
 * addresses are the slots' addresses, which are physical in the
 * hypervisor (identity-mapped) and host pointers in tests. */
#ifndef VMM_VIRTQ_H
#define VMM_VIRTQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VIRTQ_LEGACY_ALIGN        4096u
#define VIRTQ_MAX_SIZE            1024u      /* largest queue this driver sets up */
#define VIRTQ_AVAIL_F_NO_INTERRUPT 1u        /* driver asks for no used-buffer interrupts */

struct virtq_desc {
    uint64_t addr;      /* guest-physical address of the buffer */
    uint32_t len;
    uint16_t flags;     /* NEXT 1, WRITE 2 (device-writable), INDIRECT 4 */
    uint16_t next;
};

struct virtq_avail {
    uint16_t flags;
    uint16_t idx;       /* free-running: where the driver puts the next entry */
    uint16_t ring[];    /* then used_event (unused: EVENT_IDX not negotiated) */
};

struct virtq_used_elem {
    uint32_t id;        /* head descriptor of the buffer the device finished */
    uint32_t len;       /* bytes the device wrote into it (0 for transmit) */
};

struct virtq_used {
    uint16_t flags;
    uint16_t idx;       /* free-running: how many entries the device completed */
    struct virtq_used_elem ring[];
};

_Static_assert(sizeof(struct virtq_desc) == 16, "virtio descriptor layout");
_Static_assert(sizeof(struct virtq_used_elem) == 8, "virtio used element layout");

/* Bytes of descriptor table + available ring, and the used ring's offset
 * and the total area for a queue of `size` entries (legacy layout). */
size_t virtq_used_offset(uint16_t size);
size_t virtq_legacy_bytes(uint16_t size);

/* Storage large enough for the largest queue, for static buffers. */
#define VIRTQ_LEGACY_BYTES_MAX (8u * VIRTQ_LEGACY_ALIGN)

/* Ring position of a free-running index (size is a power of two). */
static inline uint16_t virtq_ring_slot(uint16_t idx, uint16_t size)
{
    return (uint16_t)(idx & (size - 1u));
}

struct virtq {
    uint16_t size;                  /* entries, a power of two */
    uint16_t slot_count;            /* descriptors in use: min(size, slots given) */
    uint32_t slot_bytes;
    uint8_t *slots;                 /* slot_count * slot_bytes */
    struct virtq_desc *desc;
    struct virtq_avail *avail;
    struct virtq_used *used;
    uint16_t next_avail;            /* private copy of avail->idx */
    uint16_t last_used;             /* used->idx consumed by virtq_reclaim */
    uint16_t free_count;
    uint16_t free_ids[VIRTQ_MAX_SIZE];
    bool in_flight[VIRTQ_MAX_SIZE];
    uint32_t bad_used;              /* used entries naming no buffer in flight */
};

/* Lays the queue out in ring_mem (ring_bytes long, 4096-aligned, zeroed
 * here) for a device queue of `size` entries and gives the first
 * min(size, slot_count) descriptors one slot of slot_bytes each. Asks the
 * device for no interrupts. Returns false if size is 0, not a power of
 * two or above VIRTQ_MAX_SIZE, if ring_mem is too small or misaligned,
 * or if there are no slots. */
bool virtq_init(struct virtq *q, void *ring_mem, size_t ring_bytes, uint16_t size,
                uint8_t *slots, uint16_t slot_count, uint32_t slot_bytes);

/* Takes back the buffers the device has finished (at most the number in
 * flight: bounded work). Returns how many. */
unsigned int virtq_reclaim(struct virtq *q);

/* Copies up to len bytes into free slots, one descriptor per slot, and
 * makes them available to the device (release ordering before the index
 * update). Returns the bytes queued: 0 when every slot is in flight (try
 * again after the device has used some). The caller notifies the device
 * when this returns more than 0. */
size_t virtq_send(struct virtq *q, const uint8_t *bytes, size_t len);

/* Buffers made available and not yet returned by the device. */
uint16_t virtq_in_flight(const struct virtq *q);

#endif
