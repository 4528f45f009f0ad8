/* What ends at an address of x86-64 code: a call instruction, or a
 * syscall. The frame checker (host-tools/frame_check.c) asks it of every
 * return address: a caller's frame is only real if a call ends exactly
 * where the callee returns to. Exact for the forms a call takes in 64-bit
 * code: E8 rel32 (5 bytes) and FF /2 (call near through a register or
 * memory, 2 to 7 bytes after any prefixes, as the ModRM, SIB and
 * displacement bytes say: Intel SDM Vol. 2A, 2.1 and "CALL"), and syscall
 * (0F 05). tests/unit/test_insn_call.c checks it against objdump on every
 * instruction of real binaries. */
#ifndef HOST_TOOLS_INSN_CALL_H
#define HOST_TOOLS_INSN_CALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether a call instruction can end at code[end] (code[0..end) are the
 * bytes before it; end may be less than the longest call). */
bool insn_call_ends_at(const uint8_t *code, size_t end);

/* Whether a syscall instruction (0F 05) ends at code[end]. */
bool insn_syscall_ends_at(const uint8_t *code, size_t end);

/* The length of the FF /2 instruction whose opcode byte is code[0] and
 * whose ModRM byte is code[1] (and SIB code[2] when there is one): 2 to 7;
 * 0 if code[1] is no /2 form or code[0..avail) ends before the instruction. */
unsigned int insn_ff2_length(const uint8_t *code, size_t avail);

#endif
