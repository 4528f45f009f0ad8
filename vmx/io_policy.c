/* Owned I/O ports (see vmx/io_policy.h). Ports the guest may still use
 * (keyboard controller status, reset control, ACPI PM1 control) are read
 * and written on its behalf; only the writes that would reset or power
 * off the machine are turned into the end of the guest, so Vertigo can
 * print its statistics and give the run its verdict.
 *
 * With the log on a virtio console (log=virtio) the PCI configuration
 * ports are intercepted too: Vertigo keeps a shadow of the guest's
 * CONFIG_ADDRESS (0xCF8) and passes every configuration access through,
 * except data-port accesses while that address selects the log device,
 * which see no device (reads all ones, writes dropped). The device's I/O
 * BAR is Vertigo's like the log UART. The guest serializes its own
 * configuration accesses (one address register for the whole machine),
 * so one shadow serves every VCPU. */
#include "vmx/io_policy.h"

#include "boot/cpu.h"
#include "vmm/console.h"
#include "vmm/domain.h"
#include "vmm/log_hv.h"
#include "vmm/pci.h"
#include "vmm/virtio_console.h"

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

/* The PCI function hidden from guests (the virtio log console). */
static bool pci_hiding;
static struct pci_bdf hidden_bdf;
static uint16_t hidden_io_base, hidden_io_size;
static uint32_t guest_config_address;   /* the guest's CONFIG_ADDRESS */

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

/* Learns which PCI function the log drain owns, if any. */
static void hide_log_device(void)
{
    struct virtio_console_hw hw;

    if (pci_hiding || log_hv_drain().kind != LOG_DRAIN_VIRTIO || !virtio_console_device(&hw))
        return;
    hidden_bdf = hw.bdf;
    hidden_io_base = hw.io_base;
    hidden_io_size = hw.io_size;
    guest_config_address = inl(PCI_PORT_CONFIG_ADDRESS);
    pci_hiding = true;
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
    hide_log_device();
    if (pci_hiding) {
        intercept(a, b, PCI_PORT_CONFIG_ADDRESS, PCI_CONFIG_PORTS);
        intercept(a, b, PCI_PORT_CONFIG_DATA, PCI_CONFIG_PORTS);
        intercept(a, b, hidden_io_base, hidden_io_size);
    }
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

static bool in_range(uint32_t port, uint32_t base, uint32_t count)
{
    return port >= base && port < base + count;
}

/* True if Vertigo intercepts `port` itself (not just a neighbour). */
static bool owned(uint16_t port)
{
    struct log_drain log = log_hv_drain();
    return port == PORT_KBD_COMMAND || port == PORT_SYS_CTRL_A || port == PORT_DEBUGCON ||
           in_range(port, PORT_QEMU_EXIT, 4) ||
           port == PORT_RESET_CONTROL || port == PORT_BOCHS_SHUTDOWN ||
           (owned_uart && in_range(port, owned_uart, UART_PORTS)) ||
           (log.kind == LOG_DRAIN_SERIAL && in_range(port, log.port, LOG_DRAIN_UART_PORTS)) ||
           is_pm1_control(port);
}

/* True if an access of `size` bytes at `port` touches the hidden
 * device's I/O BAR (any byte of it, so a wide access from below the
 * BAR cannot reach in). */
static bool touches_hidden_bar(uint16_t port, unsigned int size)
{
    return pci_hiding && port < hidden_io_base + hidden_io_size &&
           port + size > hidden_io_base;
}

/* PCI configuration mechanism #1 on behalf of the guest. Returns false
 * for the ports it does not handle (0xCF9 reset control and the other
 * byte/word ports of 0xCF8-0xCFB are not CONFIG_ADDRESS). */
static bool pci_config_access(uint16_t port, unsigned int size, int is_in, uint32_t *value)
{
    if (!pci_hiding)
        return false;
    if (port == PCI_PORT_CONFIG_ADDRESS && size == 4) {
        /* Only a dword access is CONFIG_ADDRESS (PCI 3.0, 3.2.2.3.2). */
        if (is_in) {
            *value = guest_config_address;
        } else {
            guest_config_address = *value;
            outl(PCI_PORT_CONFIG_ADDRESS, *value);
        }
        return true;
    }
    if (!in_range(port, PCI_PORT_CONFIG_DATA, PCI_CONFIG_PORTS))
        return false;
    if (pci_config_address_selects(guest_config_address, hidden_bdf)) {
        if (is_in)
            *value = 0xffffffffu;       /* no device: vendor ID 0xffff */
        return true;
    }
    /* Re-latch the guest's address: the hardware register must hold it
     * whatever used 0xCF8 since the guest wrote it. */
    outl(PCI_PORT_CONFIG_ADDRESS, guest_config_address);
    if (is_in)
        *value = port_in(port, size);
    else
        port_out(port, size, *value);
    return true;
}

void io_policy_access(struct vcpu *v, uint16_t port, unsigned int size, int is_in,
                      uint32_t *value)
{
    /* A wide access exits if any port it touches is intercepted (SDM Vol.
     * 3C 26.1.3): a 32-bit access to PCI's 0xcf8 covers 0xcf9. An access
     * that starts on a port the guest owns is the guest's. */
    if (pci_config_access(port, size, is_in, value))
        return;
    bool guest_may_use = (!owned(port) || port == PORT_KBD_COMMAND ||
                          port == PORT_RESET_CONTROL || is_pm1_control(port)) &&
                         !touches_hidden_bar(port, size);
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
