/* screen-text: reads back the text of Vertigo's screen console from what
 * QEMU's monitor saved (host-tools/vertigo-run --screen), for the e2e
 * tests of tests/e2e/boot.sh.
 *
 *   screen-text vga FILE   FILE: VGA text memory (pmemsave of 0xB8000),
 *                          80x25 cells: prints the 25 rows
 *   screen-text ppm FILE   FILE: a binary PPM screendump of a framebuffer
 *                          console: prints "# WxH scale S, C x R characters,
 *                          N lit pixels", then each character row, every
 *                          cell read by matching its pixels exactly
 *                          against vmm/console/font.c's glyphs (the same geometry
 *                          as vmm/console/text_screen.c): '?' where no glyph
 *                          matches (so a row of text shows the font was
 *                          drawn dot for dot)
 * Exit status 0, or 1 with a message for a file it cannot read. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/console/font.h"
#include "vmm/console/text_screen.h"

#define VGA_COLS 80
#define VGA_ROWS 25
#define PPM_MAX_SIDE 16384

static int print_vga(FILE *f, const char *path)
{
    unsigned char cells[VGA_COLS * VGA_ROWS * 2];
    if (fread(cells, 1, sizeof(cells), f) != sizeof(cells)) {
        fprintf(stderr, "screen-text: %s: shorter than %zu bytes of VGA text\n", path, sizeof(cells));
        return 1;
    }
    for (int r = 0; r < VGA_ROWS; r++) {
        for (int c = 0; c < VGA_COLS; c++) {
            unsigned char ch = cells[2 * (r * VGA_COLS + c)];
            putchar(ch >= FONT_FIRST && ch <= FONT_LAST ? ch : '?');
        }
        putchar('\n');
    }
    return 0;
}

struct image {
    unsigned w, h;
    unsigned char *rgb;
};

static bool lit(const struct image *im, unsigned x, unsigned y)
{
    const unsigned char *p = im->rgb + 3 * ((size_t)y * im->w + x);
    return p[0] | p[1] | p[2];
}

/* Whether the cell at pixel (x0, y0) shows c, dot for dot. */
static bool cell_is(const struct image *im, unsigned scale, unsigned x0, unsigned y0, char c)
{
    const uint8_t *g = font_glyph(c);
    for (unsigned dy = 0; dy < TEXT_CELL_HEIGHT * scale; dy++) {
        int gy = (int)(dy / scale) - TEXT_GLYPH_TOP;
        for (unsigned dx = 0; dx < TEXT_CELL_WIDTH * scale; dx++) {
            unsigned gx = dx / scale;
            bool on = gy >= 0 && gy < FONT_HEIGHT && gx < FONT_WIDTH &&
                      (g[gy] >> (FONT_WIDTH - 1 - gx)) & 1u;
            if (on != lit(im, x0 + dx, y0 + dy))
                return false;
        }
    }
    return true;
}

static char read_cell(const struct image *im, unsigned scale, unsigned x0, unsigned y0)
{
    for (int c = FONT_FIRST; c <= FONT_LAST; c++)
        if (cell_is(im, scale, x0, y0, (char)c))
            return (char)c;
    return '?';
}

static bool read_ppm(FILE *f, struct image *im)
{
    unsigned maxval;
    if (fscanf(f, "P6 %u %u %u", &im->w, &im->h, &maxval) != 3 || maxval != 255 ||
        fgetc(f) == EOF || im->w == 0 || im->h == 0 || im->w > PPM_MAX_SIDE || im->h > PPM_MAX_SIDE)
        return false;
    size_t n = (size_t)im->w * im->h * 3;
    im->rgb = malloc(n);
    return im->rgb && fread(im->rgb, 1, n, f) == n;
}

static int print_ppm(FILE *f, const char *path)
{
    struct image im = { 0 };
    if (!read_ppm(f, &im)) {
        fprintf(stderr, "screen-text: %s: not a binary PPM (P6, maxval 255) of the size it claims\n", path);
        free(im.rgb);
        return 1;
    }
    unsigned scale, cols, rows;
    text_screen_geometry(im.w, im.h, &scale, &cols, &rows);
    size_t on = 0;
    for (unsigned y = 0; y < im.h; y++)
        for (unsigned x = 0; x < im.w; x++)
            on += lit(&im, x, y);
    printf("# %ux%u scale %u, %u x %u characters, %zu lit pixels\n", im.w, im.h, scale, cols, rows, on);
    for (unsigned r = 0; r < rows; r++) {
        for (unsigned c = 0; c < cols; c++)
            putchar(read_cell(&im, scale, c * TEXT_CELL_WIDTH * scale, r * TEXT_CELL_HEIGHT * scale));
        putchar('\n');
    }
    free(im.rgb);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "vga") && strcmp(argv[1], "ppm"))) {
        fprintf(stderr, "usage: screen-text vga|ppm FILE\n");
        return 2;
    }
    FILE *f = fopen(argv[2], "rb");
    if (!f) {
        perror(argv[2]);
        return 1;
    }
    int status = !strcmp(argv[1], "vga") ? print_vga(f, argv[2]) : print_ppm(f, argv[2]);
    fclose(f);
    return status;
}
