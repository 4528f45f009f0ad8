/* One element of a string I/O instruction (INS, OUTS, with or without
 * REP) done by Vertigo for a port it emulates, as the processor would do
 * it (SDM Vol. 2B, INS/INSB/INSW/INSD and OUTS/OUTSB/OUTSW/OUTSD; Vol. 2A
 * 3.1.1.3 for REP): after each element the index register (RDI for INS,
 * RSI for OUTS) moves by the element's size, down if RFLAGS.DF is set;
 * with REP the count register (RCX) drops by one, and the instruction is
 * complete when it reaches 0. Both registers are used and updated at the
 * instruction's address size: 16 bits (SI, DI, CX, the rest kept), 32 (the
 * result zero-extended, as any 32-bit register write in 64-bit mode) or 64.
 * An instruction not complete after an element is executed again (its
 * RIP stays), exits again and is given the next element: one element an
 * exit, with interrupts taken between elements as the processor takes them.
 * Portable: vmx/exit_vhw_string.c reads the exit and moves the data. */
#ifndef VMM_VHW_STRING_IO_H
#define VMM_VHW_STRING_IO_H

#include <stdbool.h>
#include <stdint.h>

struct string_io {
    bool in;                    /* INS (else OUTS) */
    bool rep;                   /* REP prefix */
    bool down;                  /* RFLAGS.DF */
    unsigned int size;          /* element bytes: 1, 2, 4 */
    unsigned int addr_bits;     /* 16, 32, 64 */
};

struct string_io_regs {
    uint64_t rcx, rsi, rdi;
};

/* True if a REP instruction has nothing to do (its count is 0 at its
 * address size): complete without an element. */
bool string_io_empty(const struct string_io *s, const struct string_io_regs *r);

/* The registers after one element; true if the instruction is then
 * complete (no REP, or the count reached 0). */
bool string_io_advance(const struct string_io *s, struct string_io_regs *r);

#endif
