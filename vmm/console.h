/* Vertigo's text console: formatted output to the serial port chosen on
 * the command line and to the debug port (0xE9) where one exists. */
#ifndef VMM_CONSOLE_H
#define VMM_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct console_config {
    uint16_t uart_port;     /* 0: no serial console */
    bool debug_port;        /* also write to port 0xE9 */
};

/* Selects and initialises the output channels. Before it is called,
 * output goes to COM1 and port 0xE9. */
void con_init(const struct console_config *cfg);

/* Writes raw bytes to every console channel. */
void con_write(const char *s, size_t len);

/* Formatted output (vmm/format.h conversions). Lines from different CPUs
 * are not interleaved mid-line. */
int printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Stops raw text on `port` (0xE9 or the serial console's UART) because
 * the binary profiling log owns it now; other ports are ignored. Console
 * text then reaches that port only inside log records. */
void con_release_port(uint16_t port);

/* Channel currently used for the serial console (0 if none). */
uint16_t con_uart_port(void);

#endif
