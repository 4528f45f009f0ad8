/* Decoding the few x86 instructions guests use for MMIO registers (MOV
 * r/m32,r32; MOV r/m32,imm32; XCHG r/m32,r32; MOV r32,r/m32; MOV with the
 * accumulator and a direct address), enough to emulate a trapped access to
 * an emulated device page (the local APIC's) without a general
 * instruction emulator. Portable, host-tested. */
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

/* A load or a store of an emulated device register (an access to a
 * device page that exits): the store forms above plus MOV r32, r/m32
 * (8B /r), the accumulator forms with a direct address (A1 load, A3
 * store; the address is 4 bytes in 32-bit code, 8 in 64-bit code) and
 * the byte moves (88 /r, 8A /r, C6 /0 ib: what memset and byte loads
 * compile to). In 32-bit code (long_mode false) bytes 40-4F are not REX
 * prefixes. */
struct mmio_access {
    unsigned int length;        /* instruction bytes */
    unsigned int size;          /* operand bytes: 1, 4 (or 8 with REX.W) */
    bool write;
    bool from_register;         /* a write's value in GPR `reg`, else `immediate` */
    unsigned int reg;           /* the register written (load) or read (store) */
    bool high_byte;             /* size 1: bits 15:8 of `reg` (AH, CH, DH, BH) */
    uint32_t immediate;
};

bool mmio_decode_access(const uint8_t *bytes, size_t avail, bool long_mode,
                        struct mmio_access *out);

#endif
