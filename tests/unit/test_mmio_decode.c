/* Unit tests for the MMIO store decoder. */
#include "tests/unit/unit.h"
#include "vmm/vhw/mmio_decode.h"

TEST(mov_register_to_base)
{
    /* mov %eax,(%rdx) */
    static const uint8_t insn[] = { 0x89, 0x02 };
    struct mmio_store s;
    CHECK(mmio_decode_store(insn, sizeof(insn), &s));
    CHECK_EQ(s.length, 2);
    CHECK_EQ(s.size, 4);
    CHECK(s.from_register);
    CHECK_EQ(s.reg, 0);
}

TEST(mov_with_disp8_and_rex_r)
{
    /* mov %r9d,0x10(%rbx): 44 89 4b 10 */
    static const uint8_t insn[] = { 0x44, 0x89, 0x4b, 0x10, 0xcc };
    struct mmio_store s;
    CHECK(mmio_decode_store(insn, sizeof(insn), &s));
    CHECK_EQ(s.length, 4);
    CHECK_EQ(s.reg, 9);
}

TEST(mov_absolute_disp32_via_sib)
{
    /* mov %esi,0xffffffffff5fc300 : 89 34 25 00 c3 5f ff */
    static const uint8_t insn[] = { 0x89, 0x34, 0x25, 0x00, 0xc3, 0x5f, 0xff };
    struct mmio_store s;
    CHECK(mmio_decode_store(insn, sizeof(insn), &s));
    CHECK_EQ(s.length, 7);
    CHECK_EQ(s.reg, 6);
}

TEST(mov_rip_relative_and_disp32)
{
    /* mov %ecx,0x1234(%rip): 89 0d 34 12 00 00 */
    static const uint8_t rip[] = { 0x89, 0x0d, 0x34, 0x12, 0x00, 0x00 };
    /* mov %edx,0x300(%rax): 89 90 00 03 00 00 */
    static const uint8_t d32[] = { 0x89, 0x90, 0x00, 0x03, 0x00, 0x00 };
    struct mmio_store s;
    CHECK(mmio_decode_store(rip, sizeof(rip), &s) && s.length == 6 && s.reg == 1);
    CHECK(mmio_decode_store(d32, sizeof(d32), &s) && s.length == 6 && s.reg == 2);
}

TEST(mov_immediate)
{
    /* movl $0xc4500,0x300(%rax): c7 80 00 03 00 00 00 45 0c 00 */
    static const uint8_t insn[] = { 0xc7, 0x80, 0x00, 0x03, 0x00, 0x00, 0x00, 0x45, 0x0c, 0x00 };
    struct mmio_store s;
    CHECK(mmio_decode_store(insn, sizeof(insn), &s));
    CHECK_EQ(s.length, 10);
    CHECK(!s.from_register);
    CHECK_EQ(s.immediate, 0xc4500);
}

TEST(xchg_and_rex_w)
{
    /* xchg %eax,(%rdi): 87 07 ; mov %rax,(%rdi): 48 89 07 */
    static const uint8_t x[] = { 0x87, 0x07 };
    static const uint8_t w[] = { 0x48, 0x89, 0x07 };
    struct mmio_store s;
    CHECK(mmio_decode_store(x, sizeof(x), &s) && s.length == 2 && s.from_register);
    CHECK(mmio_decode_store(w, sizeof(w), &s) && s.length == 3 && s.size == 8);
}

TEST(rejects_other_forms)
{
    static const uint8_t load[] = { 0x8b, 0x02 };          /* mov (%rdx),%eax */
    static const uint8_t regreg[] = { 0x89, 0xc2 };        /* mov %eax,%edx */
    static const uint8_t word[] = { 0x66, 0x89, 0x02 };    /* 16-bit store */
    static const uint8_t trunc[] = { 0x89, 0x80, 0x00 };   /* disp32 cut short */
    static const uint8_t bad_imm[] = { 0xc7, 0x08, 0, 0, 0, 0 }; /* C7 /1 */
    struct mmio_store s;
    CHECK(!mmio_decode_store(load, sizeof(load), &s));
    CHECK(!mmio_decode_store(regreg, sizeof(regreg), &s));
    CHECK(!mmio_decode_store(word, sizeof(word), &s));
    CHECK(!mmio_decode_store(trunc, sizeof(trunc), &s));
    CHECK(!mmio_decode_store(bad_imm, sizeof(bad_imm), &s));
    CHECK(!mmio_decode_store(load, 0, &s));
}

