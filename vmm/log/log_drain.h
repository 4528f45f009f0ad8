/* Log drain devices: where the bytes of the binary log stream go. The
 * debug port 0xE9 (Bochs port_e9_hack, QEMU -debugcon: takes any number
 * of bytes at once) or a polled 16550 UART that the guest does not own
 * (takes a FIFO's worth when its transmitter is empty), or a virtio
 * console on PCI under QEMU (vmm/log/virtio_console.h: takes what fits in its
 * free transmit slots). Chosen by the hypervisor command line option
 * log= (docs/log-format.md, "Drains"). */
#ifndef VMM_LOG_DRAIN_H
#define VMM_LOG_DRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum log_drain_kind {
    LOG_DRAIN_NONE,     /* no log: records are not even produced */
    LOG_DRAIN_E9,       /* debug port 0xE9 */
    LOG_DRAIN_SERIAL,   /* polled UART at port */
    LOG_DRAIN_VIRTIO,   /* virtio console on PCI (port unused: 0) */
};

struct log_drain {
    enum log_drain_kind kind;
    uint16_t port;      /* I/O port written: 0xE9 or the UART's base */
};

#define LOG_DRAIN_E9_PORT      0xe9
#define LOG_DRAIN_COM1_PORT    0x3f8
#define LOG_DRAIN_COM2_PORT    0x2f8
#define LOG_DRAIN_UART_PORTS   8u       /* registers of one 16550 */

/* Parses the value of log=: "none", "e9", "virtio", "serial" (COM2), or
 * "serial,PORT" with PORT "com1", "com2" or a number below 0xFFF8.
 * Returns false (out untouched) for anything else. */
bool log_drain_parse(const char *value, struct log_drain *out);

/* Prepares the device (programs the UART, sets up the virtio console).
 * Returns false if it does not answer; the caller then runs without a
 * log, printing log_drain_open_error(). */
bool log_drain_open(const struct log_drain *d);

/* Why the last log_drain_open(d) failed, as text for a warning. */
const char *log_drain_open_error(const struct log_drain *d);

/* Writes up to len bytes without waiting for the device and returns how
 * many it took (0 when a UART's transmitter is still busy or the virtio
 * transmit queue is full). Bounded work: at most len port writes, or one
 * pass over the virtio queue. */
size_t log_drain_write_some(const struct log_drain *d, const uint8_t *bytes, size_t len);

/* Writes all len bytes, waiting (bounded per byte) for the device, and
 * for a UART until its transmitter is idle. For the final flush, where
 * latency no longer matters. */
void log_drain_write_all(const struct log_drain *d, const uint8_t *bytes, size_t len);

/* Short name of the drain ("none", "e9", "serial", "virtio"). */
const char *log_drain_name(enum log_drain_kind kind);

#endif
