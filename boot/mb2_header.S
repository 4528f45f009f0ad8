/* Multiboot2 header (Multiboot2 spec, 3.1): magic, i386 architecture,
 * header length, checksum, then tags. Must lie in the first 32 KiB of the
 * image, 8-byte aligned; linker.ld puts .multiboot2 first. */
#define MB2_HEADER_MAGIC 0xe85250d6
#define MB2_ARCH_I386    0
#define MB2_TAG_END      0
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

    .balign 8
    .short MB2_TAG_END
    .short 0
    .long 8
mb2_header_end:
