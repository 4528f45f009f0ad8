/* PCI configuration mechanism #1 accessors and a brute-force bus scan
 * (vmm/log/pci.h). Used only by the boot CPU before guests start. */
#include "vmm/log/pci.h"

#include "lib/cpu.h"

#define PCI_IO_PORT_LIMIT 0x10000u

uint32_t pci_config_read32(struct pci_bdf bdf, uint8_t offset)
{
    outl(PCI_PORT_CONFIG_ADDRESS, pci_config_address(bdf, offset));
    return inl(PCI_PORT_CONFIG_DATA);
}

uint16_t pci_config_read16(struct pci_bdf bdf, uint8_t offset)
{
    outl(PCI_PORT_CONFIG_ADDRESS, pci_config_address(bdf, offset));
    return inw((uint16_t)(PCI_PORT_CONFIG_DATA + (offset & 2u)));
}

void pci_config_write32(struct pci_bdf bdf, uint8_t offset, uint32_t value)
{
    outl(PCI_PORT_CONFIG_ADDRESS, pci_config_address(bdf, offset));
    outl(PCI_PORT_CONFIG_DATA, value);
}

void pci_config_write16(struct pci_bdf bdf, uint8_t offset, uint16_t value)
{
    outl(PCI_PORT_CONFIG_ADDRESS, pci_config_address(bdf, offset));
    outw((uint16_t)(PCI_PORT_CONFIG_DATA + (offset & 2u)), value);
}

static bool id_matches(uint16_t id, const uint16_t *ids, unsigned int count)
{
    for (unsigned int i = 0; i < count; i++)
        if (ids[i] == id)
            return true;
    return false;
}

/* Checks every function of one device; functions 1-7 only exist when
 * function 0 says it is multi-function (PCI 3.0, 6.2.1 Header Type). */
static bool find_in_device(struct pci_bdf bdf, uint16_t vendor, const uint16_t *ids,
                           unsigned int count, struct pci_bdf *out, uint16_t *device_id)
{
    unsigned int functions = 1;

    for (unsigned int fn = 0; fn < functions; fn++) {
        bdf.function = (uint8_t)fn;
        uint32_t id = pci_config_read32(bdf, PCI_CFG_VENDOR_ID);
        if ((id & 0xffffu) == PCI_VENDOR_NONE)
            continue;
        if (fn == 0 && (pci_config_read32(bdf, PCI_CFG_HEADER_TYPE & 0xfc) >> 16) &
                       PCI_HEADER_MULTIFUNCTION)
            functions = PCI_MAX_FUNCTION;
        if ((id & 0xffffu) == vendor && id_matches((uint16_t)(id >> 16), ids, count)) {
            *out = bdf;
            *device_id = (uint16_t)(id >> 16);
            return true;
        }
    }
    return false;
}

bool pci_find_device(uint16_t vendor, const uint16_t *device_ids, unsigned int count,
                     struct pci_bdf *out, uint16_t *device_id)
{
    for (unsigned int bus = 0; bus < PCI_MAX_BUS; bus++) {
        for (unsigned int dev = 0; dev < PCI_MAX_DEVICE; dev++) {
            struct pci_bdf bdf = { (uint8_t)bus, (uint8_t)dev, 0 };
            if (find_in_device(bdf, vendor, device_ids, count, out, device_id))
                return true;
        }
    }
    return false;
}

bool pci_io_bar(struct pci_bdf bdf, uint8_t bar, uint16_t *base, uint16_t *size)
{
    uint32_t original = pci_config_read32(bdf, bar);
    if (!(original & PCI_BAR_IO_SPACE) || !(original & PCI_BAR_IO_MASK))
        return false;
    uint16_t command = pci_config_read16(bdf, PCI_CFG_COMMAND);
    pci_config_write16(bdf, PCI_CFG_COMMAND,
                       (uint16_t)(command & ~(PCI_COMMAND_IO | PCI_COMMAND_MEMORY)));
    pci_config_write32(bdf, bar, 0xffffffffu);
    uint32_t mask = pci_config_read32(bdf, bar) & PCI_BAR_IO_MASK;
    pci_config_write32(bdf, bar, original);
    pci_config_write16(bdf, PCI_CFG_COMMAND, command);
    /* Only the low 16 bits decode on x86: the size is the lowest
     * writable address bit (PCI 3.0, 6.2.5.1). */
    uint32_t bytes = (~(mask | 0xffff0000u) + 1u) & 0x1ffffu;
    uint32_t start = original & PCI_BAR_IO_MASK;
    if (!bytes || start + bytes > PCI_IO_PORT_LIMIT)
        return false;
    *base = (uint16_t)start;
    *size = (uint16_t)bytes;
    return true;
}
