/* Call and syscall instructions ending at an address (see insn_call.h). */
#include "host-tools/insn_call.h"

#define CALL_REL32 0xe8u
#define CALL_REL32_LEN 5u
#define GROUP5 0xffu                 /* FF /2 is call near, indirect */
#define FF_CALL_REG 2u
#define FF_MAX_LEN 7u                /* FF, ModRM, SIB, disp32 */

unsigned int insn_ff2_length(const uint8_t *code, size_t avail)
{
    if (avail < 2 || code[0] != GROUP5 || ((code[1] >> 3) & 7u) != FF_CALL_REG)
        return 0;
    unsigned int mod = code[1] >> 6, rm = code[1] & 7u, len = 2;
    if (mod == 3)
        return len;                  /* call *%reg */
    if (rm == 4) {                   /* a SIB byte follows */
        if (avail < 3)
            return 0;
        len++;
        if (mod == 0 && (code[2] & 7u) == 5)
            len += 4;                /* no base: disp32 */
    } else if (mod == 0 && rm == 5) {
        len += 4;                    /* RIP-relative disp32 */
    }
    if (mod == 1)
        len += 1;
    else if (mod == 2)
        len += 4;
    return len;
}

bool insn_call_ends_at(const uint8_t *code, size_t end)
{
    if (end >= CALL_REL32_LEN && code[end - CALL_REL32_LEN] == CALL_REL32)
        return true;
    for (unsigned int len = 2; len <= FF_MAX_LEN && len <= end; len++)
        if (insn_ff2_length(code + end - len, len) == len)
            return true;
    return false;
}

bool insn_syscall_ends_at(const uint8_t *code, size_t end)
{
    return end >= 2 && code[end - 2] == 0x0f && code[end - 1] == 0x05;
}
