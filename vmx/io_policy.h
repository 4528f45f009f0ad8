/* Which I/O ports Vertigo owns (its console and exit ports, A20, the
 * reset and power-off ports it must see) and the I/O bitmaps built from
 * them. Every other port belongs to the pass-through guest. */
#ifndef VMX_IO_POLICY_H
#define VMX_IO_POLICY_H

#include <stdint.h>

struct vcpu;

/* Records Vertigo's ports: its UART (0 if none) and the ACPI PM1 control
 * ports (0 if unknown). Call before io_policy_fill_bitmaps(). */
void io_policy_init(uint16_t uart_port, uint16_t pm1a_cnt, uint16_t pm1b_cnt);

/* Sets the intercept bits in I/O bitmaps A (ports 0-0x7fff) and B
 * (0x8000-0xffff) (SDM Vol. 3C, 25.6.4 "I/O-Bitmap Addresses"). */
void io_policy_fill_bitmaps(uint8_t *bitmap_a, uint8_t *bitmap_b);

/* Emulates one guest IN or OUT of `size` bytes on an owned port. For IN,
 * *value receives the result. May end the guest (reset/power-off ports). */
void io_policy_access(struct vcpu *v, uint16_t port, unsigned int size, int is_in,
                      uint32_t *value);

#endif
