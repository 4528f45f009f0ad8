/* What the boot loader told us, in one loader-independent structure.
 * Filled by mb2_parse() (vmm/loader/mb2.c) from the multiboot2 information. */
#ifndef VMM_BOOT_INFO_H
#define VMM_BOOT_INFO_H

#include <stdbool.h>
#include <stdint.h>

#define BOOT_MAX_MEM_RANGES 128
#define BOOT_MAX_MODULES    16

/* Memory types use the e820 numbering (ACPI spec, "Address Range Types");
 * EFI memory types are converted to these. */
enum mem_type {
    MEM_USABLE       = 1,
    MEM_RESERVED     = 2,
    MEM_ACPI_RECLAIM = 3,
    MEM_ACPI_NVS     = 4,
    MEM_BAD          = 5,
};

struct mem_range {
    uint64_t base;
    uint64_t length;
    uint32_t type;              /* enum mem_type */
};

struct boot_module {
    uint64_t start;             /* physical, first byte */
    uint64_t end;               /* physical, one past the last byte */
    const char *cmdline;        /* points into the multiboot2 info; "" if none */
};

enum mem_map_source {
    MEM_MAP_NONE = 0,
    MEM_MAP_E820,               /* multiboot2 tag 6 */
    MEM_MAP_EFI,                /* multiboot2 tag 17 */
};

/* The display the loader set up (multiboot2 tag 8), when it says. */
enum boot_fb_type {
    BOOT_FB_INDEXED = 0,        /* a palette: not drawn on */
    BOOT_FB_RGB = 1,            /* direct colour pixels (UEFI GOP, VBE) */
    BOOT_FB_EGA_TEXT = 2,       /* VGA text mode; width x height characters */
};

struct boot_framebuffer {
    uint64_t addr;              /* physical */
    uint32_t pitch;             /* bytes per line */
    uint32_t width, height;     /* pixels, or characters for EGA text */
    uint8_t bpp;
    uint8_t type;               /* enum boot_fb_type */
    /* BOOT_FB_RGB only: each colour's lowest bit and width. */
    uint8_t red_pos, red_size, green_pos, green_size, blue_pos, blue_size;
};

struct boot_info {
    const char *cmdline;        /* "" when the loader passed none */
    const char *loader_name;    /* "" when absent */

    struct mem_range mem[BOOT_MAX_MEM_RANGES]; /* sorted by base, no overlaps */
    uint32_t mem_count;
    enum mem_map_source mem_source;

    struct boot_module modules[BOOT_MAX_MODULES];
    uint32_t module_count;

    /* ACPI RSDP: the loader copies it into the info blob (tags 14/15). */
    const void *rsdp;           /* NULL when absent */
    uint32_t rsdp_length;
    uint8_t rsdp_revision;      /* 0 for ACPI 1.0 (old tag), >= 2 for new */

    bool has_fb;                /* the loader gave a framebuffer tag */
    struct boot_framebuffer fb;

    uint64_t info_phys;         /* the multiboot2 info blob itself */
    uint32_t info_size;
};

#endif
