/* A virtual 16550A UART for a domain's console (COM1, ports 0x3f8-0x3ff):
 * the registers Linux's 8250 driver probes and drives (DLAB divisor
 * latch, IER, IIR/FCR with the 16550A's FIFO bits, LCR, MCR with
 * loopback, LSR, MSR, SCR). Every transmitted byte goes at once to the
 * output callback (THR and the transmitter are always empty); nothing is
 * ever received except in loopback mode, where written bytes land in the
 * 16-byte receive FIFO as on the chip. No interrupt line is wired: the
 * driver finds the port without an IRQ and polls it. Portable: the I/O
 * exit handler calls vuart16550_read/vuart16550_write for owned ports. */
#ifndef VMM_VUART16550_H
#define VMM_VUART16550_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VUART_COM1_BASE   0x3f8
#define VUART_PORT_COUNT  8
#define VUART_FIFO_BYTES  16

/* Register offsets from the base (DLAB = LCR bit 7 selects DLL/DLM). */
enum vuart_reg {
    VUART_RBR_THR_DLL = 0,
    VUART_IER_DLM = 1,
    VUART_IIR_FCR = 2,
    VUART_LCR = 3,
    VUART_MCR = 4,
    VUART_LSR = 5,
    VUART_MSR = 6,
    VUART_SCR = 7,
};

#define VUART_LCR_DLAB    0x80
#define VUART_MCR_LOOP    0x10
#define VUART_LSR_DR      0x01
#define VUART_LSR_OE      0x02
#define VUART_LSR_THRE    0x20
#define VUART_LSR_TEMT    0x40
#define VUART_IIR_NO_INT  0x01
#define VUART_IIR_THRI    0x02
#define VUART_IIR_RDI     0x04
#define VUART_IIR_RLSI    0x06
#define VUART_IIR_FIFOS   0xc0
#define VUART_IER_RDI     0x01
#define VUART_IER_THRI    0x02
#define VUART_IER_RLSI    0x04
#define VUART_FCR_ENABLE  0x01
#define VUART_FCR_CLEAR_RX 0x02

/* Receives each byte the guest transmits (outside loopback mode), one
 * byte a call; the shape of domain_console_output, which a domain passes
 * with itself as ctx. The result is not used. */
typedef int64_t (*vuart_output_fn)(void *ctx, const char *text, size_t len);

struct vuart16550 {
    uint16_t base;
    uint8_t ier, lcr, mcr, scr, fcr;
    uint16_t divisor;
    bool thre_pending;          /* THR-empty interrupt not yet taken by an IIR read */
    bool overrun;
    uint8_t rx[VUART_FIFO_BYTES];
    unsigned int rx_head, rx_count;
    vuart_output_fn output;
    void *output_ctx;
};

/* Reset state at I/O base `base` (VUART_COM1_BASE for COM1): divisor 12
 * (9600 baud), FIFOs off, every interrupt disabled. */
void vuart16550_init(struct vuart16550 *u, uint16_t base, vuart_output_fn output,
                     void *output_ctx);

/* True for the 8 ports of this UART. */
bool vuart16550_owns_port(const struct vuart16550 *u, uint16_t port);

/* A one-byte IN from owned port `port`. Reads have the chip's side
 * effects (RBR pops the FIFO, IIR takes the THR-empty interrupt, LSR
 * clears overrun). */
uint8_t vuart16550_read(struct vuart16550 *u, uint16_t port);

/* A one-byte OUT to owned port `port`. */
void vuart16550_write(struct vuart16550 *u, uint16_t port, uint8_t value);

/* The UART's interrupt output as the PC wires it (an interrupt is
 * identified and MCR.OUT2 is set); for a caller that routes it. */
bool vuart16550_irq_pending(const struct vuart16550 *u);

#endif
