/* console= (vmm/console/console_option.c): the channels of a list, several at once
 * (two UARTs too); words it does not know, a third serial port and empty
 * or long words leave the default console (COM1) with a reason naming the
 * word. */
#include "tests/unit/unit.h"

#include <string.h>

#include "vmm/console/console_option.h"

struct option_case {
    const char *value;
    bool ok;
    uint16_t uart, uart2;
    bool vga, fb;
    const char *why;             /* the reason's text, or NULL */
};

static const struct option_case cases[] = {
    { "com1", true, CONSOLE_COM1, 0, false, false, NULL },
    { "com2", true, CONSOLE_COM2, 0, false, false, NULL },
    { "vga", true, 0, 0, true, false, NULL },
    { "fb", true, 0, 0, false, true, NULL },
    { "none", true, 0, 0, false, false, NULL },
    { "vga,com2", true, CONSOLE_COM2, 0, true, false, NULL },
    { "com1,vga,fb", true, CONSOLE_COM1, 0, true, true, NULL },
    { "0x3e8,fb", true, 0x3e8, 0, false, true, NULL },
    { "com1,com1", true, CONSOLE_COM1, 0, false, false, NULL },
    { "vga,screen", false, CONSOLE_COM1, 0, false, false,
      "unknown console 'screen' (com1, com2, a UART port, vga, fb, none)" },
    { "com1,com2", true, CONSOLE_COM1, CONSOLE_COM2, false, false, NULL },
    { "fb,com2,vga,0x3e8", true, CONSOLE_COM2, 0x3e8, true, true, NULL },
    { "com2,com1,com2", true, CONSOLE_COM2, CONSOLE_COM1, false, false, NULL },
    { "com1,com2,0x3e8", false, CONSOLE_COM1, 0, false, false,
      "'0x3e8' would be serial console number 3 (at most 2)" },
    { "vga,,fb", false, CONSOLE_COM1, 0, false, false, "an empty word in console=vga,,fb" },
    { "", false, CONSOLE_COM1, 0, false, false, "an empty word in console=" },
    { "vga,abcdefghijklmnopqrstuvwxyz", false, CONSOLE_COM1, 0, false, false,
      "too long a word in console=vga,abcdefghijklmnopqrstuvwxyz" },
    { "0", false, CONSOLE_COM1, 0, false, false,
      "unknown console '0' (com1, com2, a UART port, vga, fb, none)" },
    { "0xfff8", false, CONSOLE_COM1, 0, false, false,
      "unknown console '0xfff8' (com1, com2, a UART port, vga, fb, none)" },
};

TEST(console_lists)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct option_case *c = &cases[i];
        struct console_choice got = { .uart_ports = { 1, 1 }, .vga = true, .fb = true };
        char why[128] = "";
        bool ok = console_option_parse(c->value, &got, why, sizeof(why));
        if (ok != c->ok || got.uart_ports[0] != c->uart || got.uart_ports[1] != c->uart2 ||
            got.vga != c->vga || got.fb != c->fb)
            printf("  console=%s\n", c->value);
        CHECK_EQ(ok, c->ok);
        CHECK_EQ(got.uart_ports[0], c->uart);
        CHECK_EQ(got.uart_ports[1], c->uart2);
        CHECK_EQ(got.vga, c->vga);
        CHECK_EQ(got.fb, c->fb);
        CHECK_STR(why, c->why ? c->why : "");
    }
}
