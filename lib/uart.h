/* Polled 16550 UART driver (no interrupts, no FIFO tricks). */
#ifndef LIB_UART_H
#define LIB_UART_H

#include <stdbool.h>
#include <stdint.h>

/* Programs 115200 8N1 with FIFOs on; returns false if no UART answers at
 * `port` (scratch-register test), in which case nothing is written. */
bool uart_init(uint16_t port);

/* Writes one byte, waiting (bounded) for the transmit holding register. */
void uart_putc(uint16_t port, char c);

#endif
