/* Owned I/O ports (see vmx/io_policy.h). Ports the guest may still use
 * (keyboard controller status, reset control, ACPI PM1 control) are read
 * and written on its behalf; only the writes that would reset or power
 * off the machine are turned into the end of the guest, so Vertigo can
 * print its statistics and give the run its verdict. */
#include "vmx/io_policy.h"

#include "boot/cpu.h"
#include "vmm/console.h"
#include "vmm/domain.h"
#include "vmm/log_hv.h"

#define PORT_KBD_COMMAND   0x64
#define KBD_CMD_RESET      0xfe
#define PORT_SYS_CTRL_A    0x92     /* bit 0 fast reset, bit 1 A20 */
#define SYS_CTRL_A_RESET   0x01
#define SYS_CTRL_A_A20     0x02
#define PORT_DEBUGCON      0xe9
#define PORT_QEMU_EXIT     0xf4
#define PORT_RESET_CONTROL 0xcf9
#define RESET_CONTROL_RST  0x04
#define PORT_BOCHS_SHUTDOWN 0x8900
#define PM1_SLP_EN         0x2000
#define UART_PORTS         8

static uint16_t owned_uart, owned_pm1a, owned_pm1b;

void io_policy_init(uint16_t uart_port, uint16_t pm1a_cnt, uint16_t pm1b_cnt)
{
    owned_uart = uart_port;
    owned_pm1a = pm1a_cnt;
    owned_pm1b = pm1b_cnt;
}

static void intercept(uint8_t *a, uint8_t *b, uint32_t port, uint32_t count)
{
    for (uint32_t p = port; p < port + count && p <= 0xffff; p++) {
        uint8_t *bitmap = p < 0x8000 ? a : b;
        uint32_t index = p & 0x7fff;
        bitmap[index / 8] |= (uint8_t)(1u << (index % 8));
    }
}

void io_policy_fill_bitmaps(uint8_t *a, uint8_t *b)
{
    intercept(a, b, PORT_KBD_COMMAND, 1);
    intercept(a, b, PORT_SYS_CTRL_A, 1);
    intercept(a, b, PORT_DEBUGCON, 1);
    intercept(a, b, PORT_QEMU_EXIT, 4);
    intercept(a, b, PORT_RESET_CONTROL, 1);
    intercept(a, b, PORT_BOCHS_SHUTDOWN, 1);
    if (owned_uart)
        intercept(a, b, owned_uart, UART_PORTS);
    struct log_drain log = log_hv_drain();
    if (log.kind == LOG_DRAIN_SERIAL)
        intercept(a, b, log.port, LOG_DRAIN_UART_PORTS);   /* the log's UART */
    if (owned_pm1a)
        intercept(a, b, owned_pm1a, 2);
    if (owned_pm1b)
        intercept(a, b, owned_pm1b, 2);
}

static uint32_t port_in(uint16_t port, unsigned int size)
{
    if (size == 1)
        return inb(port);
    if (size == 2)
        return inw(port);
    return inl(port);
}

static void port_out(uint16_t port, unsigned int size, uint32_t value)
{
    if (size == 1)
        outb(port, (uint8_t)value);
    else if (size == 2)
        outw(port, (uint16_t)value);
    else
        outl(port, value);
}

static bool is_pm1_control(uint16_t port)
{
    return (owned_pm1a && port == owned_pm1a) || (owned_pm1b && port == owned_pm1b);
}

/* Ends the guest on writes that reset or power off the machine. */
static void end_guest_if_requested(struct vcpu *v, uint16_t port, uint32_t value)
{
    if (port == PORT_KBD_COMMAND && (value & 0xff) == KBD_CMD_RESET)
        domain_end(v->domain, GUEST_END_RESET, "keyboard-controller reset");
    if (port == PORT_SYS_CTRL_A && (value & SYS_CTRL_A_RESET))
        domain_end(v->domain, GUEST_END_RESET, "fast reset through port 0x92");
    if (port == PORT_RESET_CONTROL && (value & RESET_CONTROL_RST))
        domain_end(v->domain, GUEST_END_RESET, "reset through port 0xcf9");
    if (is_pm1_control(port) && (value & PM1_SLP_EN))
        domain_end(v->domain, GUEST_END_POWER_OFF, "ACPI sleep/power-off request");
}

/* True if Vertigo intercepts `port` itself (not just a neighbour). */
static bool owned(uint16_t port)
{
    return port == PORT_KBD_COMMAND || port == PORT_SYS_CTRL_A || port == PORT_DEBUGCON ||
           (port >= PORT_QEMU_EXIT && port < PORT_QEMU_EXIT + 4) ||
           port == PORT_RESET_CONTROL || port == PORT_BOCHS_SHUTDOWN ||
           (owned_uart && port >= owned_uart && port < owned_uart + UART_PORTS) ||
           is_pm1_control(port);
}

void io_policy_access(struct vcpu *v, uint16_t port, unsigned int size, int is_in,
                      uint32_t *value)
{
    /* A wide access exits if any port it touches is intercepted (SDM Vol.
     * 3C 26.1.3): a 32-bit access to PCI's 0xcf8 covers 0xcf9. An access
     * that starts on a port the guest owns is the guest's. */
    bool guest_may_use = !owned(port) || port == PORT_KBD_COMMAND ||
                         port == PORT_RESET_CONTROL || is_pm1_control(port);
    if (is_in) {
        if (guest_may_use)
            *value = port_in(port, size);
        else if (port == PORT_SYS_CTRL_A)
            *value = SYS_CTRL_A_A20;            /* A20 always on */
        else
            *value = 0xffffffffu;               /* nothing there for the guest */
        return;
    }
    end_guest_if_requested(v, port, *value);
    if (guest_may_use)
        port_out(port, size, *value);
    /* Writes to Vertigo's console, exit ports and A20 are dropped: a guest
     * must not end the run behind Vertigo's back or mask A20 for it. */
}
