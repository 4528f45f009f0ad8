/* Finding and checking a multiboot header (see vmm/loader/multiboot.h).
 * Multiboot 0.6.96 section 3.1: a 32-bit aligned header in the first
 * 8 KiB, magic + flags + checksum = 0, flags bits 0-15 requirements the
 * loader must meet or refuse. Multiboot2 2.0 section 3.1: a 64-bit aligned
 * header in the first 32 KiB, magic + architecture + length + checksum =
 * 0, then 8-byte aligned tags, each required unless its optional flag is
 * set, up to an end tag. */
#include "vmm/loader/multiboot.h"

#include "lib/mem.h"

#define MB1_FLAG_PAGE_ALIGN  (1u << 0)     /* modules page-aligned: always done */
#define MB1_FLAG_MEMINFO     (1u << 1)     /* mem_* and mmap_*: always given */
#define MB1_FLAG_VIDEO       (1u << 2)     /* a video mode: no display here */
#define MB1_FLAG_ADDRESS     (1u << 16)    /* the a.out kludge fields */
#define MB1_REQUIREMENTS     0xffffu
#define MB1_ADDRESS_BYTES    32u           /* magic .. entry_addr */

#define MB2_ARCH_I386        0u
#define MB2_FIXED_BYTES      16u           /* magic, architecture, length, checksum */
#define MB2_TAG_OPTIONAL     1u
#define MB2_HTAG_END         0u
#define MB2_HTAG_INFO_REQ    1u
#define MB2_HTAG_ADDRESS     2u
#define MB2_HTAG_ENTRY       3u
#define MB2_HTAG_CONSOLE     4u
#define MB2_HTAG_FRAMEBUFFER 5u
#define MB2_HTAG_MOD_ALIGN   6u
#define MB2_HTAG_EFI_BS      7u
#define MB2_HTAG_EFI_I386    8u
#define MB2_HTAG_EFI_AMD64   9u
#define MB2_HTAG_RELOCATABLE 10u

