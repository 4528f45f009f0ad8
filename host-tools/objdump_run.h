/* binutils' objdump on bytes of x86-64 code: the frame checker's
 * instruction starts and `vertigo annotate`'s listing come from it. The
 * bytes are written to a temporary file and disassembled as a raw binary
 * placed at their address (objdump -D -b binary -m i386:x86-64
 * --adjust-vma), linearly from its first byte. */
#ifndef HOST_TOOLS_OBJDUMP_RUN_H
#define HOST_TOOLS_OBJDUMP_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Calls each(ctx, address, text) for every instruction objdump decodes in
 * bytes[0..len) at address vma (text: its mnemonic and operands, no raw
 * bytes). False when objdump could not be run or decoded nothing. */
bool objdump_code(const uint8_t *bytes, size_t len, uint64_t vma,
                  bool (*each)(void *ctx, uint64_t addr, const char *text), void *ctx);

#endif
