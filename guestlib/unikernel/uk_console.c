/* Kernel-mode console output (CPL 0): VERTIGO_HC_CONSOLE_WRITE, which
 * Vertigo refuses from user mode, in pieces of at most VERTIGO_CONSOLE_WRITE_MAX bytes. Numbers
 * are formatted here without newlib, so a fault inside newlib can still be
 * reported. */
#include "guestlib/unikernel/uk_kernel.h"
#include "guestlib/vertigo_vmcall.h"

void uk_console_write(const char *s, size_t len)
{
    while (len) {
        size_t n = len < VERTIGO_CONSOLE_WRITE_MAX ? len : VERTIGO_CONSOLE_WRITE_MAX;
        if (vertigo_hypercall2(VERTIGO_HC_CONSOLE_WRITE, (uint64_t)s, n) < 0)
            return;
        s += n;
        len -= n;
    }
}

void uk_console_puts(const char *s)
{
    size_t n = 0;

    while (s[n])
        n++;
    uk_console_write(s, n);
}

void uk_console_hex(uint64_t v)
{
    char buf[18] = "0x";

    for (int i = 0; i < 16; i++)
        buf[2 + i] = "0123456789abcdef"[(v >> (60 - 4 * i)) & 0xf];
    uk_console_write(buf, sizeof(buf));
}

void uk_console_dec(uint64_t v)
{
    char buf[20];
    size_t i = sizeof(buf);

    do {
        buf[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    uk_console_write(buf + i, sizeof(buf) - i);
}
