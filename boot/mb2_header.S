/* Multiboot2 header (Multiboot2 spec, 3.1): magic, i386 architecture,
 * header length, checksum, then tags. Must lie in the first 32 KiB of the
 * image, 8-byte aligned; linker.ld puts .multiboot2 first. */
#define MB2_HEADER_MAGIC 0xe85250d6
#define MB2_ARCH_I386    0
#define MB2_TAG_END      0
#define MB2_TAG_FRAMEBUFFER  5
#define MB2_TAG_OPTIONAL     1
#define MB2_TAG_MODULE_ALIGN 6

    .section .multiboot2, "a"
    .balign 8
mb2_header_start:
    .long MB2_HEADER_MAGIC
    .long MB2_ARCH_I386
    .long mb2_header_end - mb2_header_start
    .long -(MB2_HEADER_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header_start))

    /* Ask for page-aligned modules: the guest kernel and initrd are
     * copied or mapped in whole pages. */
    .balign 8
    .short MB2_TAG_MODULE_ALIGN
    .short 0
    .long 8

    /* Ask for a framebuffer, optionally (spec 3.1.10): under UEFI there is
     * no text mode, and Vertigo's console can draw on the pixels
     * (console=fb, vmm/console/screen_console.c). 1024x768x32 is a preference;
     * GRUB falls back to another mode. On a BIOS boot the ISO's GRUB menu
     * keeps the VGA text mode (gfxpayload=text, host-tools/mkiso), which
     * GRUB then describes as an EGA text framebuffer (console=vga). */
    .balign 8
    .short MB2_TAG_FRAMEBUFFER
    .short MB2_TAG_OPTIONAL
    .long 20
    .long 1024
    .long 768
    .long 32

    .balign 8
    .short MB2_TAG_END
    .short 0
    .long 8
mb2_header_end:
