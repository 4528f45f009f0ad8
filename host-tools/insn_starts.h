/* Where instructions start in x86-64 code, as binutils' objdump decodes
 * it: the frame checker asks whether an interrupted RIP (a sample's own
 * address, or the user RIP an interrupt's frame holds) is the start of an
 * instruction of the binary it is named in. objdump decodes linearly from
 * an address known to start one (a function's entry), so the answer is
 * objdump's, not a decoder of this project's. Each (code, entry) is
 * decoded once and cached; objdump is run on a temporary file holding
 * only those bytes. */
#ifndef HOST_TOOLS_INSN_STARTS_H
#define HOST_TOOLS_INSN_STARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct insn_starts;

struct insn_starts *insn_starts_new(void);
void insn_starts_free(struct insn_starts *c);

/* Whether an instruction starts at addr in the code bytes[0..size) that
 * lie at address start, decoded from entry (start <= entry <= addr < start
 * + size). 1 yes, 0 no, -1 objdump could not be run. */
int insn_starts_at(struct insn_starts *c, const uint8_t *bytes, uint64_t start, uint64_t size,
                   uint64_t entry, uint64_t addr);

#endif
