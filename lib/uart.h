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

#define UART_TX_FIFO_BYTES 16u  /* 16550A transmit FIFO, on since uart_init */

/* True when the transmit FIFO is empty (LSR bit 5): UART_TX_FIFO_BYTES
 * bytes may then be written with uart_put_nowait without waiting. */
bool uart_tx_empty(uint16_t port);

/* Writes one byte to the transmit FIFO without looking at the UART: only
 * within the room uart_tx_empty promised. */
void uart_put_nowait(uint16_t port, uint8_t byte);

#endif
