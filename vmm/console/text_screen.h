/* A text console drawn into memory: the screen console's portable part.
 * Two kinds of screen: EGA text cells (a character byte and an attribute
 * byte each, the BIOS's VGA text mode) and pixels of a linear framebuffer
 * (UEFI GOP), where each character is a glyph of vmm/console/font.h scaled up.
 * Lines wrap at the right edge; at the bottom the screen scrolls. The
 * memory may be a device's (vmm/console/screen_console.c binds it) or a host
 * buffer (unit tests). */
#ifndef VMM_TEXT_SCREEN_H
#define VMM_TEXT_SCREEN_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/console/font.h"

#define TEXT_CELL_ATTR     0x07   /* light grey on black */
/* A character cell of a pixel screen, in font dots: the glyph, a blank
 * column right of it, a blank row above and one below. */
#define TEXT_CELL_WIDTH    (FONT_WIDTH + 1)
#define TEXT_CELL_HEIGHT   (FONT_HEIGHT + 2)
#define TEXT_GLYPH_TOP     1
/* The scale is chosen so that at least this many characters fit. */
#define TEXT_MIN_COLS      80
#define TEXT_MIN_ROWS      25
#define TEXT_MAX_SCALE     4

enum text_screen_kind { TEXT_SCREEN_CELLS, TEXT_SCREEN_PIXELS };

/* A linear framebuffer's pixel layout (the multiboot2 framebuffer tag's
 * direct-RGB fields). */
struct text_pixels {
    uint32_t width, height;     /* pixels */
    uint32_t pitch;             /* bytes from one pixel row to the next */
    uint8_t bits;               /* bits per pixel: 16, 24 or 32 */
    uint8_t red_pos, red_size, green_pos, green_size, blue_pos, blue_size;
};

struct text_screen {
    enum text_screen_kind kind;
    uint8_t *base;
    uint32_t pitch;             /* bytes per cell row (cells) or pixel row (pixels) */
    uint32_t cols, rows;        /* characters */
    uint32_t col, row;          /* where the next character goes */
    uint32_t width, height;     /* pixels: the whole screen */
    uint32_t scale;             /* pixels: a font dot is scale x scale pixels */
    uint32_t bytes;             /* pixels: bytes per pixel */
    uint32_t fg, bg;            /* pixels: the values written */
};

/* A cell screen of cols x rows at base, pitch bytes per row (at least
 * 2 * cols). Cleared. False (nothing written) for an impossible size. */
bool text_screen_cells(struct text_screen *s, void *base, uint32_t cols, uint32_t rows,
                       uint32_t pitch);

/* A pixel screen at base, cleared whole (also the margins no character
 * covers). Returns NULL, or why the layout cannot be drawn (nothing
 * written then). */
const char *text_screen_pixels(struct text_screen *s, void *base, const struct text_pixels *px);

/* The scale and the characters a width x height pixel screen holds. */
void text_screen_geometry(uint32_t width, uint32_t height, uint32_t *scale, uint32_t *cols,
                          uint32_t *rows);

/* Writes c at the cursor: '\n' starts a new line, '\r' goes back to the
 * line's start, '\t' to the next multiple of 8 (the next line
 * when that is past the end of this one), other bytes are drawn
 * (a box for bytes the font lacks). */
void text_screen_putc(struct text_screen *s, char c);

#endif
