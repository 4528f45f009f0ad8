/* Which I/O ports Vertigo owns (its console and exit ports, A20, the
 * reset and power-off ports it must see, the hidden log device) and what
 * a guest IN or OUT that touches them does. Every other port belongs to
 * the pass-through guest.
 *
 * An access is Vertigo's if any byte it touches is (SDM Vol. 3C 26.1.3: a
 * wide access exits if any of its ports is intercepted). Such an access is
 * split into byte lanes as the bus would deliver it, each lane going to
 * the port that decodes it; only whole registers are passed through whole
 * (a dword at PCI's CONFIG_ADDRESS, a word at an ACPI PM1 control port,
 * an access within CONFIG_DATA). A write that would reset or power off
 * the machine through any lane ends the guest instead, before any lane is
 * written, so Vertigo prints its statistics and gives the run a verdict.
 *
 * Portable: the real ports are reached through io_port_read/io_port_write
 * (vmx/io_ports.c in the hypervisor, a byte-lane model of the machine in
 * tests/unit/test_io_policy.c). */
#ifndef VMX_IO_POLICY_H
#define VMX_IO_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/log/pci.h"
#include "vmm/vmx_hooks.h"

/* io_policy_init: the core's hook (vmm/vmx_hooks.h). */

/* Adds `count` ports from `base` that are Vertigo's alone (the log's
 * UART, the emulator's panic ports): reads all ones, writes dropped. */
void io_policy_own(uint16_t base, uint16_t count);

/* Hides PCI function `bdf` (the virtio log console) from the guest: the
 * configuration ports are intercepted, a data access while the guest's
 * CONFIG_ADDRESS selects bdf sees no device, and the function's I/O BAR
 * [io_base, io_base + io_size) is Vertigo's. `config_address` is what
 * CONFIG_ADDRESS holds now (the guest's shadow starts there). */
void io_policy_hide_pci(struct pci_bdf bdf, uint16_t io_base, uint16_t io_size,
                        uint32_t config_address);

/* Sets the intercept bits of every owned port in I/O bitmaps A (ports
 * 0-0x7fff) and B (0x8000-0xffff) (SDM Vol. 3C, 25.6.4). */
void io_policy_fill_bitmaps(uint8_t *bitmap_a, uint8_t *bitmap_b);

/* What an access asks of the guest's life. */
enum io_end {
    IO_CONTINUE,        /* done; skip the instruction */
    IO_END_RESET,       /* a reset request: end the guest (reset) */
    IO_END_POWER_OFF,   /* an ACPI sleep request: end the guest (power off) */
};

struct io_outcome {
    enum io_end end;
    const char *why;    /* for IO_END_*: what the guest did */
};

/* Performs one guest IN (is_in) or OUT of `size` (1, 2, 4) bytes at
 * `port` that exited. For IN, *value receives the result (its low `size`
 * bytes); for OUT, *value holds the data. When the outcome is an end,
 * nothing was written. Safe to call from several VCPUs at once. */
struct io_outcome io_policy_access(uint16_t port, unsigned int size, bool is_in,
                                   uint32_t *value);

/* The real ports (vmx/io_ports.c). */
uint32_t io_port_read(uint16_t port, unsigned int size);
void io_port_write(uint16_t port, unsigned int size, uint32_t value);

#endif
