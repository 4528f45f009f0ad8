/* QEMU's pc-testdev as a multiboot domain has it (kvm-unit-tests' own
 * runner always adds the device under QEMU; QEMU's hw/misc/pc-testdev.c):
 *   - 64 KiB of test memory at guest-physical TESTDEV_IOMEM_GPA that reads
 *     back what was written. In a domain it is plain RAM, pages of the
 *     domain's own memory mapped by its EPT (vmm/domain/domain_private.c,
 *     placed by vmm/domain/domain_mboot_map.h), so every access to it runs
 *     on the CPU itself, as an access to RAM: no exit, no instruction
 *     emulator. Under KVM each access is an MMIO exit emulated by KVM's
 *     instruction emulator; in Vertigo the tests that use it (emulator.flat's
 *     MOV, ALU, string, SSE ... on it, lam.flat's tagged access) exercise
 *     the CPU's own execution of those instructions on memory.
 *   - its data port: four bytes at TESTDEV_PORT (0xe0-0xe3) that read back
 *     what was written, byte for byte, an access of 1, 2 or 4 bytes at an
 *     offset whose bytes stay within the four (QEMU's "pc-testdev-ioport").
 *     Any other access (a width past 0xe3) is not the device's: the caller
 *     treats it as it treats an unknown port.
 * Not emulated: QEMU's flush-page port (0xe4), byte port (0xe8) and IRQ
 * lines (0x2000): neither emulator.flat nor lam.flat uses them.
 * Portable: the domain's I/O exit handler calls it (vmx/exit_vhw.c). */
#ifndef VMM_VHW_TESTDEV_H
#define VMM_VHW_TESTDEV_H

#include <stdbool.h>
#include <stdint.h>

#define TESTDEV_PORT        0xe0u           /* kvm-unit-tests' TESTDEV_IO_PORT */
#define TESTDEV_PORT_BYTES  4u
#define TESTDEV_IOMEM_GPA   0xff000000ull   /* kvm-unit-tests' IORAM_BASE_PHYS */
#define TESTDEV_IOMEM_BYTES 0x10000ull      /* QEMU's IOMEM_LEN, kvm-unit-tests' IORAM_LEN */

struct testdev {
    uint32_t data;              /* the data port's four bytes, 0xe0 the lowest */
};

/* True if `port` is one of the data port's four bytes. */
bool testdev_owns_port(uint16_t port);

/* An IN (`in`) or OUT of `size` bytes at `port`. For an OUT, *value holds
 * the data (its low `size` bytes are stored); for an IN, *value receives
 * the bytes stored there. False, and nothing stored or read, if the access
 * is not the data port's: a port outside it, a size other than 1, 2 or 4,
 * or bytes past its end. */
bool testdev_io(struct testdev *t, uint16_t port, unsigned int size, bool in, uint32_t *value);

#endif
