/* The PC's reset requests besides the FADT's reset register (vmm/vhw/
 * acpi_build.h), which a domain's kernel may fall back to: the keyboard
 * controller's reset pulse (command 0xFE to port 0x64, Linux's
 * reboot=kbd) and the reset control register at port 0xCF9 with its
 * reset-CPU bit (Linux's reboot=pci). A domain has neither device
 * otherwise: their ports read all ones and drop other writes, as an
 * absent device's. Portable and host-tested. */
#ifndef VMM_VHW_PC_RESET_H
#define VMM_VHW_PC_RESET_H

#include <stdbool.h>
#include <stdint.h>

#define PC_RESET_KBC_PORT       0x64    /* the 8042's command port */
#define PC_RESET_KBC_PULSE      0xfe    /* pulse output-port bit 0, the reset line, low */
#define PC_RESET_CONTROL_PORT   0xcf9
#define PC_RESET_CONTROL_RST    0x04    /* reset CPU */

/* What one guest IN (in) or OUT of `size` bytes with `value` at `port`
 * asks for: a short description of the reset request, or NULL if it is
 * none (every IN, and writes of other sizes, ports or values). */
const char *pc_reset_request(uint16_t port, unsigned int size, bool in, uint8_t value);

#endif
