/* QEMU's firmware configuration ports, the items a test kernel reads
 * (see vmm/vhw/fw_cfg.h). */
#include "vmm/vhw/fw_cfg.h"

#define FW_CFG_ID_TRADITIONAL 1u        /* bit 0: the port interface; no DMA */

void fw_cfg_init(struct fw_cfg *f, uint16_t cpus, uint64_t ram_bytes)
{
    *f = (struct fw_cfg){ .cpus = cpus, .ram_bytes = ram_bytes };
}

bool fw_cfg_owns_port(uint16_t port)
{
    return port == FW_CFG_PORT_SELECTOR || port == FW_CFG_PORT_DATA;
}

/* Byte `i` of the selected item; 0 past its end and for unknown items. */
static uint8_t item_byte(const struct fw_cfg *f, uint32_t i)
{
    static const char signature[4] = { 'Q', 'E', 'M', 'U' };
    uint64_t value;
    unsigned int width;

    switch (f->selector) {
    case FW_CFG_SIGNATURE:
        return i < 4 ? (uint8_t)signature[i] : 0;
    case FW_CFG_ID:        value = FW_CFG_ID_TRADITIONAL; width = 4; break;
    case FW_CFG_RAM_SIZE:  value = f->ram_bytes; width = 8; break;
    case FW_CFG_NB_CPUS:
    case FW_CFG_MAX_CPUS:  value = f->cpus; width = 2; break;
    default:               return 0;
    }
    return i < width ? (uint8_t)(value >> (8 * i)) : 0;
}

uint32_t fw_cfg_read(struct fw_cfg *f, uint16_t port, unsigned int size)
{
    uint32_t v = 0;
    if (port != FW_CFG_PORT_DATA)
        return 0;
    for (unsigned int b = 0; b < size && b < 4; b++) {
        v |= (uint32_t)item_byte(f, f->offset) << (8 * b);
        if (f->offset < UINT32_MAX)
            f->offset++;
    }
    return v;
}

void fw_cfg_write(struct fw_cfg *f, uint16_t port, unsigned int size, uint32_t value)
{
    (void)size;
    if (port != FW_CFG_PORT_SELECTOR)
        return;
    f->selector = (uint16_t)value;
    f->offset = 0;
}
