/* Owned I/O ports (see vmx/io_policy.h). Ports the guest may still use
 * (keyboard controller, reset control, ACPI PM1 control) are read and
 * written on its behalf; only the writes that would reset or power off
 * the machine are turned into the end of the guest.
 *
 * With the log on a virtio console the PCI configuration ports are
 * intercepted too: Vertigo keeps a shadow of the guest's CONFIG_ADDRESS
 * (0xCF8) and passes every configuration access through, except data-port
 * accesses while that address selects the log device, which see no
 * device. Every VCPU shares the one hardware latch, so reading the shadow,
 * latching it and the data access happen under one lock. */
#include "vmx/io_policy.h"

#include <stddef.h>

#include "lib/spinlock.h"

#define PORT_KBD_COMMAND     0x64
#define PORT_SYS_CTRL_A      0x92     /* bit 0 fast reset, bit 1 A20 */
#define PORT_DEBUGCON        0xe9
#define PORT_QEMU_EXIT       0xf4
#define PORT_RESET_CONTROL   0xcf9
#define PORT_BOCHS_SHUTDOWN  0x8900
#define PCI_CONFIG_DATA_END  (PCI_PORT_CONFIG_DATA + PCI_CONFIG_PORTS)
#define UART_PORTS           8
#define PM1_CONTROL_PORTS    2
#define SYS_CTRL_A_RESET     0x01
#define SYS_CTRL_A_A20       0x02
#define RESET_CONTROL_RST    0x04
#define PM1_SLP_EN           0x2000
#define REGIONS_MAX          24

/* The 8042's commands 0xF0-0xFF pulse output-port lines low for 6 us; a
 * clear bit 0 pulses the CPU reset line (0xFE is the usual one). 0xD1
 * writes the output port itself (reset line and A20 gate). */
#define KBD_CMD_PULSE        0xf0
#define KBD_PULSE_KEEP_RESET 0x01
#define KBD_CMD_WRITE_OUTPUT 0xd1

/* What a port is, byte by byte. */
enum io_kind {
    IO_GUEST,           /* not Vertigo's: the real port */
    IO_KBC_COMMAND,     /* real; reset pulses end the guest, output-port writes dropped */
    IO_SYS_CTRL_A,      /* reads "A20 on"; writes dropped, a reset bit ends the guest */
    IO_RESET_CONTROL,   /* real; the reset bit ends the guest */
    IO_PM1_CONTROL,     /* real, 16 bits; SLP_EN ends the guest */
    IO_VERTIGO,         /* Vertigo's alone: reads all ones, writes dropped */
    IO_PCI_ADDRESS,     /* 0xCF8, 0xCFA-0xCFB while a function is hidden */
    IO_PCI_DATA,        /* 0xCFC-0xCFF while a function is hidden */
};

static struct io_region {
    uint16_t base, count;
    enum io_kind kind;
} regions[REGIONS_MAX];
static unsigned int region_count;

/* The PCI function hidden from the guest (the virtio log console). */
static bool pci_hiding;
static struct pci_bdf hidden_bdf;
static uint32_t guest_config_address;   /* the guest's CONFIG_ADDRESS */
static struct spinlock pci_lock = SPINLOCK_INIT;

static void add_region(uint16_t base, uint16_t count, enum io_kind kind)
{
    if (count && region_count < REGIONS_MAX)
        regions[region_count++] = (struct io_region){ base, count, kind };
}

void io_policy_init(uint16_t uart_port, uint16_t pm1a_cnt, uint16_t pm1b_cnt)
{
    region_count = 0;
    pci_hiding = false;
    add_region(PORT_KBD_COMMAND, 1, IO_KBC_COMMAND);
    add_region(PORT_SYS_CTRL_A, 1, IO_SYS_CTRL_A);
    add_region(PORT_DEBUGCON, 1, IO_VERTIGO);
    add_region(PORT_QEMU_EXIT, 4, IO_VERTIGO);
    add_region(PORT_RESET_CONTROL, 1, IO_RESET_CONTROL);
    add_region(PORT_BOCHS_SHUTDOWN, 1, IO_VERTIGO);
    if (uart_port)
        add_region(uart_port, UART_PORTS, IO_VERTIGO);
    if (pm1a_cnt)
        add_region(pm1a_cnt, PM1_CONTROL_PORTS, IO_PM1_CONTROL);
    if (pm1b_cnt)
        add_region(pm1b_cnt, PM1_CONTROL_PORTS, IO_PM1_CONTROL);
}

