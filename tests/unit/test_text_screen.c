/* The screen console's drawing (vmm/console/text_screen.c) into host buffers: EGA
 * text cells (characters, attribute, wrap, scroll, tab) and pixels (each
 * cell's dots are exactly the font's glyph, scaled, in the colour the
 * layout gives; the geometry; scrolling; layouts refused with a reason). */
#include "tests/unit/unit.h"

#include <stdlib.h>
#include <string.h>

#include "vmm/console/font.h"
#include "vmm/console/text_screen.h"

static void puts_screen(struct text_screen *s, const char *text)
{
    while (*text)
        text_screen_putc(s, *text++);
}

/* Row r of a cell screen as text. */
static void cell_row(const struct text_screen *s, uint32_t r, char *out)
{
    for (uint32_t c = 0; c < s->cols; c++)
        out[c] = (char)s->base[r * s->pitch + 2 * c];
    out[s->cols] = '\0';
}

TEST(cells_write_wrap_and_scroll)
{
    uint8_t mem[4 * 12];
    memset(mem, 0xee, sizeof(mem));
    struct text_screen s;
    CHECK(!text_screen_cells(&s, mem, 6, 4, 11));          /* pitch < 2 * cols */
    CHECK(text_screen_cells(&s, mem, 6, 4, 12));
    CHECK_EQ(mem[1], TEXT_CELL_ATTR);
    char row[8];
    puts_screen(&s, "ab\tc\nhello world");
    cell_row(&s, 0, row);
    CHECK_STR(row, "ab    ");                              /* the tab went to column 8: next line */
    cell_row(&s, 1, row);
    CHECK_STR(row, "c     ");
    cell_row(&s, 2, row);
    CHECK_STR(row, "hello ");
    cell_row(&s, 3, row);
    CHECK_STR(row, "world ");
    puts_screen(&s, "\r\n\x01z");                          /* at the bottom: scrolls */
    cell_row(&s, 0, row);
    CHECK_STR(row, "c     ");
    cell_row(&s, 3, row);
    CHECK_STR(row, "\x01z    ");
    CHECK_EQ(mem[3 * 12 + 5], TEXT_CELL_ATTR);
}

/* Whether cell (col, row) of a 32-bit pixel screen shows exactly c. */
static bool cell_shows(const struct text_screen *s, uint32_t col, uint32_t row, char c)
{
    const uint8_t *g = font_glyph(c);
    for (uint32_t dy = 0; dy < TEXT_CELL_HEIGHT * s->scale; dy++)
        for (uint32_t dx = 0; dx < TEXT_CELL_WIDTH * s->scale; dx++) {
            uint32_t x = col * TEXT_CELL_WIDTH * s->scale + dx;
            uint32_t y = row * TEXT_CELL_HEIGHT * s->scale + dy;
            uint32_t v;
            memcpy(&v, s->base + y * s->pitch + x * 4, 4);
            int gy = (int)(dy / s->scale) - TEXT_GLYPH_TOP;
            uint32_t gx = dx / s->scale;
            bool on = gy >= 0 && gy < FONT_HEIGHT && gx < FONT_WIDTH &&
                      (g[gy] >> (FONT_WIDTH - 1 - gx)) & 1u;
            if (v != (on ? s->fg : s->bg))
                return false;
        }
    return true;
}

static const struct text_pixels xrgb_1024x768 = {
    .width = 1024, .height = 768, .pitch = 4096 + 64, .bits = 32,
    .red_pos = 16, .red_size = 8, .green_pos = 8, .green_size = 8, .blue_pos = 0, .blue_size = 8,
};

TEST(pixels_draw_the_font)
{
    struct text_pixels px = xrgb_1024x768;
    uint8_t *mem = malloc((size_t)px.height * px.pitch);
    CHECK(mem != NULL);
    if (!mem)
        return;
    memset(mem, 0x5a, (size_t)px.height * px.pitch);      /* what the firmware left */
    struct text_screen s;
    CHECK(text_screen_pixels(&s, mem, &px) == NULL);
    uint32_t corner;                                       /* a margin no cell covers */
    memcpy(&corner, mem + (size_t)(px.height - 1) * px.pitch + (px.width - 1) * 4, 4);
    CHECK_EQ(corner, 0);
    CHECK_EQ(s.scale, 2);                                  /* 85 x 42 characters */
    CHECK_EQ(s.cols, 1024 / 12);
    CHECK_EQ(s.rows, 768 / 18);
    CHECK_EQ(s.fg, 0x00ffffffu);
    puts_screen(&s, "Vertigo: cannot run\n~");
    CHECK(cell_shows(&s, 0, 0, 'V'));
    CHECK(cell_shows(&s, 7, 0, ':'));
    CHECK(cell_shows(&s, 18, 0, 'n'));
    CHECK(cell_shows(&s, 0, 1, '~'));
    CHECK(!cell_shows(&s, 0, 1, '-'));
    CHECK(cell_shows(&s, 1, 1, ' '));
    for (uint32_t r = 0; r < s.rows; r++)                 /* scroll everything off */
        text_screen_putc(&s, '\n');
    CHECK(cell_shows(&s, 0, 0, ' '));
    CHECK(cell_shows(&s, 0, s.rows - 1, ' '));
    free(mem);
}

TEST(pixel_geometry)
{
    uint32_t scale, cols, rows;
    text_screen_geometry(800, 600, &scale, &cols, &rows);
    CHECK_EQ(scale, 1);
    CHECK_EQ(cols, 133);
    CHECK_EQ(rows, 66);
    text_screen_geometry(1920, 1080, &scale, &cols, &rows);
    CHECK_EQ(scale, 4);
    CHECK_EQ(cols, 80);
    CHECK_EQ(rows, 30);
    text_screen_geometry(320, 200, &scale, &cols, &rows);
    CHECK_EQ(scale, 1);
}

TEST(pixel_layouts_refused)
{
    struct text_screen s;
    uint8_t mem[64];
    struct text_pixels px = xrgb_1024x768;
    px.bits = 8;
    CHECK_STR(text_screen_pixels(&s, mem, &px), "not 16, 24 or 32 bits per pixel");
    px = xrgb_1024x768;
    px.red_pos = 28;
    CHECK_STR(text_screen_pixels(&s, mem, &px), "a colour field lies outside the pixel");
    px = xrgb_1024x768;
    px.pitch = 1024;
    CHECK_STR(text_screen_pixels(&s, mem, &px), "a pixel row is longer than the pitch");
    px = xrgb_1024x768;
    px.height = 4;
    CHECK_STR(text_screen_pixels(&s, mem, &px), "smaller than one character");
    CHECK_STR(text_screen_pixels(&s, NULL, &xrgb_1024x768), "no framebuffer address");
}
