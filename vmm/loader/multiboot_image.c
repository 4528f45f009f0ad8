/* The load plan of a multiboot kernel (see vmm/loader/multiboot.h): what part of
 * the file goes to which guest-physical address. Either the header's
 * address fields say it (Multiboot 0.6.96 3.1.3, the "a.out kludge";
 * Multiboot2 3.1.5 and 3.1.6), or the file is an ELF executable whose
 * PT_LOAD segments go to their physical addresses (p_paddr), as GRUB loads
 * them, the entry point translated from e_entry's segment. */
#include "vmm/loader/multiboot.h"

#include "lib/mem.h"

#define ELFCLASS32      1
#define ELFCLASS64      2
#define ELFDATA2LSB     1
#define EV_CURRENT      1
#define ET_EXEC         2
#define EM_386          3
#define EM_X86_64       62
#define PT_LOAD         1
#define EHDR32_BYTES    52u
#define EHDR64_BYTES    64u
#define PHDR32_BYTES    32u
#define PHDR64_BYTES    56u
#define FOUR_GIB        0x100000000ull

static enum mb_status fail(struct mb_error *err, enum mb_status st, int index, uint64_t addr,
                           uint64_t size)
{
    *err = (struct mb_error){ st, index, addr, size };
    return st;
}

static uint64_t read_le(const uint8_t *p, unsigned int bytes)
{
    uint64_t v = 0;
    for (unsigned int i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* ---- segments, however found ---- */

static bool overlaps(const struct mb_segment *a, const struct mb_segment *b)
{
    return a->addr < b->addr + b->mem_size && b->addr < a->addr + a->mem_size;
}

/* Checks one segment against the file and the RAM and adds it. */
static enum mb_status add_segment(struct mb_plan *plan, const struct mb_segment *s, size_t size,
                                  uint64_t mem_bytes, int index, struct mb_error *err)
{
    uint64_t top = mem_bytes < FOUR_GIB ? mem_bytes : FOUR_GIB;
    if (s->offset > size || size - s->offset < s->file_size)
        return fail(err, MB_ERR_SEGMENT_FILE, index, s->offset, s->file_size);
    if (s->file_size > s->mem_size)
        return fail(err, MB_ERR_FILESZ, index, s->addr, s->mem_size);
    if (s->addr < MB_LOAD_MIN)
        return fail(err, MB_ERR_SEGMENT_LOW, index, s->addr, s->mem_size);
    if (s->addr >= top || top - s->addr < s->mem_size)
        return fail(err, MB_ERR_SEGMENT_RAM, index, s->addr, s->mem_size);
    if (plan->count == MB_MAX_SEGMENTS)
        return fail(err, MB_ERR_TOO_MANY_SEGMENTS, index, 0, 0);
    for (unsigned int i = 0; i < plan->count; i++)
        if (overlaps(s, &plan->seg[i]))
            return fail(err, MB_ERR_OVERLAP, index, s->addr, s->mem_size);
    plan->seg[plan->count++] = *s;
    if (s->addr < plan->start)
        plan->start = s->addr;
    if (s->addr + s->mem_size > plan->end)
        plan->end = s->addr + s->mem_size;
    return MB_OK;
}

static bool entry_loaded(const struct mb_plan *plan, uint64_t entry)
{
    for (unsigned int i = 0; i < plan->count; i++)
        if (entry >= plan->seg[i].addr && entry - plan->seg[i].addr < plan->seg[i].mem_size)
            return true;
    return false;
}

/* ---- the header's address fields ---- */

static enum mb_status plan_from_address(size_t size, const struct mb_header *h,
                                        uint64_t mem_bytes, struct mb_plan *plan,
                                        struct mb_error *err)
{
    uint64_t before = (uint64_t)h->header_addr - h->load_addr;   /* header's place in the text */
    if (h->load_addr > h->header_addr || before > h->offset)
        return fail(err, MB_ERR_ADDRESS, -1, h->load_addr, 0);
    struct mb_segment s = { .offset = h->offset - before, .addr = h->load_addr };
    if (h->load_end_addr == 0)
        s.file_size = size - s.offset;
    else if (h->load_end_addr <= h->load_addr)
        return fail(err, MB_ERR_ADDRESS, -1, h->load_addr, 0);
    else
        s.file_size = (uint64_t)h->load_end_addr - h->load_addr;
    s.mem_size = s.file_size;
    if (h->bss_end_addr) {
        if (h->bss_end_addr < s.addr + s.file_size)
            return fail(err, MB_ERR_ADDRESS, -1, h->bss_end_addr, 0);
        s.mem_size = (uint64_t)h->bss_end_addr - s.addr;
    }
    if (s.mem_size == 0)
        return fail(err, MB_ERR_NO_SEGMENTS, -1, 0, 0);
    return add_segment(plan, &s, size, mem_bytes, -1, err);
}

/* ---- ELF32 / ELF64 ---- */

struct elf_view {
    bool is64;
    uint64_t entry, phoff;
    unsigned int phnum, phentsize;
};

static enum mb_status read_elf_header(const uint8_t *image, size_t size, struct elf_view *e,
                                      struct mb_error *err)
{
    static const uint8_t magic[4] = { 0x7f, 'E', 'L', 'F' };
    if (size < EHDR32_BYTES || memcmp(image, magic, 4) != 0)
        return fail(err, MB_ERR_NOT_ELF, -1, 0, 0);
    uint8_t cls = image[4];
    if ((cls != ELFCLASS32 && cls != ELFCLASS64) || image[5] != ELFDATA2LSB ||
        image[6] != EV_CURRENT || (cls == ELFCLASS64 && size < EHDR64_BYTES) ||
        read_le(image + 20, 4) != EV_CURRENT)
        return fail(err, MB_ERR_ELF_CLASS, -1, 0, 0);
    e->is64 = cls == ELFCLASS64;
    if (read_le(image + 18, 2) != (e->is64 ? EM_X86_64 : EM_386))
        return fail(err, MB_ERR_ELF_MACHINE, -1, 0, 0);
    if (read_le(image + 16, 2) != ET_EXEC)
        return fail(err, MB_ERR_ELF_TYPE, -1, 0, 0);
    unsigned int w = e->is64 ? 8 : 4;
    e->entry = read_le(image + 24, w);
    e->phoff = read_le(image + 24 + w, w);
    const uint8_t *tail = image + 24 + 3 * w + 4;      /* after flags: ehsize */
    e->phentsize = (unsigned int)read_le(tail + 2, 2);
    e->phnum = (unsigned int)read_le(tail + 4, 2);
    if (e->phentsize != (e->is64 ? PHDR64_BYTES : PHDR32_BYTES) || e->phnum == 0 ||
        e->phnum > MB_MAX_PHDRS || e->phoff > size ||
        size - e->phoff < (uint64_t)e->phnum * e->phentsize)
        return fail(err, MB_ERR_ELF_PHDRS, -1, 0, 0);
    return MB_OK;
}

/* Program header i: type, and the segment with its virtual address. */
static uint32_t read_phdr(const uint8_t *image, const struct elf_view *e, unsigned int i,
                          struct mb_segment *s, uint64_t *vaddr)
{
    const uint8_t *p = image + e->phoff + (uint64_t)i * e->phentsize;
    if (e->is64) {
        *s = (struct mb_segment){ read_le(p + 8, 8), read_le(p + 32, 8), read_le(p + 24, 8),
                                  read_le(p + 40, 8) };
        *vaddr = read_le(p + 16, 8);
    } else {
        *s = (struct mb_segment){ read_le(p + 4, 4), read_le(p + 16, 4), read_le(p + 12, 4),
                                  read_le(p + 20, 4) };
        *vaddr = read_le(p + 8, 4);
    }
    return (uint32_t)read_le(p, 4);
}

static enum mb_status plan_from_elf(const uint8_t *image, size_t size, uint64_t mem_bytes,
                                    struct mb_plan *plan, struct mb_error *err)
{
    struct elf_view e;
    enum mb_status st = read_elf_header(image, size, &e, err);
    if (st != MB_OK)
        return st;
    bool entry_found = false;
    for (unsigned int i = 0; i < e.phnum; i++) {
        struct mb_segment s;
        uint64_t vaddr;
        if (read_phdr(image, &e, i, &s, &vaddr) != PT_LOAD || s.mem_size == 0)
            continue;
        if ((st = add_segment(plan, &s, size, mem_bytes, (int)i, err)) != MB_OK)
            return st;
        if (!entry_found && e.entry >= vaddr && e.entry - vaddr < s.mem_size) {
            plan->entry = e.entry - vaddr + s.addr;     /* GRUB's translation */
            entry_found = true;
        }
    }
    if (plan->count == 0)
        return fail(err, MB_ERR_NO_SEGMENTS, -1, 0, 0);
    if (!entry_found)
        return fail(err, MB_ERR_ENTRY, -1, e.entry, 0);
    return MB_OK;
}

enum mb_status mb_image_plan(const uint8_t *image, size_t size, const struct mb_header *h,
                             uint64_t mem_bytes, struct mb_plan *plan, struct mb_error *err)
{
    *plan = (struct mb_plan){ .start = UINT64_MAX };
    enum mb_status st = h->has_address ? plan_from_address(size, h, mem_bytes, plan, err)
                                       : plan_from_elf(image, size, mem_bytes, plan, err);
    if (st != MB_OK)
        return st;
    if (h->has_entry)
        plan->entry = h->entry_addr;
    if (!entry_loaded(plan, plan->entry))
        return fail(err, MB_ERR_ENTRY, -1, plan->entry, 0);
    return MB_OK;
}
