/* Drawing text into screen memory (see text_screen.h). */
#include "vmm/console/text_screen.h"

#include "vmm/console/font.h"
#include "lib/mem.h"

#define TAB_WIDTH 8

bool text_screen_cells(struct text_screen *s, void *base, uint32_t cols, uint32_t rows,
                       uint32_t pitch)
{
    if (!base || cols == 0 || rows == 0 || pitch < 2 * cols)
        return false;
    *s = (struct text_screen){ .kind = TEXT_SCREEN_CELLS, .base = base, .pitch = pitch,
                               .cols = cols, .rows = rows };
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t c = 0; c < cols; c++) {
            s->base[r * pitch + 2 * c] = ' ';
            s->base[r * pitch + 2 * c + 1] = TEXT_CELL_ATTR;
        }
    return true;
}

void text_screen_geometry(uint32_t width, uint32_t height, uint32_t *scale, uint32_t *cols,
                          uint32_t *rows)
{
    uint32_t sx = width / (TEXT_MIN_COLS * TEXT_CELL_WIDTH);
    uint32_t sy = height / (TEXT_MIN_ROWS * TEXT_CELL_HEIGHT);
    uint32_t k = sx < sy ? sx : sy;
    k = k < 1 ? 1 : k > TEXT_MAX_SCALE ? TEXT_MAX_SCALE : k;
    *scale = k;
    *cols = width / (TEXT_CELL_WIDTH * k);
    *rows = height / (TEXT_CELL_HEIGHT * k);
}

/* The pixel value of full intensity in a field of size bits at pos. */
static uint32_t full(uint8_t pos, uint8_t size)
{
    return (uint32_t)((1ull << size) - 1) << pos;
}

static bool field_fits(uint8_t pos, uint8_t size, uint8_t bits)
{
    return size >= 1 && size <= 8 && pos + size <= bits;
}

static const char *check_pixels(const struct text_pixels *px)
{
    if (px->bits != 16 && px->bits != 24 && px->bits != 32)
        return "not 16, 24 or 32 bits per pixel";
    if (!field_fits(px->red_pos, px->red_size, px->bits) ||
        !field_fits(px->green_pos, px->green_size, px->bits) ||
        !field_fits(px->blue_pos, px->blue_size, px->bits))
        return "a colour field lies outside the pixel";
    if (px->width < TEXT_CELL_WIDTH || px->height < TEXT_CELL_HEIGHT)
        return "smaller than one character";
    if ((uint64_t)px->width * (px->bits / 8) > px->pitch)
        return "a pixel row is longer than the pitch";
    return NULL;
}

/* Pixel rows y0 .. y0 + lines - 1 in the background colour. */
static void fill_pixels(struct text_screen *s, uint32_t y0, uint32_t lines)
{
    for (uint32_t y = y0; y < y0 + lines; y++) {
        uint8_t *p = s->base + (uint64_t)y * s->pitch;
        for (uint32_t x = 0; x < s->width; x++, p += s->bytes)
            for (uint32_t b = 0; b < s->bytes; b++)
                p[b] = (uint8_t)(s->bg >> (8 * b));
    }
}

const char *text_screen_pixels(struct text_screen *s, void *base, const struct text_pixels *px)
{
    const char *why = base ? check_pixels(px) : "no framebuffer address";
    if (why)
        return why;
    *s = (struct text_screen){ .kind = TEXT_SCREEN_PIXELS, .base = base, .pitch = px->pitch,
                               .width = px->width, .height = px->height,
                               .bytes = px->bits / 8u, .bg = 0 };
    s->fg = full(px->red_pos, px->red_size) | full(px->green_pos, px->green_size) |
            full(px->blue_pos, px->blue_size);
    text_screen_geometry(px->width, px->height, &s->scale, &s->cols, &s->rows);
    fill_pixels(s, 0, s->height);
    return NULL;
}

static void put_pixel(struct text_screen *s, uint32_t x, uint32_t y, uint32_t value)
{
    uint8_t *p = s->base + (uint64_t)y * s->pitch + (uint64_t)x * s->bytes;
    for (uint32_t b = 0; b < s->bytes; b++)
        p[b] = (uint8_t)(value >> (8 * b));
}

/* The whole cell (col, row) in pixels: the glyph's dots, blank elsewhere. */
static void draw_glyph(struct text_screen *s, uint32_t col, uint32_t row, char c)
{
    const uint8_t *g = font_glyph(c);
    uint32_t x0 = col * TEXT_CELL_WIDTH * s->scale, y0 = row * TEXT_CELL_HEIGHT * s->scale;
    for (uint32_t dy = 0; dy < TEXT_CELL_HEIGHT * s->scale; dy++) {
        int gy = (int)(dy / s->scale) - TEXT_GLYPH_TOP;
        uint8_t bits = gy >= 0 && gy < FONT_HEIGHT ? g[gy] : 0;
        for (uint32_t dx = 0; dx < TEXT_CELL_WIDTH * s->scale; dx++) {
            uint32_t gx = dx / s->scale;
            bool on = gx < FONT_WIDTH && (bits >> (FONT_WIDTH - 1 - gx)) & 1u;
            put_pixel(s, x0 + dx, y0 + dy, on ? s->fg : s->bg);
        }
    }
}

static void draw(struct text_screen *s, uint32_t col, uint32_t row, char c)
{
    if (s->kind == TEXT_SCREEN_CELLS) {
        s->base[row * s->pitch + 2 * col] = (uint8_t)c;
        s->base[row * s->pitch + 2 * col + 1] = TEXT_CELL_ATTR;
    } else {
        draw_glyph(s, col, row, c);
    }
}

/* Everything one character row up; the last row blank. */
static void scroll(struct text_screen *s)
{
    if (s->kind == TEXT_SCREEN_CELLS) {
        memmove(s->base, s->base + s->pitch, (s->rows - 1) * s->pitch);
        for (uint32_t c = 0; c < s->cols; c++)
            draw(s, c, s->rows - 1, ' ');
        return;
    }
    uint32_t band = TEXT_CELL_HEIGHT * s->scale;
    memmove(s->base, s->base + (uint64_t)band * s->pitch, (uint64_t)(s->rows - 1) * band * s->pitch);
    fill_pixels(s, (s->rows - 1) * band, band);
}

static void new_line(struct text_screen *s)
{
    s->col = 0;
    if (s->row + 1 < s->rows)
        s->row++;
    else
        scroll(s);
}

void text_screen_putc(struct text_screen *s, char c)
{
    switch (c) {
    case '\n':
        new_line(s);
        return;
    case '\r':
        s->col = 0;
        return;
    case '\t': {
        uint32_t stop = (s->col / TAB_WIDTH + 1) * TAB_WIDTH;
        if (stop >= s->cols) {
            new_line(s);
            return;
        }
        while (s->col < stop)
            text_screen_putc(s, ' ');
        return;
    }
    default:
        if (s->col == s->cols)
            new_line(s);
        draw(s, s->col, s->row, c);
        s->col++;
    }
}
