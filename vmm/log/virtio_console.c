/* Legacy virtio-PCI console driver, transmit only (vmm/log/virtio_console.h).
 * Legacy register block in BAR0 (virtio 1.x, 4.1.4.8): device features
 * +0x00, driver features +0x04, queue PFN +0x08, queue size +0x0C, queue
 * select +0x0E, queue notify +0x10, device status +0x12, ISR +0x13.
 * Initialization order: virtio 1.x, 3.1.2 "Legacy Interface: Device
 * Initialization" (reset, ACKNOWLEDGE, DRIVER, features, queues,
 * DRIVER_OK). */
#include "vmm/log/virtio_console.h"

#include "lib/cpu.h"
#include "vmm/log/virtq.h"

#define VIRTIO_VENDOR               0x1af4
#define VIRTIO_ID_CONSOLE_LEGACY    0x1003  /* transitional console */

#define VIRTIO_REG_DEVICE_FEATURES  0x00
#define VIRTIO_REG_DRIVER_FEATURES  0x04
#define VIRTIO_REG_QUEUE_PFN        0x08
#define VIRTIO_REG_QUEUE_SIZE       0x0c
#define VIRTIO_REG_QUEUE_SELECT     0x0e
#define VIRTIO_REG_QUEUE_NOTIFY     0x10
#define VIRTIO_REG_STATUS           0x12
#define VIRTIO_LEGACY_REGS          0x14    /* registers before device config */
#define VIRTIO_PFN_SHIFT            12      /* legacy queue address unit: 4096 bytes */

#define VIRTIO_STATUS_RESET         0x00
#define VIRTIO_STATUS_ACKNOWLEDGE   0x01
#define VIRTIO_STATUS_DRIVER        0x02
#define VIRTIO_STATUS_DRIVER_OK     0x04
#define VIRTIO_STATUS_NEEDS_RESET   0x40
#define VIRTIO_STATUS_FAILED        0x80

#define CONSOLE_PORT0_TRANSMITQ     1       /* receiveq 0, transmitq 1 without MULTIPORT */
#define TX_SLOT_BYTES               1024u
#define TX_SLOTS                    32u
#define WAIT_SPIN_LIMIT             10000000u

static uint8_t queue_mem[VIRTQ_LEGACY_BYTES_MAX] __attribute__((aligned(VIRTQ_LEGACY_ALIGN)));
static uint8_t slot_mem[TX_SLOTS * TX_SLOT_BYTES] __attribute__((aligned(64)));
static struct virtq txq;
static struct virtio_console_hw hw;
static bool ready;

static void status_set(uint8_t bits)
{
    uint16_t port = (uint16_t)(hw.io_base + VIRTIO_REG_STATUS);
    outb(port, (uint8_t)(inb(port) | bits));
}

static bool find_device(void)
{
    static const uint16_t ids[] = { VIRTIO_ID_CONSOLE_LEGACY };
    return pci_find_device(VIRTIO_VENDOR, ids, sizeof(ids) / sizeof(ids[0]), &hw.bdf,
                           &hw.device_id);
}

/* I/O decoding and bus mastering on (the device reads our queue by DMA),
 * legacy interrupts off: we poll, and a raised INTx line could be shared
 * with a guest's device. */
static void enable_device(void)
{
    uint16_t command = pci_config_read16(hw.bdf, PCI_CFG_COMMAND);
    command |= PCI_COMMAND_IO | PCI_COMMAND_MASTER | PCI_COMMAND_INTX_DISABLE;
    pci_config_write16(hw.bdf, PCI_CFG_COMMAND, command);
}

static bool setup_transmit_queue(void)
{
    outw((uint16_t)(hw.io_base + VIRTIO_REG_QUEUE_SELECT), CONSOLE_PORT0_TRANSMITQ);
    hw.queue_size = inw((uint16_t)(hw.io_base + VIRTIO_REG_QUEUE_SIZE));
    if (!virtq_init(&txq, queue_mem, sizeof(queue_mem), hw.queue_size, slot_mem, TX_SLOTS,
                    TX_SLOT_BYTES))
        return false;
    /* Vertigo is identity-mapped: the .bss address is physical. */
    outl((uint16_t)(hw.io_base + VIRTIO_REG_QUEUE_PFN),
         (uint32_t)((uintptr_t)queue_mem >> VIRTIO_PFN_SHIFT));
    return true;
}

