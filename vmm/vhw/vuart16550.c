/* The virtual 16550A UART (register behaviour of the NS16550A data
 * sheet; the probe Linux's 8250 driver makes is replayed in
 * tests/unit/test_vuart16550.c). */
#include "vmm/vhw/vuart16550.h"

#define IER_BITS        0x0f    /* the 16550A has four enables; bits 7:4 read 0 */
#define MCR_BITS        0x1f
#define MCR_DTR         0x01
#define MCR_RTS         0x02
#define MCR_OUT1        0x04
#define MCR_OUT2        0x08
#define MSR_CTS         0x10
#define MSR_DSR         0x20
#define MSR_RI          0x40
#define MSR_DCD         0x80
#define RESET_DIVISOR   12      /* 115200 / 12 = 9600 baud */

void vuart16550_init(struct vuart16550 *u, uint16_t base, vuart_output_fn output,
                     void *output_ctx)
{
    *u = (struct vuart16550){ .base = base, .divisor = RESET_DIVISOR,
                              .output = output, .output_ctx = output_ctx };
}

bool vuart16550_owns_port(const struct vuart16550 *u, uint16_t port)
{
    return port >= u->base && port < u->base + VUART_PORT_COUNT;
}

static bool dlab(const struct vuart16550 *u)
{
    return (u->lcr & VUART_LCR_DLAB) != 0;
}

static bool loopback(const struct vuart16550 *u)
{
    return (u->mcr & VUART_MCR_LOOP) != 0;
}

/* ---- receive FIFO (fed only by loopback) ---- */

static void rx_clear(struct vuart16550 *u)
{
    u->rx_head = 0;
    u->rx_count = 0;
}

/* Without FIFOs the chip holds one byte: a second one overruns it. */
static void rx_push(struct vuart16550 *u, uint8_t byte)
{
    unsigned int depth = (u->fcr & VUART_FCR_ENABLE) ? VUART_FIFO_BYTES : 1;

    if (u->rx_count >= depth) {
        u->overrun = true;
        return;
    }
    u->rx[(u->rx_head + u->rx_count) % VUART_FIFO_BYTES] = byte;
    u->rx_count++;
}

static uint8_t rx_pop(struct vuart16550 *u)
{
    uint8_t byte;

    if (u->rx_count == 0)
        return 0;
    byte = u->rx[u->rx_head];
    u->rx_head = (u->rx_head + 1) % VUART_FIFO_BYTES;
    u->rx_count--;
    return byte;
}

/* ---- interrupt identification ---- */

/* The highest-priority pending source (receiver line status, received
 * data, THR empty; modem status never changes), or VUART_IIR_NO_INT. */
static uint8_t interrupt_id(const struct vuart16550 *u)
{
    if (u->overrun && (u->ier & VUART_IER_RLSI))
        return VUART_IIR_RLSI;
    if (u->rx_count && (u->ier & VUART_IER_RDI))
        return VUART_IIR_RDI;
    if (u->thre_pending && (u->ier & VUART_IER_THRI))
        return VUART_IIR_THRI;
    return VUART_IIR_NO_INT;
}

bool vuart16550_irq_pending(const struct vuart16550 *u)
{
    return interrupt_id(u) != VUART_IIR_NO_INT && (u->mcr & MCR_OUT2);
}

/* ---- reads ---- */

static uint8_t read_iir(struct vuart16550 *u)
{
    uint8_t id = interrupt_id(u);

    if (id == VUART_IIR_THRI)
        u->thre_pending = false;    /* reading IIR takes the THRE interrupt */
    return id | ((u->fcr & VUART_FCR_ENABLE) ? VUART_IIR_FIFOS : 0);
}

static uint8_t read_lsr(struct vuart16550 *u)
{
    uint8_t lsr = VUART_LSR_THRE | VUART_LSR_TEMT;

    if (u->rx_count)
        lsr |= VUART_LSR_DR;
    if (u->overrun)
        lsr |= VUART_LSR_OE;
    u->overrun = false;
    return lsr;
}

/* In loopback the modem inputs are the MCR outputs (RTS -> CTS, DTR ->
 * DSR, OUT1 -> RI, OUT2 -> DCD); otherwise a ready modem (CTS, DSR, DCD)
 * so that no flow control ever holds output back. */
static uint8_t read_msr(const struct vuart16550 *u)
{
    uint8_t msr = 0;

    if (!loopback(u))
        return MSR_CTS | MSR_DSR | MSR_DCD;
    if (u->mcr & MCR_RTS)
        msr |= MSR_CTS;
    if (u->mcr & MCR_DTR)
        msr |= MSR_DSR;
    if (u->mcr & MCR_OUT1)
        msr |= MSR_RI;
    if (u->mcr & MCR_OUT2)
        msr |= MSR_DCD;
    return msr;
}

uint8_t vuart16550_read(struct vuart16550 *u, uint16_t port)
{
    switch ((enum vuart_reg)(port - u->base)) {
    case VUART_RBR_THR_DLL: return dlab(u) ? (uint8_t)u->divisor : rx_pop(u);
    case VUART_IER_DLM:     return dlab(u) ? (uint8_t)(u->divisor >> 8) : u->ier;
    case VUART_IIR_FCR:     return read_iir(u);
    case VUART_LCR:         return u->lcr;
    case VUART_MCR:         return u->mcr;
    case VUART_LSR:         return read_lsr(u);
    case VUART_MSR:         return read_msr(u);
    case VUART_SCR:         return u->scr;
    }
    return 0xff;
}

/* ---- writes ---- */

/* The byte leaves at once: THR is empty again and, with THRI enabled,
 * interrupts as the chip does when the transmitter drains. */
static void transmit(struct vuart16550 *u, uint8_t byte)
{
    if (loopback(u))
        rx_push(u, byte);
    else if (u->output)
        u->output(u->output_ctx, (const char *)&byte, 1);
    u->thre_pending = true;
}

/* Enabling THRI while THR is empty raises the THR-empty interrupt. */
static void write_ier(struct vuart16550 *u, uint8_t value)
{
    uint8_t old = u->ier;

    u->ier = value & IER_BITS;
    if ((u->ier & VUART_IER_THRI) && !(old & VUART_IER_THRI))
        u->thre_pending = true;
}

/* FCR: FIFO enable (a change clears both FIFOs), receiver clear; the
 * transmitter has nothing to clear; trigger levels are kept. */
static void write_fcr(struct vuart16550 *u, uint8_t value)
{
    if ((value ^ u->fcr) & VUART_FCR_ENABLE)
        rx_clear(u);
    if (value & VUART_FCR_CLEAR_RX)
        rx_clear(u);
    u->fcr = value & (VUART_FCR_ENABLE | 0xc0);
}

void vuart16550_write(struct vuart16550 *u, uint16_t port, uint8_t value)
{
    switch ((enum vuart_reg)(port - u->base)) {
    case VUART_RBR_THR_DLL:
        if (dlab(u))
            u->divisor = (uint16_t)((u->divisor & 0xff00) | value);
        else
            transmit(u, value);
        break;
    case VUART_IER_DLM:
        if (dlab(u))
            u->divisor = (uint16_t)((u->divisor & 0x00ff) | (value << 8));
        else
            write_ier(u, value);
        break;
    case VUART_IIR_FCR: write_fcr(u, value); break;
    case VUART_LCR:     u->lcr = value; break;
    case VUART_MCR:     u->mcr = value & MCR_BITS; break;
    case VUART_LSR:     break;      /* factory test register: writes ignored */
    case VUART_MSR:     break;
    case VUART_SCR:     u->scr = value; break;
    }
}