void io_policy_own(uint16_t base, uint16_t count)
{
    add_region(base, count, IO_VERTIGO);
}

void io_policy_hide_pci(struct pci_bdf bdf, uint16_t io_base, uint16_t io_size,
                        uint32_t config_address)
{
    hidden_bdf = bdf;
    guest_config_address = config_address;
    pci_hiding = true;
    /* 0xCF9 between them stays the reset control port */
    add_region(PCI_PORT_CONFIG_ADDRESS, 1, IO_PCI_ADDRESS);
    add_region(PCI_PORT_CONFIG_ADDRESS + 2, 2, IO_PCI_ADDRESS);
    add_region(PCI_PORT_CONFIG_DATA, PCI_CONFIG_PORTS, IO_PCI_DATA);
    add_region(io_base, io_size, IO_VERTIGO);
}

/* The region that decodes `port` (the first added wins), or NULL. */
static const struct io_region *region_of(uint32_t port)
{
    for (unsigned int i = 0; i < region_count; i++)
        if (port >= regions[i].base && port - regions[i].base < regions[i].count)
            return &regions[i];
    return NULL;
}

static enum io_kind kind_of(uint32_t port)
{
    const struct io_region *r = region_of(port);
    return r ? r->kind : IO_GUEST;
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
    for (unsigned int i = 0; i < region_count; i++)
        intercept(a, b, regions[i].base, regions[i].count);
}

/* ---- Ends the guest asks for ------------------------------------------------ */

static const struct io_outcome io_done = { IO_CONTINUE, NULL };

static struct io_outcome ends(enum io_end end, const char *why)
{
    return (struct io_outcome){ end, why };
}

/* Would writing `value` (size bytes) at `port` of this kind reset or power
 * off the machine? */
static struct io_outcome write_end(enum io_kind kind, uint16_t port, unsigned int size,
                                   uint32_t value)
{
    uint8_t low = (uint8_t)value;
    switch (kind) {
    case IO_KBC_COMMAND:
        if (low >= KBD_CMD_PULSE && !(low & KBD_PULSE_KEEP_RESET))
            return ends(IO_END_RESET, "keyboard-controller reset");
        break;
    case IO_SYS_CTRL_A:
        if (low & SYS_CTRL_A_RESET)
            return ends(IO_END_RESET, "fast reset through port 0x92");
        break;
    case IO_RESET_CONTROL:
        if (low & RESET_CONTROL_RST)
            return ends(IO_END_RESET, "reset through port 0xcf9");
        break;
    case IO_PM1_CONTROL: {
        /* the bits of the 16-bit register this access reaches */
        unsigned int shift = 8 * (unsigned int)(port - region_of(port)->base);
        uint32_t mask = (size == 1 ? 0xffu : 0xffffu) << shift;
        if (((value << shift) & mask) & PM1_SLP_EN)
            return ends(IO_END_POWER_OFF, "ACPI sleep/power-off request");
        break;
    }
    default:
        break;
    }
    return io_done;
}

/* ---- PCI configuration mechanism #1 (PCI 3.0, 3.2.2.3.2) ---------------------- */

/* A dword at 0xCF8 is CONFIG_ADDRESS: the guest's own, shadowed while a
 * function is hidden. */
static void pci_address_access(bool is_in, uint32_t *value)
{
    if (!pci_hiding) {
        if (is_in)
            *value = io_port_read(PCI_PORT_CONFIG_ADDRESS, 4);
        else
            io_port_write(PCI_PORT_CONFIG_ADDRESS, 4, *value);
        return;
    }
    spin_lock(&pci_lock);
    if (is_in) {
        *value = guest_config_address;
    } else {
        guest_config_address = *value;
        io_port_write(PCI_PORT_CONFIG_ADDRESS, 4, *value);
    }
    spin_unlock(&pci_lock);
}