enum virtio_console_status virtio_console_open(void)
{
    if (!find_device())
        return VIRTIO_CONSOLE_NOT_FOUND;
    if (!pci_io_bar(hw.bdf, PCI_CFG_BAR0, &hw.io_base, &hw.io_size) ||
        hw.io_size < VIRTIO_LEGACY_REGS)
        return VIRTIO_CONSOLE_NO_IO_BAR;
    enable_device();
    outb((uint16_t)(hw.io_base + VIRTIO_REG_STATUS), VIRTIO_STATUS_RESET);
    status_set(VIRTIO_STATUS_ACKNOWLEDGE);
    status_set(VIRTIO_STATUS_DRIVER);
    (void)inl((uint16_t)(hw.io_base + VIRTIO_REG_DEVICE_FEATURES));
    outl((uint16_t)(hw.io_base + VIRTIO_REG_DRIVER_FEATURES), 0);  /* no MULTIPORT */
    if (!setup_transmit_queue()) {
        status_set(VIRTIO_STATUS_FAILED);
        return VIRTIO_CONSOLE_NO_QUEUE;
    }
    status_set(VIRTIO_STATUS_DRIVER_OK);
    uint8_t status = inb((uint16_t)(hw.io_base + VIRTIO_REG_STATUS));
    if (!(status & VIRTIO_STATUS_DRIVER_OK) ||
        (status & (VIRTIO_STATUS_FAILED | VIRTIO_STATUS_NEEDS_RESET)))
        return VIRTIO_CONSOLE_DEVICE_FAILED;
    ready = true;
    return VIRTIO_CONSOLE_OK;
}

const char *virtio_console_strerror(enum virtio_console_status status)
{
    switch (status) {
    case VIRTIO_CONSOLE_OK: return "ok";
    case VIRTIO_CONSOLE_NOT_FOUND:
        return "no virtio console on PCI (vendor 0x1af4, device 0x1003)";
    case VIRTIO_CONSOLE_NO_IO_BAR: return "virtio console has no usable I/O BAR0";
    case VIRTIO_CONSOLE_NO_QUEUE: return "virtio console transmit queue missing or too large";
    case VIRTIO_CONSOLE_DEVICE_FAILED: return "virtio console refused DRIVER_OK";
    }
    return "unknown virtio console error";
}

bool virtio_console_device(struct virtio_console_hw *out)
{
    if (ready)
        *out = hw;
    return ready;
}

static void notify(void)
{
    /* Ring writes must be visible before the device looks; an OUT also
     * waits for buffered writes to drain (SDM Vol. 1, 19.6 "Ordering I/O"). */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    outw((uint16_t)(hw.io_base + VIRTIO_REG_QUEUE_NOTIFY), CONSOLE_PORT0_TRANSMITQ);
}

size_t virtio_console_write_some(const uint8_t *bytes, size_t len)
{
    if (!ready)
        return len;
    virtq_reclaim(&txq);
    size_t sent = virtq_send(&txq, bytes, len);
    if (sent)
        notify();
    return sent;
}

void virtio_console_write_all(const uint8_t *bytes, size_t len)
{
    size_t done = 0;

    for (uint32_t spin = 0; ready && done < len && spin < WAIT_SPIN_LIMIT; spin++) {
        size_t n = virtio_console_write_some(bytes + done, len - done);
        done += n;
        if (!n)
            cpu_relax();
    }
    /* The machine may stop next: let the device take every buffer. */
    for (uint32_t spin = 0; ready && spin < WAIT_SPIN_LIMIT; spin++) {
        virtq_reclaim(&txq);
        if (!virtq_in_flight(&txq))
            break;
        cpu_relax();
    }
}
