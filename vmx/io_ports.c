/* The real ports for the I/O policy and the ports it learns at start-up
 * (see vmx/io_ports.h). */
#include "vmx/io_ports.h"

#include "lib/cpu.h"
#include "boot/platform.h"
#include "lib/console.h"
#include "vmm/log/log_hv.h"
#include "vmm/log/virtio_console.h"
#include "vmx/io_policy.h"

/* Bochs' BIOS panic and debug ports: a write to 0x400/0x401 is a Bochs
 * panic, which ends the emulator behind Vertigo's back. */
#define PORT_EMULATOR_PANIC  0x400
#define EMULATOR_PANIC_PORTS 4

uint32_t io_port_read(uint16_t port, unsigned int size)
{
    if (size == 1)
        return inb(port);
    if (size == 2)
        return inw(port);
    return inl(port);
}

void io_port_write(uint16_t port, unsigned int size, uint32_t value)
{
    if (size == 1)
        outb(port, (uint8_t)value);
    else if (size == 2)
        outw(port, (uint16_t)value);
    else
        outl(port, value);
}

void io_ports_discover(void)
{
    struct log_drain log = log_hv_drain();
    struct virtio_console_hw hw;

    if (log.kind == LOG_DRAIN_SERIAL)
        io_policy_own(log.port, LOG_DRAIN_UART_PORTS);
    for (unsigned int i = 1; i < CONSOLE_UARTS_MAX; i++)   /* io_policy_init has the first */
        if (con_uart_port(i))
            io_policy_own(con_uart_port(i), LOG_DRAIN_UART_PORTS);
    if (log.kind == LOG_DRAIN_VIRTIO && virtio_console_device(&hw))
        io_policy_hide_pci(hw.bdf, hw.io_base, hw.io_size, inl(PCI_PORT_CONFIG_ADDRESS));
    if (platform_is_emulator())
        io_policy_own(PORT_EMULATOR_PANIC, EMULATOR_PANIC_PORTS);
}
