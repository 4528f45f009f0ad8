/* The console= option of Vertigo's command line: a comma-separated list
 * of where its console text goes, several at once: com1, com2 or a UART
 * port number (up to CONSOLE_UARTS_MAX serial consoles), vga (the BIOS
 * text screen), fb (the loader's pixel framebuffer, UEFI GOP), none.
 * Portable, host-tested. */
#ifndef VMM_CONSOLE_OPTION_H
#define VMM_CONSOLE_OPTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/console.h"

#define CONSOLE_COM1 0x3f8
#define CONSOLE_COM2 0x2f8

struct console_choice {
    uint16_t uart_ports[CONSOLE_UARTS_MAX];  /* in the list's order; 0: none */
    bool vga;               /* the VGA text screen */
    bool fb;                /* the framebuffer */
};

/* The choice without a console= option: COM1. */
#define CONSOLE_DEFAULT ((struct console_choice){ .uart_ports = { CONSOLE_COM1 } })

/* Parses the option's value into *out (a port named twice counts once).
 * On a word it does not know, or more serial ports than
 * CONSOLE_UARTS_MAX, it leaves *out at CONSOLE_DEFAULT and returns false
 * with the reason in why (why_size bytes, NUL-terminated). */
bool console_option_parse(const char *value, struct console_choice *out, char *why,
                          size_t why_size);

#endif
