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

/* Queued output (a domain's console lines, vmm/console/console_drain.h) goes out
 * one line at a time without waiting: the line in flight is written as
 * the channels take it, a UART transmit FIFO's worth per con_poll when
 * every serial console's FIFO is empty (all of it at once when there is
 * no serial console), so a slow UART costs root mode no waiting. printk
 * and con_write_line finish the line in flight before their own text
 * (at most CON_LINE_MAX bytes), so lines never mix. */
#define CON_LINE_MAX 256u

/* True when some channel shows text (a serial console, the debug port, a
 * screen): else queued lines would go nowhere. */
bool con_has_channel(void);

/* Takes one line (len <= CON_LINE_MAX bytes, its newline included) into
 * flight and writes what the channels take of it now. False, and nothing
 * taken, while another line is in flight or another CPU holds the
 * console: never waits. */
bool con_start_line(const char *line, size_t len);

/* Writes what the channels take now of the line in flight; never waits.
 * True while a line is still in flight. */
bool con_poll(void);

/* Writes the rest of the line in flight, waiting for the UARTs (the end
 * of the run). */
void con_finish_line(void);

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
