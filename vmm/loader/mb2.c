/* Multiboot2 information parser (contract: vmm/loader/mb2.h; format: Multiboot2
 * specification 1.0, section 3.6 "Boot information format").
 *
 * The blob is untrusted input: every field is read through bounds-checked
 * little-endian accessors, every tag is checked against total_size (itself
 * checked against `avail`) before its payload is touched. The memory map
 * is rebuilt by a sweep over all entry boundaries, so the result is sorted,
 * has no overlaps, gives each byte the most restrictive type of any entry
 * covering it, and needs no scratch memory. */
#include "vmm/loader/mb2.h"

#include <stdbool.h>

#include "lib/mem.h"

/* Tag types (Multiboot2 spec 3.6.x). */
enum mb2_tag_type {
    MB2_TAG_END          = 0,
    MB2_TAG_CMDLINE      = 1,
    MB2_TAG_LOADER_NAME  = 2,
    MB2_TAG_MODULE       = 3,
    MB2_TAG_BASIC_MEM    = 4,
    MB2_TAG_MMAP         = 6,
    MB2_TAG_FRAMEBUFFER  = 8,
    MB2_TAG_ACPI_OLD     = 14,
    MB2_TAG_ACPI_NEW     = 15,
    MB2_TAG_EFI_MMAP     = 17,
};

#define MB2_ALIGN            8u
#define MB2_HEADER_SIZE      8u   /* total_size, reserved */
#define MB2_TAG_HEADER_SIZE  8u   /* type, size */
#define MB2_MIN_TOTAL_SIZE   (MB2_HEADER_SIZE + MB2_TAG_HEADER_SIZE) /* header + end tag */
#define MB2_MODULE_MIN_SIZE  16u  /* header, mod_start, mod_end */
#define MB2_MMAP_MIN_SIZE    16u  /* header, entry_size, entry_version */
#define MB2_MMAP_ENTRY_MIN   24u  /* base_addr, length, type, reserved */
#define MB2_MMAP_VERSION     0u
/* The framebuffer tag's reserved field is 16 bits in the specification's
 * multiboot2.h and in GRUB (the prose says 8): colour fields start at 32. */
#define MB2_FB_MIN_SIZE      32u  /* header, addr, pitch, width, height, bpp, type, reserved */
#define MB2_FB_COLOR_OFFSET  32u
#define MB2_FB_RGB_SIZE      38u  /* + red, green, blue position and size */
#define RSDP_V1_SIZE         20u  /* ACPI 6.5 section 5.2.5.3 */
#define RSDP_V2_MIN_SIZE     36u
#define RSDP_REVISION_OFFSET 15u

/* UEFI 2.10 section 7.2 (EFI_BOOT_SERVICES.GetMemoryMap()). */
/* Type, pad, PhysicalStart, VirtualStart, NumberOfPages, Attribute */
#define EFI_DESC_MIN_SIZE    40u
#define EFI_DESC_VERSION     1u
#define EFI_DESC_PHYS_START  8u
#define EFI_DESC_NUM_PAGES   24u
#define EFI_PAGE_SHIFT       12

/* Bound on the entries of the map used: the boundary sweep is quadratic in
 * it. Real maps have a few hundred entries at most. */
#define MB2_MAX_MAP_ENTRIES  1024u

enum efi_memory_type {
    EFI_LOADER_CODE           = 1,
    EFI_LOADER_DATA           = 2,
    EFI_BOOT_SERVICES_CODE    = 3,
    EFI_BOOT_SERVICES_DATA    = 4,
    EFI_CONVENTIONAL_MEMORY   = 7,
    EFI_UNUSABLE_MEMORY       = 8,
    EFI_ACPI_RECLAIM_MEMORY   = 9,
    EFI_ACPI_MEMORY_NVS       = 10,
};

/* A validated memory-map tag: `count` entries of `entry_size` bytes
 * starting at byte `first` of the blob. */
struct mb2_map {
    uint32_t tag_offset;
    uint32_t first;
    uint32_t entry_size;
    uint32_t count;
    bool efi;
};

struct mb2_parser {
    const uint8_t *blob;
    uint32_t total_size;
    struct boot_info *out;
    struct mb2_error *err;
    struct mb2_map e820;
    struct mb2_map efi;
    bool have_e820, have_efi, have_rsdp_new;
};

