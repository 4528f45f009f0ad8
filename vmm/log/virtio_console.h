/* Vertigo's own virtio console (QEMU's virtio-serial-pci with a
 * virtconsole on port 0) as a write-only log device, driven through the
 * legacy I/O-BAR interface (virtio 1.x, 4.1.4.8 "Legacy Interfaces: A
 * Note on PCI Device Layout"; virtio 0.9.5 layout). No features are
 * negotiated (no MULTIPORT), so port 0's transmit queue is queue 1. The
 * queue and its data slots live in Vertigo's .bss, never mapped to a
 * guest; vmx/io_policy.c hides the device's configuration space and
 * I/O BAR from guests. Boot CPU opens it; writers are serialized by the
 * log drain (vmm/log/log_hv.c). */
#ifndef VMM_VIRTIO_CONSOLE_H
#define VMM_VIRTIO_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/log/pci.h"

enum virtio_console_status {
    VIRTIO_CONSOLE_OK,
    VIRTIO_CONSOLE_NOT_FOUND,       /* no virtio console function on PCI */
    VIRTIO_CONSOLE_NO_IO_BAR,       /* BAR0 is not an assigned I/O BAR */
    VIRTIO_CONSOLE_NO_QUEUE,        /* transmit queue missing or unusable size */
    VIRTIO_CONSOLE_DEVICE_FAILED,   /* device refused DRIVER_OK */
};

/* Where the device is, for hiding it from guests. */
struct virtio_console_hw {
    struct pci_bdf bdf;
    uint16_t device_id;
    uint16_t io_base;       /* legacy register block (BAR0) */
    uint16_t io_size;
    uint16_t queue_size;    /* entries of the transmit queue */
};

/* Finds the device (vendor 0x1AF4, transitional console ID 0x1003),
 * enables its I/O decoding and bus mastering with INTx off, resets it,
 * negotiates no features and sets up port 0's transmit queue. Call once,
 * on the boot CPU, before guests run. */
enum virtio_console_status virtio_console_open(void);

/* Text for a status ("no virtio console on PCI" ...). */
const char *virtio_console_strerror(enum virtio_console_status status);

/* True after a successful open; *out tells where the device is. */
bool virtio_console_device(struct virtio_console_hw *out);

/* Reclaims finished buffers, queues up to len bytes into free slots and
 * notifies the device. Returns the bytes taken: 0 when the queue is full
 * (try again later; nothing is dropped). Bounded: at most one pass over
 * the queue. */
size_t virtio_console_write_some(const uint8_t *bytes, size_t len);

/* Queues all len bytes, waiting (bounded) for the device to free slots,
 * then waits (bounded) until it has used every buffer. For the final
 * flush. */
void virtio_console_write_all(const uint8_t *bytes, size_t len);

#endif
