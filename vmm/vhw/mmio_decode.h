/* Decoding the few x86-64 store instructions guests use for MMIO
 * registers (MOV r/m32,r32; MOV r/m32,imm32; XCHG r/m32,r32), enough to
 * emulate a trapped write to an emulated device page (the local APIC's
 * ICR) without a general instruction emulator. Portable, host-tested. */
#ifndef VMM_MMIO_DECODE_H
#define VMM_MMIO_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mmio_store {
    unsigned int length;        /* instruction bytes */
    unsigned int size;          /* operand bytes: 4 (or 8 with REX.W) */
    bool from_register;         /* value in GPR `reg`, else `immediate` */
    unsigned int reg;           /* SDM register number 0..15 */
    uint32_t immediate;
};

/* Decodes the instruction in bytes[0..avail). Returns false for anything
 * that is not one of the supported store forms (the caller then reports
 * and stops the guest rather than guess). */
bool mmio_decode_store(const uint8_t *bytes, size_t avail, struct mmio_store *out);

#endif