/* One entry of either map kind, as a half-open range. */
struct mb2_span {
    uint64_t base;
    uint64_t end;   /* saturates at UINT64_MAX */
    uint32_t type;  /* enum mem_type */
};

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static enum mb2_status fail(struct mb2_parser *ps, enum mb2_status st, uint32_t offset,
                            uint32_t tag_type)
{
    ps->err->status = st;
    ps->err->offset = offset;
    ps->err->tag_type = tag_type;
    return st;
}

/* The string payload of a tag starting `skip` bytes in, which must hold
 * its NUL inside the tag. */
static enum mb2_status tag_string(struct mb2_parser *ps, uint32_t off, uint32_t size,
                                  uint32_t skip, const char **out)
{
    const char *s = (const char *)ps->blob + off + skip;

    if (strnlen(s, size - skip) == size - skip)
        return fail(ps, MB2_ERR_BAD_STRING, off, rd32(ps->blob + off));
    *out = s;
    return MB2_OK;
}

static enum mb2_status parse_module(struct mb2_parser *ps, uint32_t off, uint32_t size)
{
    struct boot_info *bi = ps->out;
    const uint8_t *t = ps->blob + off;

    if (size < MB2_MODULE_MIN_SIZE)
        return fail(ps, MB2_ERR_TAG_TOO_SMALL, off, MB2_TAG_MODULE);
    if (bi->module_count == BOOT_MAX_MODULES)
        return fail(ps, MB2_ERR_TOO_MANY_MODULES, off, MB2_TAG_MODULE);
    struct boot_module *m = &bi->modules[bi->module_count];
    m->start = rd32(t + 8);
    m->end = rd32(t + 12);
    if (m->end < m->start)
        return fail(ps, MB2_ERR_BAD_MODULE, off, MB2_TAG_MODULE);
    enum mb2_status st = tag_string(ps, off, size, MB2_MODULE_MIN_SIZE, &m->cmdline);
    if (st == MB2_OK)
        bi->module_count++;
    return st;
}

/* Validates the header of a memory-map tag (e820 or EFI) and records it;
 * only the first tag of each kind is used. */
static enum mb2_status parse_map(struct mb2_parser *ps, uint32_t off, uint32_t size, bool efi)
{
    const uint8_t *t = ps->blob + off;
    uint32_t type = efi ? MB2_TAG_EFI_MMAP : MB2_TAG_MMAP;

    if (size < MB2_MMAP_MIN_SIZE)
        return fail(ps, MB2_ERR_TAG_TOO_SMALL, off, type);
    uint32_t entry_size = rd32(t + 8);
    uint32_t version = rd32(t + 12);
    uint32_t min_entry = efi ? EFI_DESC_MIN_SIZE : MB2_MMAP_ENTRY_MIN;
    uint32_t want_version = efi ? EFI_DESC_VERSION : MB2_MMAP_VERSION;
    uint32_t payload = size - MB2_MMAP_MIN_SIZE;

    /* Entry sizes are multiples of 8 (spec 3.6.8), so entries stay aligned. */
    if (entry_size < min_entry || entry_size % MB2_ALIGN != 0 || version != want_version ||
        payload % entry_size != 0)
        return fail(ps, MB2_ERR_BAD_MMAP, off, type);
    struct mb2_map *map = efi ? &ps->efi : &ps->e820;
    bool *have = efi ? &ps->have_efi : &ps->have_e820;
    if (*have)
        return MB2_OK;
    if (payload / entry_size > MB2_MAX_MAP_ENTRIES)
        return fail(ps, MB2_ERR_TOO_MANY_RANGES, off, type);
    *have = true;
    map->tag_offset = off;
    map->first = off + MB2_MMAP_MIN_SIZE;
    map->entry_size = entry_size;
    map->count = payload / entry_size;
    map->efi = efi;
    return MB2_OK;
}

static enum mb2_status parse_rsdp(struct mb2_parser *ps, uint32_t off, uint32_t size, bool is_new)
{
    struct boot_info *bi = ps->out;
    uint32_t min = MB2_TAG_HEADER_SIZE + (is_new ? RSDP_V2_MIN_SIZE : RSDP_V1_SIZE);

