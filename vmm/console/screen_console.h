/* Vertigo's console on a screen: the VGA text screen of a BIOS boot and
 * the pixel framebuffer a UEFI loader hands over (multiboot2 tag 8, which
 * boot/mb2_header.S asks for). The drawing is vmm/console/text_screen.c; this
 * binds it to the display's memory. */
#ifndef VMM_SCREEN_CONSOLE_H
#define VMM_SCREEN_CONSOLE_H

#include <stdbool.h>

#include "vmm/loader/boot_info.h"

/* Starts the console on the VGA text screen (the loader's EGA text
 * framebuffer, or 0xB8000 80x25 when a BIOS loader names none). False
 * after printing why not (a graphics mode, a UEFI boot). */
bool screen_console_open_vga(const struct boot_info *bi);

/* Starts the console on the loader's direct-colour framebuffer. False
 * after printing why not (none, text mode, outside the memory Vertigo
 * maps, a pixel layout it cannot draw). */
bool screen_console_open_fb(const struct boot_info *bi);

/* Draws c on every open screen (called under the console lock, or from an
 * NMI or exception that interrupted a printk: it must not wait). The first
 * screen that opens registers it with the console (lib/console.h). */
void screen_console_putc(char c);

#endif
