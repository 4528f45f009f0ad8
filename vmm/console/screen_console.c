/* The screens of Vertigo's console (see screen_console.h). Vertigo runs on
 * boot/entry32.S's identity map of the first 4 GiB, so a screen's physical
 * address is its pointer once it is known to lie there. */
#include "vmm/console/screen_console.h"

#include "lib/console.h"
#include "vmm/console/text_screen.h"

#define VGA_TEXT_ADDR   0xb8000ull
#define VGA_TEXT_COLS   80u
#define VGA_TEXT_ROWS   25u
#define IDENTITY_MAPPED (4ull << 30)
#define SCREENS_MAX     2u

static struct text_screen screens[SCREENS_MAX];
static unsigned int screen_count;

static bool mapped(uint64_t addr, uint64_t size)
{
    return addr < IDENTITY_MAPPED && size <= IDENTITY_MAPPED - addr;
}

static void add_screen(const struct text_screen *s, const char *what)
{
    screens[screen_count++] = *s;
    con_set_screen(screen_console_putc);
    printk("console: on the %s (%u x %u characters)\n", what, s->cols, s->rows);
}

bool screen_console_open_vga(const struct boot_info *bi)
{
    uint64_t addr = VGA_TEXT_ADDR;
    uint32_t cols = VGA_TEXT_COLS, rows = VGA_TEXT_ROWS, pitch = 2 * VGA_TEXT_COLS;
    if (bi->has_fb && bi->fb.type != BOOT_FB_EGA_TEXT) {
        printk("console: no VGA text screen: the loader set a %ux%u graphics mode (use console=fb)\n",
               bi->fb.width, bi->fb.height);
        return false;
    }
    if (!bi->has_fb && bi->mem_source == MEM_MAP_EFI) {
        printk("console: no VGA text screen on a UEFI boot (use console=fb)\n");
        return false;
    }
    if (bi->has_fb) {
        addr = bi->fb.addr;
        cols = bi->fb.width;
        rows = bi->fb.height;
        pitch = bi->fb.pitch;
    }
    struct text_screen s;
    if (screen_count == SCREENS_MAX || !mapped(addr, (uint64_t)pitch * rows) ||
        !text_screen_cells(&s, (void *)addr, cols, rows, pitch)) {
        printk("console: the loader's text screen (%ux%u at %#lx, pitch %u) cannot be used\n",
               cols, rows, addr, pitch);
        return false;
    }
    add_screen(&s, "VGA text screen");
    return true;
}

bool screen_console_open_fb(const struct boot_info *bi)
{
    const struct boot_framebuffer *fb = &bi->fb;
    if (!bi->has_fb || fb->type != BOOT_FB_RGB) {
        printk("console: no framebuffer: the loader gave %s (use console=vga on a BIOS boot)\n",
               !bi->has_fb ? "none" : fb->type == BOOT_FB_EGA_TEXT ? "a text screen" : "a palette mode");
        return false;
    }
    if (!mapped(fb->addr, (uint64_t)fb->pitch * fb->height)) {
        printk("console: the framebuffer at %#lx lies beyond the first 4 GiB, which Vertigo maps\n",
               fb->addr);
        return false;
    }
    struct text_pixels px = {
        .width = fb->width, .height = fb->height, .pitch = fb->pitch, .bits = fb->bpp,
        .red_pos = fb->red_pos, .red_size = fb->red_size, .green_pos = fb->green_pos,
        .green_size = fb->green_size, .blue_pos = fb->blue_pos, .blue_size = fb->blue_size,
    };
    struct text_screen s;
    const char *why = screen_count == SCREENS_MAX ? "no room for another screen"
                                                   : text_screen_pixels(&s, (void *)fb->addr, &px);
    if (why) {
        printk("console: the framebuffer (%ux%u, %u bits) cannot be drawn: %s\n",
               fb->width, fb->height, fb->bpp, why);
        return false;
    }
    add_screen(&s, "framebuffer");
    return true;
}

void screen_console_putc(char c)
{
    for (unsigned int i = 0; i < screen_count; i++)
        text_screen_putc(&screens[i], c);
}
