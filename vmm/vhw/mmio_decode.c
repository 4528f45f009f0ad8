/* Load/store decoder (see vmm/vhw/mmio_decode.h). Encodings: SDM Vol. 2A,
 * 2.1 "Instruction Format" and 2.2.1 "REX Prefixes"; MOV (89 /r, 8B /r,
 * C7 /0 id, A1/A3 moffs; the byte forms 88 /r, 8A /r, C6 /0 ib), XCHG
 * (87 /r). */
#include "vmm/vhw/mmio_decode.h"
#include "lib/x86_modrm.h"

#define PREFIX_OPSIZE 0x66
#define PREFIX_LOCK   0xf0
#define PREFIX_DS     0x3e
#define OP_MOV_STORE  0x89
#define OP_MOV_IMM    0xc7
#define OP_XCHG       0x87
#define OP_MOV_LOAD   0x8b
#define OP_MOV_AX_LOAD  0xa1
#define OP_MOV_AX_STORE 0xa3
#define OP_MOV_STORE8 0x88
#define OP_MOV_LOAD8  0x8a
#define OP_MOV_IMM8   0xc6
#define MAX_INSN_LEN  15

/* Bytes of ModRM + SIB + displacement starting at modrm, or 0 if
 * truncated or a register operand (which is not a store). */
static unsigned int modrm_length(const uint8_t *p, size_t avail)
{
    return avail && p[0] >> 6 != X86_MODRM_REGISTER ? x86_modrm_length(p, avail) : 0;
}

bool mmio_decode_store(const uint8_t *bytes, size_t avail, struct mmio_store *out)
{
    size_t i = 0;
    uint8_t rex = 0;
    if (avail > MAX_INSN_LEN)
        avail = MAX_INSN_LEN;

    while (i < avail && (bytes[i] == PREFIX_LOCK || bytes[i] == PREFIX_DS))
        i++;
    if (i < avail && bytes[i] == PREFIX_OPSIZE)
        return false;           /* 16-bit stores are not supported */
    if (i < avail && (bytes[i] & 0xf0) == 0x40)
        rex = bytes[i++];
    if (i >= avail)
        return false;
    uint8_t op = bytes[i++];
    if (op != OP_MOV_STORE && op != OP_MOV_IMM && op != OP_XCHG)
        return false;
    unsigned int mlen = modrm_length(bytes + i, avail - i);
    if (!mlen)
        return false;
    unsigned int reg = (bytes[i] >> 3) & 7;
    out->size = (rex & 0x08) ? 8 : 4;
    out->from_register = op != OP_MOV_IMM;
    out->reg = reg | ((rex & 0x04) ? 8 : 0);
    out->immediate = 0;
    i += mlen;
    if (op == OP_MOV_IMM) {
        if (reg != 0 || i + 4 > avail)
            return false;
        out->immediate = (uint32_t)bytes[i] | (uint32_t)bytes[i + 1] << 8 |
                         (uint32_t)bytes[i + 2] << 16 | (uint32_t)bytes[i + 3] << 24;
        i += 4;
    }
    out->length = (unsigned int)i;
    return true;
}

static bool segment_or_lock(uint8_t b)
{
    return b == PREFIX_LOCK || b == PREFIX_DS || b == 0x2e || b == 0x26 || b == 0x36 ||
           b == 0x64 || b == 0x65;
}

static uint32_t read_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A1/A3: the accumulator and a direct address of 4 or 8 bytes. */
static bool accumulator_form(uint8_t op, size_t i, size_t avail, bool long_mode, uint8_t rex,
                             struct mmio_access *out)
{
    size_t moffs = long_mode ? 8 : 4;
    if (i + moffs > avail)
        return false;
    *out = (struct mmio_access){ (unsigned int)(i + moffs), (rex & 0x08) ? 8 : 4,
                                 op == OP_MOV_AX_STORE, op == OP_MOV_AX_STORE, 0, false, 0 };
    return true;
}

/* 88 /r, 8A /r, C6 /0 ib: one byte. Without a REX prefix, register
 * numbers 4-7 are AH, CH, DH, BH (bits 15:8 of registers 0-3); with one,
 * SPL, BPL, SIL, DIL (SDM Vol. 2A 3.1.1.1, note on r8). */
static bool byte_form(uint8_t op, const uint8_t *bytes, size_t i, size_t avail, uint8_t rex,
                      struct mmio_access *out)
{
    unsigned int mlen = modrm_length(bytes + i, avail - i);
    if (!mlen)
        return false;
    unsigned int reg = (bytes[i] >> 3) & 7;
    bool high = !rex && reg >= 4 && op != OP_MOV_IMM8;
    *out = (struct mmio_access){ 0, 1, op != OP_MOV_LOAD8, op != OP_MOV_IMM8,
                                 high ? reg - 4 : reg | ((rex & 0x04) ? 8u : 0u), high, 0 };
    i += mlen;
    if (op == OP_MOV_IMM8) {
        if (reg != 0 || i + 1 > avail)
            return false;
        out->immediate = bytes[i++];
    }
    out->length = (unsigned int)i;
    return true;
}

bool mmio_decode_access(const uint8_t *bytes, size_t avail, bool long_mode,
                        struct mmio_access *out)
{
    size_t i = 0;
    uint8_t rex = 0;
    if (avail > MAX_INSN_LEN)
        avail = MAX_INSN_LEN;

    while (i < avail && segment_or_lock(bytes[i]))
        i++;
    if (i < avail && bytes[i] == PREFIX_OPSIZE)
        return false;           /* 16-bit accesses are not supported */
    if (long_mode && i < avail && (bytes[i] & 0xf0) == 0x40)
        rex = bytes[i++];
    if (i >= avail)
        return false;
    uint8_t op = bytes[i++];
    if (op == OP_MOV_AX_LOAD || op == OP_MOV_AX_STORE)
        return accumulator_form(op, i, avail, long_mode, rex, out);
    if (op == OP_MOV_STORE8 || op == OP_MOV_LOAD8 || op == OP_MOV_IMM8)
        return byte_form(op, bytes, i, avail, rex, out);
    if (op != OP_MOV_STORE && op != OP_MOV_IMM && op != OP_XCHG && op != OP_MOV_LOAD)
        return false;
    unsigned int mlen = modrm_length(bytes + i, avail - i);
    if (!mlen)
        return false;
    unsigned int reg = (bytes[i] >> 3) & 7;
    *out = (struct mmio_access){ 0, (rex & 0x08) ? 8 : 4, op != OP_MOV_LOAD, op != OP_MOV_IMM,
                                 reg | ((rex & 0x04) ? 8u : 0u), false, 0 };
    i += mlen;
    if (op == OP_MOV_IMM) {
        if (reg != 0 || i + 4 > avail)
            return false;
        out->immediate = read_u32(bytes + i);
        i += 4;
    }
    out->length = (unsigned int)i;
    return true;
}
