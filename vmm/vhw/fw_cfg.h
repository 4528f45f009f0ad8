/* The few items of QEMU's firmware configuration device (fw_cfg, the
 * traditional port interface: a 16-bit selector written to 0x510, the
 * item's bytes read one by one from 0x511) a multiboot test kernel reads
 * when its boot modules do not say otherwise: the signature "QEMU", the
 * interface ID (1: ports only, no DMA), the RAM size (item 0x03, 64-bit)
 * and the CPU count (items 0x05 and 0x0f, 16-bit). Any other item reads as
 * zeros, reads past an item's end are zeros, the selector reads as 0 and
 * writes to the data port are ignored (QEMU dropped the legacy write
 * path). kvm-unit-tests' x86 library reads NR_CPUS and MEMSIZE this way
 * (lib/x86/fwcfg.c). Portable: the domain's I/O exit handler calls it. */
#ifndef VMM_FW_CFG_H
#define VMM_FW_CFG_H

#include <stdbool.h>
#include <stdint.h>

#define FW_CFG_PORT_SELECTOR  0x510u
#define FW_CFG_PORT_DATA      0x511u

#define FW_CFG_SIGNATURE      0x00u
#define FW_CFG_ID             0x01u
#define FW_CFG_RAM_SIZE       0x03u
#define FW_CFG_NB_CPUS        0x05u
#define FW_CFG_MAX_CPUS       0x0fu

struct fw_cfg {
    uint16_t cpus;
    uint64_t ram_bytes;
    uint16_t selector;
    uint32_t offset;            /* next byte of the selected item */
};

void fw_cfg_init(struct fw_cfg *f, uint16_t cpus, uint64_t ram_bytes);

/* True for the selector and data ports. */
bool fw_cfg_owns_port(uint16_t port);

/* An IN of `size` bytes (1, 2, 4) at `port`: from the data port, the
 * selected item's next bytes, little-endian. */
uint32_t fw_cfg_read(struct fw_cfg *f, uint16_t port, unsigned int size);

/* An OUT: to the selector port it selects an item (bits 15:0) and
 * rewinds it. */
void fw_cfg_write(struct fw_cfg *f, uint16_t port, unsigned int size, uint32_t value);

#endif
