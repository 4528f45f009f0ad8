/* Vertigo's text console: formatted output to the serial port chosen on
 * the command line and to the debug port (0xE9) where one exists. */
#ifndef LIB_CONSOLE_H
#define LIB_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CONSOLE_UARTS_MAX 2

struct console_config {
    uint16_t uart_ports[CONSOLE_UARTS_MAX];  /* serial consoles; 0: none */
    bool debug_port;        /* also write to port 0xE9 */
};

/* Selects and initialises the output channels. Before it is called,
 * output goes to COM1 and port 0xE9. */
void con_init(const struct console_config *cfg);

/* Writes raw bytes to every console channel. */
void con_write(const char *s, size_t len);

/* Writes one line "PREFIX TEXT\n" to every console channel, not to the
 * record sink (a domain's console output: the caller logs it itself). */
void con_write_line(const char *prefix, const char *text, size_t len);

/* Formatted output (lib/format.h conversions). Lines from different CPUs
 * are not interleaved mid-line. Each call's text also goes to the record
 * sink, if one is registered. */
int printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Receives the text of every printk call (len bytes, not NUL-terminated)
 * after it was written to the channels, outside the console lock, from
 * any context on any CPU (NMIs included): it must not block. */
typedef void con_record_sink_fn(const char *text, size_t len);

/* Registers the one record sink (the profiling log registers itself at
 * start-up); NULL removes it. Call on the boot CPU before other CPUs
 * print. */
void con_set_record_sink(con_record_sink_fn *sink);

/* Draws one character on the screens (called under the console lock, or
 * from an NMI or exception that interrupted a printk: it must not wait). */
typedef void con_screen_fn(char c);

/* Registers the one screen drawer (the screen console registers itself
 * when a screen opens); NULL removes it. Call on the boot CPU. */
void con_set_screen(con_screen_fn *putc);

/* Stops raw text on `port` (0xE9 or a serial console's UART) because
 * the binary profiling log owns it now; other ports are ignored. Console
 * text then reaches that port only inside log records. */
void con_release_port(uint16_t port);

/* The i-th serial console's UART (i < CONSOLE_UARTS_MAX; 0 if none). */
uint16_t con_uart_port(unsigned int i);

#endif
