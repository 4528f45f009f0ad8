/* Log drain devices (vmm/log/log_drain.h). UART registers: PC16550D data
 * sheet (THR +0, LSR +5; LSR bit 5 "THR empty" means the whole transmit
 * FIFO is free when FIFOs are on, as uart_init programs them). */
#include "vmm/log/log_drain.h"

#include "lib/cpu.h"
#include "lib/cmdline.h"
#include "lib/mem.h"
#include "lib/uart.h"
#include "vmm/log/virtio_console.h"

#define UART_LSR            5
#define LSR_TX_IDLE         0x40    /* FIFO and shift register empty */
#define UART_DRAIN_SPIN_LIMIT 10000000u
#define UART_PORT_LIMIT     0xfff8u
#define SERIAL_PREFIX       "serial,"

static bool parse_uart_port(const char *text, uint16_t *port)
{
    uint64_t value;

    if (strcmp(text, "com1") == 0) {
        *port = LOG_DRAIN_COM1_PORT;
        return true;
    }
    if (strcmp(text, "com2") == 0) {
        *port = LOG_DRAIN_COM2_PORT;
        return true;
    }
    if (!cmdline_parse_u64(text, &value) || value == 0 || value >= UART_PORT_LIMIT)
        return false;
    *port = (uint16_t)value;
    return true;
}

bool log_drain_parse(const char *value, struct log_drain *out)
{
    size_t prefix = sizeof(SERIAL_PREFIX) - 1;
    uint16_t port;

    if (strcmp(value, "none") == 0) {
        *out = (struct log_drain){ LOG_DRAIN_NONE, 0 };
        return true;
    }
    if (strcmp(value, "e9") == 0) {
        *out = (struct log_drain){ LOG_DRAIN_E9, LOG_DRAIN_E9_PORT };
        return true;
    }
    if (strcmp(value, "virtio") == 0) {
        *out = (struct log_drain){ LOG_DRAIN_VIRTIO, 0 };
        return true;
    }
    if (strcmp(value, "serial") == 0) {
        *out = (struct log_drain){ LOG_DRAIN_SERIAL, LOG_DRAIN_COM2_PORT };
        return true;
    }
    if (strncmp(value, SERIAL_PREFIX, prefix) == 0 && parse_uart_port(value + prefix, &port)) {
        *out = (struct log_drain){ LOG_DRAIN_SERIAL, port };
        return true;
    }
    return false;
}

static enum virtio_console_status virtio_status = VIRTIO_CONSOLE_NOT_FOUND;

bool log_drain_open(const struct log_drain *d)
{
    if (d->kind == LOG_DRAIN_SERIAL)
        return uart_init(d->port);
    if (d->kind == LOG_DRAIN_VIRTIO) {
        virtio_status = virtio_console_open();
        return virtio_status == VIRTIO_CONSOLE_OK;
    }
    return d->kind == LOG_DRAIN_E9;
}

const char *log_drain_open_error(const struct log_drain *d)
{
    if (d->kind == LOG_DRAIN_VIRTIO)
        return virtio_console_strerror(virtio_status);
    if (d->kind == LOG_DRAIN_SERIAL)
        return "no UART answers at the log's port";
    return "no such log device";
}

static void e9_write(uint16_t port, const uint8_t *bytes, size_t len)
{
    __asm__ volatile("rep outsb" : "+S"(bytes), "+c"(len) : "d"(port) : "memory");
}

size_t log_drain_write_some(const struct log_drain *d, const uint8_t *bytes, size_t len)
{
    switch (d->kind) {
    case LOG_DRAIN_E9:
        e9_write(d->port, bytes, len);
        return len;
    case LOG_DRAIN_SERIAL:
        if (!uart_tx_empty(d->port))
            return 0;
        if (len > UART_TX_FIFO_BYTES)
            len = UART_TX_FIFO_BYTES;
        for (size_t i = 0; i < len; i++)
            uart_put_nowait(d->port, bytes[i]);
        return len;
    case LOG_DRAIN_VIRTIO:
        return virtio_console_write_some(bytes, len);
    default:
        return len;     /* no device: the bytes go nowhere */
    }
}

void log_drain_write_all(const struct log_drain *d, const uint8_t *bytes, size_t len)
{
    if (d->kind == LOG_DRAIN_VIRTIO) {
        virtio_console_write_all(bytes, len);
        return;
    }
    if (d->kind != LOG_DRAIN_SERIAL) {
        log_drain_write_some(d, bytes, len);
        return;
    }
    for (size_t i = 0; i < len; i++)
        uart_putc(d->port, (char)bytes[i]);   /* binary: no CR insertion */
    /* The machine may stop next: wait (bounded) until the last byte has
     * left the shift register, or an emulator drops the FIFO's bytes. */
    for (uint32_t spin = 0; spin < UART_DRAIN_SPIN_LIMIT; spin++) {
        if (inb(d->port + UART_LSR) & LSR_TX_IDLE)
            break;
        cpu_relax();
    }
}

const char *log_drain_name(enum log_drain_kind kind)
{
    switch (kind) {
    case LOG_DRAIN_E9: return "e9";
    case LOG_DRAIN_SERIAL: return "serial";
    case LOG_DRAIN_VIRTIO: return "virtio";
    default: return "none";
    }
}