static uint32_t u32_at(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static uint16_t u16_at(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static enum mb_status fail(struct mb_error *err, enum mb_status st, int index)
{
    *err = (struct mb_error){ st, index, 0, 0 };
    return st;
}

/* ---- multiboot (v1) ---- */

static enum mb_status check_v1(const uint8_t *image, size_t size, uint32_t off,
                               struct mb_header *h, struct mb_error *err)
{
    const uint8_t *p = image + off;
    uint32_t flags = u32_at(p + 4);
    if (u32_at(p) + flags + u32_at(p + 8) != 0)
        return fail(err, MB_ERR_CHECKSUM, -1);
    if (flags & MB1_FLAG_VIDEO)
        return fail(err, MB_ERR_VIDEO, -1);
    if (flags & MB1_REQUIREMENTS & ~(MB1_FLAG_PAGE_ALIGN | MB1_FLAG_MEMINFO))
        return fail(err, MB_ERR_REQUIREMENT, -1);
    *h = (struct mb_header){ .version = 1, .offset = off };
    if (!(flags & MB1_FLAG_ADDRESS))
        return MB_OK;
    if (size - off < MB1_ADDRESS_BYTES)
        return fail(err, MB_ERR_ADDRESS, -1);
    h->has_address = h->has_entry = true;
    h->header_addr = u32_at(p + 12);
    h->load_addr = u32_at(p + 16);
    h->load_end_addr = u32_at(p + 20);
    h->bss_end_addr = u32_at(p + 24);
    h->entry_addr = u32_at(p + 28);
    return MB_OK;
}

/* ---- multiboot2 ---- */

/* The information tags an information request may ask for. */
static bool info_tag_given(uint32_t type)
{
    return type == MB2_TAG_CMDLINE || type == MB2_TAG_LOADER_NAME || type == MB2_TAG_MODULE ||
           type == MB2_TAG_BASIC_MEM || type == MB2_TAG_MMAP || type == MB2_TAG_ACPI_NEW;
}

static enum mb_status check_info_request(const uint8_t *tag, uint32_t tag_size, bool optional,
                                         int index, struct mb_error *err)
{
    if (optional)
        return MB_OK;
    for (uint32_t at = 8; at + 4 <= tag_size; at += 4)
        if (!info_tag_given(u32_at(tag + at)))
            return fail(err, MB_ERR_INFO_REQUEST, index);
    return MB_OK;
}

/* One header tag; *end set at the end tag. */
static enum mb_status take_tag(const uint8_t *tag, uint32_t tag_size, int index,
                               struct mb_header *h, bool *end, struct mb_error *err)
{
    uint16_t type = u16_at(tag);
    bool optional = (u16_at(tag + 2) & MB2_TAG_OPTIONAL) != 0;

    switch (type) {
    case MB2_HTAG_END:
        *end = true;
        return MB_OK;
    case MB2_HTAG_INFO_REQ:
        return check_info_request(tag, tag_size, optional, index, err);
    case MB2_HTAG_ADDRESS:
        if (tag_size < 24)
            return fail(err, MB_ERR_HEADER_LENGTH, index);
        h->has_address = true;
        h->header_addr = u32_at(tag + 8);
        h->load_addr = u32_at(tag + 12);
        h->load_end_addr = u32_at(tag + 16);
        h->bss_end_addr = u32_at(tag + 20);
        return MB_OK;
    case MB2_HTAG_ENTRY:
        if (tag_size < 12)
            return fail(err, MB_ERR_HEADER_LENGTH, index);
        h->has_entry = true;
        h->entry_addr = u32_at(tag + 8);
        return MB_OK;
    case MB2_HTAG_FRAMEBUFFER:
        return optional ? MB_OK : fail(err, MB_ERR_VIDEO, index);
    case MB2_HTAG_CONSOLE:          /* the serial console is there */
    case MB2_HTAG_MOD_ALIGN:        /* modules are page-aligned anyway */
    case MB2_HTAG_EFI_BS:           /* not an EFI boot: these do not apply */
    case MB2_HTAG_EFI_I386:
    case MB2_HTAG_EFI_AMD64:
    case MB2_HTAG_RELOCATABLE:      /* loaded where it asks to be */
        return MB_OK;
    default:
        return optional ? MB_OK : fail(err, MB_ERR_UNKNOWN_TAG, index);
    }
}

static enum mb_status check_v2(const uint8_t *image, size_t size, uint32_t off,
                               struct mb_header *h, struct mb_error *err)
{
    const uint8_t *p = image + off;
    uint32_t arch = u32_at(p + 4), length = u32_at(p + 8);
    if (u32_at(p) + arch + length + u32_at(p + 12) != 0)
        return fail(err, MB_ERR_CHECKSUM, -1);
    if (arch != MB2_ARCH_I386)
        return fail(err, MB_ERR_ARCH, -1);
    if (length < MB2_FIXED_BYTES + 8 || length > size - off)
        return fail(err, MB_ERR_HEADER_LENGTH, -1);
    *h = (struct mb_header){ .version = 2, .offset = off };
    bool end = false;
    int index = 0;
    for (uint32_t at = MB2_FIXED_BYTES; !end; index++) {
        if (length - at < 8)
            return fail(err, MB_ERR_HEADER_LENGTH, index);
        uint32_t tag_size = u32_at(p + at + 4);
        if (tag_size < 8 || tag_size > length - at)
            return fail(err, MB_ERR_HEADER_LENGTH, index);
        enum mb_status st = take_tag(p + at, tag_size, index, h, &end, err);
        if (st != MB_OK)
            return st;
        at += (tag_size + 7) & ~7u;     /* tags are 8-byte aligned */
        if (!end && at >= length)
            return fail(err, MB_ERR_HEADER_LENGTH, index);
    }
    if (h->has_address && !h->has_entry)
        return fail(err, MB_ERR_ADDRESS, -1);   /* the a.out kludge needs its entry */
    return MB_OK;
}

/* The first offset at which `magic` sits, `align`-aligned, with room for
 * `room` bytes, in the first `limit` bytes; -1 if none. */
static long find_magic(const uint8_t *image, size_t size, uint32_t magic, size_t align,
                       size_t limit, size_t room)
{
    size_t end = size < limit ? size : limit;
    for (size_t off = 0; off + room <= size && off + 4 <= end; off += align)
        if (u32_at(image + off) == magic)
            return (long)off;
    return -1;
}

enum mb_status mb_header_find(const uint8_t *image, size_t size, struct mb_header *h,
                              struct mb_error *err)
{
    long off2 = find_magic(image, size, MB2_HEADER_MAGIC, 8, MB2_SEARCH_BYTES, MB2_FIXED_BYTES);
    if (off2 >= 0)
        return check_v2(image, size, (uint32_t)off2, h, err);
    long off1 = find_magic(image, size, MB1_HEADER_MAGIC, 4, MB1_SEARCH_BYTES, 12);
    if (off1 >= 0)
        return check_v1(image, size, (uint32_t)off1, h, err);
    return fail(err, MB_ERR_NO_HEADER, -1);
}
