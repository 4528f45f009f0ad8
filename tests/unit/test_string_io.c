/* Unit tests: the registers of a string I/O instruction after each
 * element (vmm/vhw/string_io.c), as the processor updates them. */
#include "vmm/vhw/string_io.h"

#include "tests/unit/unit.h"

/* kvm-unit-tests' emulator.flat: REP OUTSB of 16 bytes up, then down. */
TEST(rep_outsb_up_and_down_ends_after_count_elements)
{
    struct string_io s = { .in = false, .rep = true, .down = false, .size = 1, .addr_bits = 64 };
    struct string_io_regs r = { .rcx = 16, .rsi = 0x40a010, .rdi = 0x777 };
    CHECK(!string_io_empty(&s, &r));
    unsigned int n = 1;
    while (!string_io_advance(&s, &r))
        n++;
    CHECK_EQ(n, 16);
    CHECK_EQ(r.rcx, 0);
    CHECK_EQ(r.rsi, 0x40a020);
    CHECK_EQ(r.rdi, 0x777);                     /* OUTS leaves RDI alone */
    s.down = true;
    r = (struct string_io_regs){ .rcx = 16, .rsi = 0x40a01f };
    for (n = 1; !string_io_advance(&s, &r); n++)
        ;
    CHECK_EQ(n, 16);
    CHECK_EQ(r.rsi, 0x40a00f);
}

/* REP INSB of 1024 bytes; INSD moves RDI by four, without REP once. */
TEST(ins_moves_rdi_by_the_element_size)
{
    struct string_io s = { .in = true, .rep = true, .size = 1, .addr_bits = 64 };
    struct string_io_regs r = { .rcx = 1024, .rsi = 5, .rdi = 0x1000fc0 };
    unsigned int n = 1;
    while (!string_io_advance(&s, &r))
        n++;
    CHECK_EQ(n, 1024);
    CHECK_EQ(r.rdi, 0x1000fc0 + 1024);
    CHECK_EQ(r.rsi, 5);
    s = (struct string_io){ .in = true, .rep = false, .size = 4, .addr_bits = 64 };
    r = (struct string_io_regs){ .rcx = 7, .rdi = 0x2000 };
    CHECK(string_io_advance(&s, &r));           /* no REP: one element */
    CHECK_EQ(r.rdi, 0x2004);
    CHECK_EQ(r.rcx, 7);
    CHECK(!string_io_empty(&s, &(struct string_io_regs){ 0 }));   /* no REP: never empty */
}

/* The address size decides which bits of the registers count and move. */
TEST(the_address_size_wraps_and_keeps_or_clears_the_upper_bits)
{
    struct string_io s = { .in = true, .rep = true, .size = 2, .addr_bits = 16 };
    struct string_io_regs r = { .rcx = 0xabcd0000ull, .rdi = 0x12345ffffull };
    CHECK(string_io_empty(&s, &r));             /* CX = 0: nothing to do */
    r.rcx = 0xabcd0002ull;
    CHECK(!string_io_advance(&s, &r));
    CHECK_EQ(r.rdi, 0x123450001ull);            /* DI wraps, the rest kept */
    CHECK_EQ(r.rcx, 0xabcd0001ull);
    CHECK(string_io_advance(&s, &r));
    CHECK_EQ(r.rcx, 0xabcd0000ull);
    s = (struct string_io){ .in = false, .rep = true, .down = true, .size = 4, .addr_bits = 32 };
    r = (struct string_io_regs){ .rcx = 0xffffffff00000002ull, .rsi = 0x500000002ull };
    CHECK(!string_io_advance(&s, &r));
    CHECK_EQ(r.rsi, 0xfffffffeull);             /* ESI wraps, zero-extended */
    CHECK_EQ(r.rcx, 1);                         /* ECX written: zero-extended */
    CHECK(string_io_advance(&s, &r));
    CHECK_EQ(r.rcx, 0);
    s.addr_bits = 64;
    r = (struct string_io_regs){ .rcx = 1ull << 32 };
    CHECK(!string_io_empty(&s, &r));            /* RCX counts all 64 bits */
}
