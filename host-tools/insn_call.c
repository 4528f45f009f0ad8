/* Call and syscall instructions ending at an address (see insn_call.h). */
#include "host-tools/insn_call.h"

#include "lib/x86_modrm.h"

#define CALL_REL32 0xe8u
#define CALL_REL32_LEN 5u
#define GROUP5 0xffu                 /* FF /2 is call near, indirect */
#define FF_CALL_REG 2u
#define FF_MAX_LEN 7u                /* FF, ModRM, SIB, disp32 */

unsigned int insn_ff2_length(const uint8_t *code, size_t avail)
{
    if (avail < 2 || code[0] != GROUP5 || ((code[1] >> 3) & 7u) != FF_CALL_REG)
        return 0;
    unsigned int operand = x86_modrm_length(code + 1, avail - 1);
    return operand ? 1 + operand : 0;
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
