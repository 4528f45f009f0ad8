/* The length of an x86-64 instruction's ModRM operand: the ModRM byte,
 * the SIB byte when there is one, and the displacement (Intel SDM Vol. 2A,
 * 2.1.3 "ModR/M and SIB Bytes" and 2.2.1.6 "RIP-Relative Addressing": in
 * 64-bit mode neither REX nor the address-size prefix changes them). Shared by
 * the MMIO store decoder (vmm/vhw/mmio_decode.c) and the host's call decoder
 * (host-tools/insn_call.c). Portable, header only. */
#ifndef LIB_X86_MODRM_H
#define LIB_X86_MODRM_H

#include <stddef.h>
#include <stdint.h>

#define X86_MODRM_REGISTER 3u        /* mod 11: a register operand, no memory */

/* Bytes of ModRM + SIB + displacement starting at p[0] (the ModRM byte):
 * 1 for a register operand, up to 6; 0 if p[0..avail) is shorter. */
static inline unsigned int x86_modrm_length(const uint8_t *p, size_t avail)
{
    if (avail < 1)
        return 0;
    unsigned int mod = p[0] >> 6, rm = p[0] & 7u, len = 1;
    if (mod == X86_MODRM_REGISTER)
        return len;
    if (rm == 4) {                   /* a SIB byte follows */
        if (avail < 2)
            return 0;
        len++;
        if (mod == 0 && (p[1] & 7u) == 5)
            len += 4;                /* SIB with no base: disp32 */
    } else if (mod == 0 && rm == 5) {
        len += 4;                    /* RIP-relative disp32 */
    }
    if (mod == 1)
        len += 1;
    else if (mod == 2)
        len += 4;
    return len <= avail ? len : 0;
}

#endif