/* An access within CONFIG_DATA: none while the guest's address selects
 * the hidden function; otherwise the guest's address is latched again
 * (Vertigo or another VCPU may have used the latch since) and the access
 * made, all under the lock, from one reading of the shadow. */
static void pci_data_access(uint16_t port, unsigned int size, bool is_in, uint32_t *value)
{
    spin_lock(&pci_lock);
    uint32_t address = guest_config_address;
    if (pci_config_address_selects(address, hidden_bdf)) {
        if (is_in)
            *value = 0xffffffffu;       /* no device: vendor ID 0xffff */
    } else {
        io_port_write(PCI_PORT_CONFIG_ADDRESS, 4, address);
        if (is_in)
            *value = io_port_read(port, size);
        else
            io_port_write(port, size, *value);
    }
    spin_unlock(&pci_lock);
}

/* ---- One register, and byte lanes ------------------------------------------- */

/* One access that lies within one register of `kind` (no end requested). */
static void register_access(enum io_kind kind, uint16_t port, unsigned int size, bool is_in,
                            uint32_t *value)
{
    switch (kind) {
    case IO_PCI_DATA:
        pci_data_access(port, size, is_in, value);
        return;
    case IO_SYS_CTRL_A:
        if (is_in)
            *value = SYS_CTRL_A_A20;            /* A20 always on; writes dropped */
        return;
    case IO_VERTIGO:
        if (is_in)
            *value = 0xffffffffu;               /* nothing there for the guest */
        return;
    case IO_KBC_COMMAND:
        if (!is_in && (uint8_t)*value == KBD_CMD_WRITE_OUTPUT)
            return;                             /* the output port is Vertigo's */
        break;
    default:
        break;
    }
    if (is_in)
        *value = io_port_read(port, size);
    else
        io_port_write(port, size, *value);
}

/* Can the access go out as one (it covers one register, or only the
 * guest's ports)? */
static bool whole_access(uint16_t port, unsigned int size)
{
    const struct io_region *r = region_of(port);
    if (size == 1)
        return true;
    if (r && r->kind == IO_PM1_CONTROL && size == PM1_CONTROL_PORTS && port == r->base)
        return true;                            /* the 16-bit register itself */
    if (r && r->kind == IO_PCI_DATA && port + size <= PCI_CONFIG_DATA_END)
        return true;
    for (unsigned int i = 0; i < size; i++)
        if (kind_of(port + i) != IO_GUEST)
            return false;
    return true;
}

static struct io_outcome split_access(uint16_t port, unsigned int size, bool is_in,
                                      uint32_t *value)
{
    if (!is_in) {
        for (unsigned int i = 0; i < size; i++) {
            uint16_t lane = (uint16_t)(port + i);
            struct io_outcome o = write_end(kind_of(lane), lane, 1, *value >> (8 * i));
            if (o.end != IO_CONTINUE)
                return o;
        }
    }
    uint32_t result = 0;
    for (unsigned int i = 0; i < size; i++) {
        uint16_t lane = (uint16_t)(port + i);
        uint32_t byte = (*value >> (8 * i)) & 0xff;
        register_access(kind_of(lane), lane, 1, is_in, &byte);
        result |= (byte & 0xff) << (8 * i);
    }
    if (is_in)
        *value = result;
    return io_done;
}

struct io_outcome io_policy_access(uint16_t port, unsigned int size, bool is_in,
                                   uint32_t *value)
{
    if (port == PCI_PORT_CONFIG_ADDRESS && size == 4) {
        pci_address_access(is_in, value);
        return io_done;
    }
    if (!whole_access(port, size))
        return split_access(port, size, is_in, value);
    enum io_kind kind = kind_of(port);
    if (!is_in) {
        struct io_outcome o = write_end(kind, port, size, *value);
        if (o.end != IO_CONTINUE)
            return o;
    }
    register_access(kind, port, size, is_in, value);
    return io_done;
}