    if (size < min)
        return fail(ps, MB2_ERR_TAG_TOO_SMALL, off, is_new ? MB2_TAG_ACPI_NEW : MB2_TAG_ACPI_OLD);
    if (!is_new && ps->have_rsdp_new)
        return MB2_OK; /* the ACPI 2.0+ copy wins */
    const uint8_t *rsdp = ps->blob + off + MB2_TAG_HEADER_SIZE;
    bi->rsdp = rsdp;
    bi->rsdp_length = size - MB2_TAG_HEADER_SIZE;
    bi->rsdp_revision = is_new ? rsdp[RSDP_REVISION_OFFSET] : 0;
    ps->have_rsdp_new = ps->have_rsdp_new || is_new;
    return MB2_OK;
}

/* The framebuffer tag (spec 3.6.12): recorded as given; whoever draws
 * checks that it can. */
static enum mb2_status parse_framebuffer(struct mb2_parser *ps, uint32_t off, uint32_t size)
{
    const uint8_t *t = ps->blob + off;
    struct boot_framebuffer *fb = &ps->out->fb;

    if (size < MB2_FB_MIN_SIZE)
        return fail(ps, MB2_ERR_TAG_TOO_SMALL, off, MB2_TAG_FRAMEBUFFER);
    *fb = (struct boot_framebuffer){
        .addr = rd64(t + 8), .pitch = rd32(t + 16), .width = rd32(t + 20),
        .height = rd32(t + 24), .bpp = t[28], .type = t[29],
    };
    if (fb->type == BOOT_FB_RGB) {
        if (size < MB2_FB_RGB_SIZE)
            return fail(ps, MB2_ERR_TAG_TOO_SMALL, off, MB2_TAG_FRAMEBUFFER);
        const uint8_t *c = t + MB2_FB_COLOR_OFFSET;
        fb->red_pos = c[0];
        fb->red_size = c[1];
        fb->green_pos = c[2];
        fb->green_size = c[3];
        fb->blue_pos = c[4];
        fb->blue_size = c[5];
    }
    ps->out->has_fb = true;
    return MB2_OK;
}

static enum mb2_status parse_tag(struct mb2_parser *ps, uint32_t off, uint32_t type, uint32_t size)
{
    switch (type) {
    case MB2_TAG_CMDLINE:
        return tag_string(ps, off, size, MB2_TAG_HEADER_SIZE, &ps->out->cmdline);
    case MB2_TAG_LOADER_NAME:
        return tag_string(ps, off, size, MB2_TAG_HEADER_SIZE, &ps->out->loader_name);
    case MB2_TAG_MODULE:
        return parse_module(ps, off, size);
    case MB2_TAG_MMAP:
        return parse_map(ps, off, size, false);
    case MB2_TAG_EFI_MMAP:
        return parse_map(ps, off, size, true);
    case MB2_TAG_FRAMEBUFFER:
        return parse_framebuffer(ps, off, size);
    case MB2_TAG_ACPI_OLD:
        return parse_rsdp(ps, off, size, false);
    case MB2_TAG_ACPI_NEW:
        return parse_rsdp(ps, off, size, true);
    default:
        return MB2_OK; /* basic meminfo and unknown tags are ignored */
    }
}

/* Walks the tags up to the end tag (spec 3.6.1: each tag starts 8-aligned). */
static enum mb2_status walk_tags(struct mb2_parser *ps)
{
    uint32_t off = MB2_HEADER_SIZE;

    for (;;) {
        if (ps->total_size - off < MB2_TAG_HEADER_SIZE)
            return fail(ps, MB2_ERR_NO_END_TAG, off, 0);
        uint32_t type = rd32(ps->blob + off);
        uint32_t size = rd32(ps->blob + off + 4);
        if (size < MB2_TAG_HEADER_SIZE)
            return fail(ps, MB2_ERR_TAG_TOO_SMALL, off, type);
        if (size > ps->total_size - off)
            return fail(ps, MB2_ERR_TAG_OVERFLOW, off, type);
        if (type == MB2_TAG_END)
            return MB2_OK;
        enum mb2_status st = parse_tag(ps, off, type, size);
        if (st != MB2_OK)
            return st;
        /* total_size is a multiple of 8, so the rounded size still fits. */
        off += (size + MB2_ALIGN - 1) & ~(MB2_ALIGN - 1);
    }
}

