/* bzImage validation per the Linux x86 boot protocol (boot.rst). Each
 * check reads only bytes already known to be inside the image. */
#include "vmm/loader/bzimage.h"

#include "lib/mem.h"

static const char *const bzimage_errors[] = {
    [BZIMAGE_OK]                  = "ok",
    [BZIMAGE_ERR_TRUNCATED]       = "image truncated (ends before header, setup or kernel)",
    [BZIMAGE_ERR_NO_BOOT_FLAG]    = "no 0xAA55 boot flag at offset 0x1fe: not a Linux kernel",
    [BZIMAGE_ERR_BAD_MAGIC]       = "no \"HdrS\" magic at offset 0x202: not a Linux kernel",
    [BZIMAGE_ERR_OLD_PROTOCOL]    = "boot protocol older than 2.12 (no 64-bit entry)",
    [BZIMAGE_ERR_BAD_HEADER_LEN]  = "setup header shorter than protocol 2.12 requires",
    [BZIMAGE_ERR_NOT_BZIMAGE]     = "LOADED_HIGH not set: zImage, not bzImage",
    [BZIMAGE_ERR_NOT_64BIT]       = "kernel has no 64-bit entry point (XLF_KERNEL_64 clear)",
    [BZIMAGE_ERR_NOT_RELOCATABLE] = "kernel is not relocatable",
    [BZIMAGE_ERR_BAD_ALIGNMENT]   = "kernel_alignment is not a power of two >= 4 KiB",
    [BZIMAGE_ERR_BAD_INIT_SIZE]   = "init_size is smaller than the kernel",
    [BZIMAGE_ERR_BAD_PAYLOAD]     = "payload lies outside the protected-mode kernel",
};

const char *bzimage_strerror(enum bzimage_status status)
{
    size_t n = sizeof(bzimage_errors) / sizeof(bzimage_errors[0]);
    if ((size_t)status >= n || !bzimage_errors[status])
        return "unknown bzImage error";
    return bzimage_errors[status];
}

static bool is_pow2(uint64_t v)
{
    return v && !(v & (v - 1));
}

/* Identity checks: boot flag, magic, protocol version, header length. */
static enum bzimage_status check_identity(const uint8_t *img, size_t size,
                                          struct bzimage_info *out)
{
    if (size < BZ_SETUP_HEADER_BASE + sizeof(uint32_t))
        return BZIMAGE_ERR_TRUNCATED;

    struct bz_setup_header *h = &out->hdr;
    size_t avail = size - BZ_SETUP_HEADER_OFFSET;
    size_t copy = avail < sizeof(*h) ? avail : sizeof(*h);
    memset(h, 0, sizeof(*h));
    memcpy(h, img + BZ_SETUP_HEADER_OFFSET, copy);

    if (h->boot_flag != BZ_BOOT_FLAG)
        return BZIMAGE_ERR_NO_BOOT_FLAG;
    if (h->header != BZ_HDRS_MAGIC)
        return BZIMAGE_ERR_BAD_MAGIC;
    if (copy < offsetof(struct bz_setup_header, version) + sizeof(h->version))
        return BZIMAGE_ERR_TRUNCATED;
    if (h->version < BZ_MIN_VERSION)
        return BZIMAGE_ERR_OLD_PROTOCOL;

    size_t end = BZ_SETUP_HEADER_BASE + img[BZ_SETUP_HEADER_LEN_OFF];
    if (end < BZ_MIN_HEADER_END)
        return BZIMAGE_ERR_BAD_HEADER_LEN;
    if (end > size)
        return BZIMAGE_ERR_TRUNCATED;
    out->header_end = end < BZ_SETUP_HEADER_MAX_END ? end : BZ_SETUP_HEADER_MAX_END;

    /* Fields past the header's declared end do not exist in this image. */
    size_t valid = out->header_end - BZ_SETUP_HEADER_OFFSET;
    if (valid < sizeof(*h))
        memset((uint8_t *)h + valid, 0, sizeof(*h) - valid);
    return BZIMAGE_OK;
}

/* Capability checks: bzImage, 64-bit entry, relocatable, alignment. */
static enum bzimage_status check_capabilities(const struct bz_setup_header *h)
{
    if (!(h->loadflags & BZ_LOADED_HIGH))
        return BZIMAGE_ERR_NOT_BZIMAGE;
    if (!(h->xloadflags & BZ_XLF_KERNEL_64))
        return BZIMAGE_ERR_NOT_64BIT;
    if (!h->relocatable_kernel)
        return BZIMAGE_ERR_NOT_RELOCATABLE;
    if (!is_pow2(h->kernel_alignment) || h->kernel_alignment < BZ_MIN_KERNEL_ALIGNMENT)
        return BZIMAGE_ERR_BAD_ALIGNMENT;
    return BZIMAGE_OK;
}

/* Layout checks: setup and protected-mode kernel inside the file. */
static enum bzimage_status check_layout(size_t size, struct bzimage_info *out)
{
    const struct bz_setup_header *h = &out->hdr;
    size_t sects = h->setup_sects ? h->setup_sects : BZ_DEFAULT_SETUP_SECTS;
    out->setup_size = (sects + 1) * BZ_SECTOR_SIZE;   /* + the boot sector */
    if (out->setup_size < out->header_end || out->setup_size >= size)
        return BZIMAGE_ERR_TRUNCATED;

    out->kernel = out->image + out->setup_size;
    out->kernel_size = size - out->setup_size;
    uint64_t sys_bytes = (uint64_t)h->syssize * 16;   /* syssize: 16-byte units */
    if (sys_bytes > out->kernel_size)
        return BZIMAGE_ERR_TRUNCATED;
    if (h->init_size < sys_bytes || h->init_size == 0)
        return BZIMAGE_ERR_BAD_INIT_SIZE;
    uint64_t payload_end = (uint64_t)h->payload_offset + h->payload_length;
    if (payload_end > out->kernel_size)
        return BZIMAGE_ERR_BAD_PAYLOAD;
    return BZIMAGE_OK;
}

static void fill_info(struct bzimage_info *out)
{
    const struct bz_setup_header *h = &out->hdr;
    out->version = h->version;
    out->loadflags = h->loadflags;
    out->xloadflags = h->xloadflags;
    out->kernel_alignment = h->kernel_alignment;
    out->pref_address = h->pref_address;
    out->init_size = h->init_size;
    out->cmdline_size = h->cmdline_size;
    out->initrd_addr_max = h->initrd_addr_max;
    out->payload_offset = h->payload_offset;
    out->payload_length = h->payload_length;
}

enum bzimage_status bzimage_parse(const void *image, size_t size, struct bzimage_info *out)
{
    enum bzimage_status st;

    memset(out, 0, sizeof(*out));
    if (!image)
        return BZIMAGE_ERR_TRUNCATED;
    out->image = image;
    out->image_size = size;

    st = check_identity(image, size, out);
    if (st == BZIMAGE_OK)
        st = check_capabilities(&out->hdr);
    if (st == BZIMAGE_OK)
        st = check_layout(size, out);
    if (st == BZIMAGE_OK)
        fill_info(out);
    return st;
}
