/* The screen console's bitmap font (vmm/console/font.c): FONT_WIDTH x FONT_HEIGHT
 * dots per glyph, one byte per row, bit FONT_WIDTH-1 the leftmost dot.
 * Portable: the hypervisor draws with it, host tests read screens with it. */
#ifndef VMM_FONT_H
#define VMM_FONT_H

#include <stdint.h>

#define FONT_WIDTH  5
#define FONT_HEIGHT 7
#define FONT_FIRST  0x20    /* ' ' */
#define FONT_LAST   0x7e    /* '~' */

/* The FONT_HEIGHT rows of c's glyph; a hollow box for a byte outside
 * FONT_FIRST..FONT_LAST. Never NULL. */
const uint8_t *font_glyph(char c);

#endif