static uint32_t efi_to_mem_type(uint32_t efi_type)
{
    switch (efi_type) {
    case EFI_LOADER_CODE:
    case EFI_LOADER_DATA:
    case EFI_BOOT_SERVICES_CODE:
    case EFI_BOOT_SERVICES_DATA:
    case EFI_CONVENTIONAL_MEMORY:
        return MEM_USABLE;
    case EFI_ACPI_RECLAIM_MEMORY:
        return MEM_ACPI_RECLAIM;
    case EFI_ACPI_MEMORY_NVS:
        return MEM_ACPI_NVS;
    case EFI_UNUSABLE_MEMORY:
        return MEM_BAD;
    default:
        return MEM_RESERVED;
    }
}

static uint32_t e820_to_mem_type(uint32_t e820_type)
{
    return e820_type >= MEM_USABLE && e820_type <= MEM_BAD ? e820_type : MEM_RESERVED;
}

static uint64_t saturating_end(uint64_t base, uint64_t length)
{
    return length > UINT64_MAX - base ? UINT64_MAX : base + length;
}

static struct mb2_span map_entry(const struct mb2_parser *ps, const struct mb2_map *map, uint32_t i)
{
    const uint8_t *e = ps->blob + map->first + (size_t)i * map->entry_size;
    struct mb2_span sp;

    if (map->efi) {
        uint64_t pages = rd64(e + EFI_DESC_NUM_PAGES);
        uint64_t bytes = pages > (UINT64_MAX >> EFI_PAGE_SHIFT) ? UINT64_MAX
                                                               : pages << EFI_PAGE_SHIFT;
        sp.base = rd64(e + EFI_DESC_PHYS_START);
        sp.end = saturating_end(sp.base, bytes);
        sp.type = efi_to_mem_type(rd32(e));
    } else {
        sp.base = rd64(e);
        sp.end = saturating_end(sp.base, rd64(e + 8));
        sp.type = e820_to_mem_type(rd32(e + 16));
    }
    return sp;
}

/* Larger wins on overlap: usable < ACPI reclaim < ACPI NVS < reserved < bad. */
static int type_rank(uint32_t type)
{
    switch (type) {
    case MEM_USABLE:       return 0;
    case MEM_ACPI_RECLAIM: return 1;
    case MEM_ACPI_NVS:     return 2;
    case MEM_RESERVED:     return 3;
    default:               return 4;
    }
}

/* The smallest entry boundary (base or end) strictly above `after`, if any. */
static bool next_boundary(const struct mb2_parser *ps, const struct mb2_map *map,
                          uint64_t after, bool inclusive, uint64_t *next)
{
    bool found = false;
    uint64_t best = 0;

    for (uint32_t i = 0; i < map->count; i++) {
        struct mb2_span sp = map_entry(ps, map, i);
        if (sp.end == sp.base)
            continue;
        uint64_t cand[2] = { sp.base, sp.end };
        for (int k = 0; k < 2; k++) {
            bool beyond = inclusive ? cand[k] >= after : cand[k] > after;
            if (beyond && (!found || cand[k] < best)) {
                best = cand[k];
                found = true;
            }
        }
    }
    if (found)
        *next = best;
    return found;
}

/* The most restrictive type covering [lo, hi), or 0 when nothing does. */
static uint32_t covering_type(const struct mb2_parser *ps, const struct mb2_map *map,
                              uint64_t lo, uint64_t hi)
{
    uint32_t type = 0;

    for (uint32_t i = 0; i < map->count; i++) {
        struct mb2_span sp = map_entry(ps, map, i);
        if (sp.base <= lo && sp.end >= hi && (type == 0 || type_rank(sp.type) > type_rank(type)))
            type = sp.type;
    }
    return type;
}

/* Appends [lo, hi) of `type`, merging with the previous range if it touches. */
static bool emit_range(struct boot_info *bi, uint64_t lo, uint64_t hi, uint32_t type)
{
    if (bi->mem_count > 0) {
        struct mem_range *last = &bi->mem[bi->mem_count - 1];
        if (last->type == type && last->base + last->length == lo) {
            last->length += hi - lo;
            return true;
        }
    }
    if (bi->mem_count == BOOT_MAX_MEM_RANGES)
        return false;
    bi->mem[bi->mem_count].base = lo;
    bi->mem[bi->mem_count].length = hi - lo;
    bi->mem[bi->mem_count].type = type;
    bi->mem_count++;
    return true;
}