TEST(loads_and_stores_in_both_modes)
{
    struct mmio_access a;
    /* mov 0x30(%rdx),%eax */
    static const uint8_t load[] = { 0x8b, 0x42, 0x30 };
    CHECK(mmio_decode_access(load, sizeof(load), true, &a));
    CHECK(!a.write && a.reg == 0 && a.size == 4 && a.length == 3);
    /* mov 0xfee00030,%eax in 32-bit code: A1 moffs32 */
    static const uint8_t moffs32[] = { 0xa1, 0x30, 0x00, 0xe0, 0xfe };
    CHECK(mmio_decode_access(moffs32, sizeof(moffs32), false, &a));
    CHECK(!a.write && a.reg == 0 && a.length == 5);
    CHECK(!mmio_decode_access(moffs32, sizeof(moffs32), true, &a));   /* 8-byte moffs */
    /* mov %eax,0xfee00300 (A3) in 32-bit code */
    static const uint8_t store32[] = { 0xa3, 0x00, 0x03, 0xe0, 0xfe };
    CHECK(mmio_decode_access(store32, sizeof(store32), false, &a));
    CHECK(a.write && a.from_register && a.reg == 0 && a.length == 5);
    /* mov %r9d,0x80(%rax): REX.R in 64-bit code */
    static const uint8_t store64[] = { 0x44, 0x89, 0x88, 0x80, 0x00, 0x00, 0x00 };
    CHECK(mmio_decode_access(store64, sizeof(store64), true, &a));
    CHECK(a.write && a.reg == 9 && a.length == 7);
    /* 32-bit code: 0x44 is INC ESP, not a prefix: not an access */
    CHECK(!mmio_decode_access(store64, sizeof(store64), false, &a));
    /* movl $0x1ff,0xf0(%rax) with a DS prefix */
    static const uint8_t imm[] = { 0x3e, 0xc7, 0x80, 0xf0, 0x00, 0x00, 0x00, 0xff, 0x01, 0, 0 };
    CHECK(mmio_decode_access(imm, sizeof(imm), true, &a));
    CHECK(a.write && !a.from_register && a.immediate == 0x1ff && a.length == 11);
    /* mov (%rax),%rcx: 8 bytes */
    static const uint8_t wide[] = { 0x48, 0x8b, 0x08 };
    CHECK(mmio_decode_access(wide, sizeof(wide), true, &a));
    CHECK(!a.write && a.size == 8 && a.reg == 1);
    /* mov %sil,(%rcx): a byte store with an empty REX (SIL, not DH) */
    static const uint8_t sil[] = { 0x40, 0x88, 0x31 };
    CHECK(mmio_decode_access(sil, sizeof(sil), true, &a));
    CHECK(a.write && a.size == 1 && a.reg == 6 && !a.high_byte && a.length == 3);
    /* mov %dh,(%rcx) without REX: bits 15:8 of RDX */
    static const uint8_t dh[] = { 0x88, 0x31 };
    CHECK(mmio_decode_access(dh, sizeof(dh), true, &a));
    CHECK(a.write && a.size == 1 && a.reg == 2 && a.high_byte && a.length == 2);
    /* mov 0x30(%rax),%cl and movb $0xff,0x80(%rax) */
    static const uint8_t load8[] = { 0x8a, 0x48, 0x30 };
    CHECK(mmio_decode_access(load8, sizeof(load8), true, &a));
    CHECK(!a.write && a.size == 1 && a.reg == 1 && !a.high_byte && a.length == 3);
    static const uint8_t imm8[] = { 0xc6, 0x80, 0x80, 0x00, 0x00, 0x00, 0xff };
    CHECK(mmio_decode_access(imm8, sizeof(imm8), true, &a));
    CHECK(a.write && !a.from_register && a.size == 1 && a.immediate == 0xff && a.length == 7);
    CHECK(!mmio_decode_access(imm8, 6, true, &a));      /* its immediate cut off */
    /* not supported: 16-bit, register operands, other opcodes, truncated */
    static const uint8_t word[] = { 0x66, 0x8b, 0x00 };
    static const uint8_t regs[] = { 0x8b, 0xc1 };
    static const uint8_t stos[] = { 0xf3, 0xaa };
    CHECK(!mmio_decode_access(word, sizeof(word), true, &a));
    CHECK(!mmio_decode_access(regs, sizeof(regs), true, &a));
    CHECK(!mmio_decode_access(stos, sizeof(stos), true, &a));
    CHECK(!mmio_decode_access(moffs32, 3, false, &a));
}
