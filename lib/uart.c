/* 16550 UART, polled. Register layout: PC16550D data sheet / the classic
 * PC COM port map (THR/RBR +0, IER +1, FCR +2, LCR +3, MCR +4, LSR +5,
 * SCR +7; DLL/DLM at +0/+1 while LCR.DLAB is set). */
#include "lib/uart.h"

#include "lib/cpu.h"

#define UART_THR 0
#define UART_IER 1
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define UART_SCR 7
#define UART_DLL 0
#define UART_DLM 1

#define LCR_8N1     0x03
#define LCR_DLAB    0x80
#define FCR_ENABLE_CLEAR 0x07
#define MCR_DTR_RTS_OUT2 0x0b
#define LSR_THR_EMPTY 0x20

#define UART_DIVISOR_115200 1
#define UART_TX_SPIN_LIMIT  100000

bool uart_init(uint16_t port)
{
    outb(port + UART_SCR, 0x5a);
    if (inb(port + UART_SCR) != 0x5a)
        return false;
    outb(port + UART_IER, 0);
    outb(port + UART_LCR, LCR_DLAB);
    outb(port + UART_DLL, UART_DIVISOR_115200);
    outb(port + UART_DLM, 0);
    outb(port + UART_LCR, LCR_8N1);
    outb(port + UART_FCR, FCR_ENABLE_CLEAR);
    outb(port + UART_MCR, MCR_DTR_RTS_OUT2);
    return true;
}

bool uart_tx_empty(uint16_t port)
{
    return (inb(port + UART_LSR) & LSR_THR_EMPTY) != 0;
}

void uart_put_nowait(uint16_t port, uint8_t byte)
{
    outb(port + UART_THR, byte);
}

void uart_putc(uint16_t port, char c)
{
    for (int spin = 0; spin < UART_TX_SPIN_LIMIT; spin++) {
        if (uart_tx_empty(port))
            break;
        cpu_relax();
    }
    uart_put_nowait(port, (uint8_t)c);
}
