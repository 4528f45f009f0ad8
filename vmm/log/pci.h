/* PCI configuration space through configuration mechanism #1: the
 * CONFIG_ADDRESS register at port 0xCF8 selects bus/device/function and
 * a dword register, CONFIG_DATA at 0xCFC-0xCFF reads or writes it (PCI
 * Local Bus Specification 3.0, 3.2.2.3.2). The address encoding is pure
 * (static inline, used by host tests and by vmx/io_policy.c's hiding);
 * the accessors in vmm/log/pci.c touch the hardware and are for the boot CPU
 * before any guest runs. */
#ifndef VMM_PCI_H
#define VMM_PCI_H

#include <stdbool.h>
#include <stdint.h>

#define PCI_PORT_CONFIG_ADDRESS  0xcf8
#define PCI_PORT_CONFIG_DATA     0xcfc
#define PCI_CONFIG_PORTS         4u         /* each register spans 4 ports */
#define PCI_CONFIG_ENABLE        (1u << 31)
#define PCI_MAX_BUS              256u
#define PCI_MAX_DEVICE           32u
#define PCI_MAX_FUNCTION         8u

/* Type-0 configuration header fields (PCI 3.0, 6.1). */
#define PCI_CFG_VENDOR_ID        0x00
#define PCI_CFG_DEVICE_ID        0x02
#define PCI_CFG_COMMAND          0x04
#define PCI_CFG_HEADER_TYPE      0x0e
#define PCI_CFG_BAR0             0x10
#define PCI_VENDOR_NONE          0xffffu    /* no function answers */
#define PCI_HEADER_MULTIFUNCTION 0x80u
#define PCI_COMMAND_IO           (1u << 0)
#define PCI_COMMAND_MEMORY       (1u << 1)
#define PCI_COMMAND_MASTER       (1u << 2)
#define PCI_COMMAND_INTX_DISABLE (1u << 10)
#define PCI_BAR_IO_SPACE         0x1u       /* bit 0 of a BAR: I/O, not memory */
#define PCI_BAR_IO_MASK          0xfffffffcu

struct pci_bdf {
    uint8_t bus;
    uint8_t device;     /* 0-31 */
    uint8_t function;   /* 0-7 */
};

/* CONFIG_ADDRESS value selecting the dword that holds byte `offset` of
 * bdf's configuration space (enable bit set, low two bits clear). */
static inline uint32_t pci_config_address(struct pci_bdf bdf, uint8_t offset)
{
    return PCI_CONFIG_ENABLE | (uint32_t)bdf.bus << 16 |
           (uint32_t)(bdf.device & (PCI_MAX_DEVICE - 1)) << 11 |
           (uint32_t)(bdf.function & (PCI_MAX_FUNCTION - 1)) << 8 | (offset & 0xfcu);
}

/* True if a CONFIG_ADDRESS value, as a guest latched it, makes the data
 * ports reach bdf: enable bit set and bus/device/function equal (the
 * register number and reserved bits 24-30 do not matter). */
static inline bool pci_config_address_selects(uint32_t address, struct pci_bdf bdf)
{
    uint32_t bdf_bits = pci_config_address(bdf, 0) & 0x00ffff00u;
    return (address & PCI_CONFIG_ENABLE) && (address & 0x00ffff00u) == bdf_bits;
}

/* Reads/writes configuration space of bdf at `offset` (naturally aligned
 * for its width). Hardware; not safe against a concurrent user of 0xCF8. */
uint32_t pci_config_read32(struct pci_bdf bdf, uint8_t offset);
uint16_t pci_config_read16(struct pci_bdf bdf, uint8_t offset);
void pci_config_write32(struct pci_bdf bdf, uint8_t offset, uint32_t value);
void pci_config_write16(struct pci_bdf bdf, uint8_t offset, uint16_t value);

/* Scans every bus, device and function for the first function with this
 * vendor and one of the `count` device IDs. Returns false if none. */
bool pci_find_device(uint16_t vendor, const uint16_t *device_ids, unsigned int count,
                     struct pci_bdf *out, uint16_t *device_id);

/* Sizes the I/O BAR at config offset bar (decoding is off while its
 * bits are probed, then the BAR is restored). Returns false if the BAR
 * is a memory BAR or unassigned. */
bool pci_io_bar(struct pci_bdf bdf, uint8_t bar, uint16_t *base, uint16_t *size);

#endif