/* Sweeps the elementary intervals between consecutive entry boundaries. */
static enum mb2_status build_memory_map(struct mb2_parser *ps, const struct mb2_map *map)
{
    uint64_t lo, hi;
    uint32_t tag_type = map->efi ? MB2_TAG_EFI_MMAP : MB2_TAG_MMAP;

    if (!next_boundary(ps, map, 0, true, &lo))
        return MB2_OK;
    while (next_boundary(ps, map, lo, false, &hi)) {
        uint32_t type = covering_type(ps, map, lo, hi);
        if (type != 0 && !emit_range(ps->out, lo, hi, type))
            return fail(ps, MB2_ERR_TOO_MANY_RANGES, map->tag_offset, tag_type);
        lo = hi;
    }
    return MB2_OK;
}

static enum mb2_status check_header(struct mb2_parser *ps, const void *blob, size_t avail)
{
    if (!blob)
        return fail(ps, MB2_ERR_NULL, 0, 0);
    if ((uintptr_t)blob % MB2_ALIGN != 0)
        return fail(ps, MB2_ERR_MISALIGNED, 0, 0);
    if (avail < MB2_HEADER_SIZE)
        return fail(ps, MB2_ERR_TRUNCATED, 0, 0);
    uint32_t total = rd32(blob);
    if (total > avail)
        return fail(ps, MB2_ERR_TRUNCATED, 0, 0);
    if (total < MB2_MIN_TOTAL_SIZE || total % MB2_ALIGN != 0)
        return fail(ps, MB2_ERR_BAD_SIZE, 0, 0);
    ps->blob = blob;
    ps->total_size = total;
    return MB2_OK;
}

enum mb2_status mb2_parse(const void *blob, size_t avail, uint64_t blob_phys,
                          struct boot_info *out, struct mb2_error *err)
{
    struct mb2_parser ps = { .out = out, .err = err };
    enum mb2_status st;

    memset(out, 0, sizeof(*out));
    memset(err, 0, sizeof(*err));
    out->cmdline = "";
    out->loader_name = "";
    out->info_phys = blob_phys;
    st = check_header(&ps, blob, avail);
    if (st != MB2_OK)
        return st;
    out->info_size = ps.total_size;
    st = walk_tags(&ps);
    if (st != MB2_OK)
        return st;
    /* Prefer the e820-style map (tag 6) when the loader gave both. */
    if (!ps.have_e820 && !ps.have_efi)
        return fail(&ps, MB2_ERR_NO_MEMORY_MAP, 0, 0);
    const struct mb2_map *map = ps.have_e820 ? &ps.e820 : &ps.efi;
    out->mem_source = ps.have_e820 ? MEM_MAP_E820 : MEM_MAP_EFI;
    st = build_memory_map(&ps, map);
    /* A map whose entries are all empty is as good as none. */
    if (st == MB2_OK && out->mem_count == 0)
        return fail(&ps, MB2_ERR_NO_MEMORY_MAP, map->tag_offset,
                    map->efi ? MB2_TAG_EFI_MMAP : MB2_TAG_MMAP);
    return st;
}

const char *mb2_strerror(enum mb2_status status)
{
    switch (status) {
    case MB2_OK:                   return "no error";
    case MB2_ERR_NULL:             return "no multiboot2 information pointer";
    case MB2_ERR_MISALIGNED:       return "multiboot2 information not 8-byte aligned";
    case MB2_ERR_TRUNCATED:        return "total_size larger than the bytes available";
    case MB2_ERR_BAD_SIZE:         return "total_size too small or not a multiple of 8";
    case MB2_ERR_TAG_OVERFLOW:     return "tag runs past total_size";
    case MB2_ERR_TAG_TOO_SMALL:    return "tag shorter than its type requires";
    case MB2_ERR_NO_END_TAG:       return "tags end without an end tag";
    case MB2_ERR_BAD_MMAP:         return "memory map with bad entry size or version";
    case MB2_ERR_TOO_MANY_RANGES:  return "too many memory ranges";
    case MB2_ERR_TOO_MANY_MODULES: return "too many boot modules";
    case MB2_ERR_BAD_MODULE:       return "module ends before it starts";
    case MB2_ERR_BAD_STRING:       return "string not NUL-terminated inside its tag";
    case MB2_ERR_NO_MEMORY_MAP:    return "no memory map, or one with no ranges";
    }
    return "unknown multiboot2 error";
}
