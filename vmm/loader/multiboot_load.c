/* Loading a multiboot kernel into a domain's RAM (see vmm/loader/multiboot.h):
 * every check first (header, segments, modules' room, command lines),
 * then the boot information, the segments and the modules are written,
 * and the entry state is the one both specifications give (Multiboot
 * 0.6.96 3.2, Multiboot2 2.0 3.3 "I386 machine state"). */
#include "vmm/loader/multiboot.h"

#include "lib/format.h"
#include "lib/mem.h"

#define PAGE_4K         0x1000ull
#define MEM_MIN         (4ull << 20)
#define MEM_ALIGN       (2ull << 20)
#define MEM_MAX         0xc0000000ull   /* 3 GiB: the APIC page and device addresses above */
#define INFO_OFFSET     0x40u           /* the GDT first, then the information */

/* The GDT at MB_INFO_GPA: null, flat 32-bit code and data (SDM Vol. 3A
 * 3.4.5); VMCS access rights = access byte | flags << 12 (Vol. 3C 24.4.1). */
#define DESC_CODE32     0x00cf9b000000ffffull
#define DESC_DATA32     0x00cf93000000ffffull
#define GDT_LIMIT       0x17u
#define AR_CODE32       (0x9bu | 0xcu << 12)
#define AR_DATA32       (0x93u | 0xcu << 12)
#define AR_TSS32_BUSY   0x8bu
#define AR_UNUSABLE     (1u << 16)
#define TSS_LIMIT       0x67u
#define CR0_PE          (1ull << 0)
#define CR0_ET          (1ull << 4)
#define RFLAGS_FIXED    0x2ull

static const char *const mb_errors[MB_STATUS_COUNT] = {
    [MB_OK]                    = "ok",
    [MB_ERR_NO_HEADER]         = "no multiboot header (in the first 8 KiB) or multiboot2 header "
                                 "(in the first 32 KiB)",
    [MB_ERR_CHECKSUM]          = "the multiboot header's checksum is wrong",
    [MB_ERR_ARCH]              = "the multiboot2 header is not for i386 (architecture 0)",
    [MB_ERR_HEADER_LENGTH]     = "the multiboot2 header's length or a tag's size is wrong",
    [MB_ERR_REQUIREMENT]       = "the multiboot header requires a feature Vertigo does not know "
                                 "(flags bits 0-15)",
    [MB_ERR_VIDEO]             = "the header requires a video mode or framebuffer (a domain has "
                                 "no display)",
    [MB_ERR_INFO_REQUEST]      = "the multiboot2 header requires information Vertigo does not "
                                 "give",
    [MB_ERR_UNKNOWN_TAG]       = "the multiboot2 header has a required tag Vertigo does not know",
    [MB_ERR_NOT_ELF]           = "the image is not an ELF file and its header has no load "
                                 "addresses",
    [MB_ERR_ELF_CLASS]         = "not a little-endian ELF32 or ELF64 (version 1) file",
    [MB_ERR_ELF_MACHINE]       = "not an i386 ELF32 or x86-64 ELF64 file",
    [MB_ERR_ELF_TYPE]          = "not an executable (ET_EXEC) ELF file",
    [MB_ERR_ELF_PHDRS]         = "bad program header table (entry size, count or place)",
    [MB_ERR_NO_SEGMENTS]       = "nothing to load",
    [MB_ERR_TOO_MANY_SEGMENTS] = "more than 16 loadable segments",
    [MB_ERR_SEGMENT_FILE]      = "a segment's bytes run past the end of the file",
    [MB_ERR_FILESZ]            = "a segment's file size exceeds its memory size",
    [MB_ERR_SEGMENT_LOW]       = "a segment lies below 1 MiB, where the boot information and "
                                 "the firmware tables are",
    [MB_ERR_SEGMENT_RAM]       = "a segment lies outside the domain's RAM",
    [MB_ERR_OVERLAP]           = "two segments overlap",
    [MB_ERR_ADDRESS]           = "the header's load addresses are inconsistent",
    [MB_ERR_ENTRY]             = "the entry point is not inside what is loaded",
    [MB_ERR_TOO_MANY_MODULES]  = "more than 8 modules",
    [MB_ERR_MODULE_TOO_BIG]    = "a module does not fit in the domain's RAM after the kernel",
    [MB_ERR_CMDLINE]           = "a command line of 4096 bytes or more",
    [MB_ERR_INFO_TOO_BIG]      = "the boot information does not fit below 636 KiB",
    [MB_ERR_BAD_MEM]           = "domain memory is not a 2 MiB multiple of 4 MiB to 3 GiB (the "
                                 "APIC page and device addresses lie above)",
    [MB_ERR_GUEST_MEMORY]      = "domain memory not accessible to the loader",
};

const char *mb_strerror(enum mb_status status)
{
    if ((unsigned int)status < MB_STATUS_COUNT)
        return mb_errors[status];
    return "unknown multiboot loader error";
}

void mb_error_text(const struct mb_error *err, char *buf, size_t size)
{
    const char *what = mb_strerror(err->status);
    const char *where = err->status == MB_ERR_MODULE_TOO_BIG || err->status == MB_ERR_CMDLINE
                        ? "module" : err->status == MB_ERR_HEADER_LENGTH ||
                          err->status == MB_ERR_INFO_REQUEST || err->status == MB_ERR_UNKNOWN_TAG ||
                          err->status == MB_ERR_VIDEO ? "header tag" : "program header";
    if (err->index >= 0 && err->size)
        fmt_snprintf(buf, size, "%s (%s %d, %lu bytes at %#lx)", what, where, err->index,
                     err->size, err->addr);
    else if (err->index >= 0)
        fmt_snprintf(buf, size, "%s (%s %d)", what, where, err->index);
    else if (err->addr || err->size)
        fmt_snprintf(buf, size, "%s (address %#lx)", what, err->addr);
    else
        fmt_snprintf(buf, size, "%s", what);
}

static enum mb_status fail(struct mb_error *err, enum mb_status st, int index, uint64_t addr,
                           uint64_t size)
{
    *err = (struct mb_error){ st, index, addr, size };
    return st;
}

static uint64_t page_up(uint64_t a)
{
    return (a + PAGE_4K - 1) & ~(PAGE_4K - 1);
}

/* ---- checks that need no guest memory ---- */

static enum mb_status check_config(const struct mb_load_config *cfg, struct mb_error *err)
{
    if (cfg->mem_bytes < MEM_MIN || cfg->mem_bytes % MEM_ALIGN || cfg->mem_bytes > MEM_MAX)
        return fail(err, MB_ERR_BAD_MEM, -1, 0, cfg->mem_bytes);
    if (cfg->cmdline && strnlen(cfg->cmdline, MB_CMDLINE_MAX) >= MB_CMDLINE_MAX)
        return fail(err, MB_ERR_CMDLINE, -1, 0, 0);
    if (cfg->module_count > MB_MAX_MODULES)
        return fail(err, MB_ERR_TOO_MANY_MODULES, -1, 0, 0);
    for (unsigned int i = 0; i < cfg->module_count; i++) {
        const char *s = cfg->modules[i].string;
        if (s && strnlen(s, MB_CMDLINE_MAX) >= MB_CMDLINE_MAX)
            return fail(err, MB_ERR_CMDLINE, (int)i, 0, 0);
    }
    return MB_OK;
}

/* Each module page-aligned after the kernel, in order. */
static enum mb_status place_modules(const struct mb_load_config *cfg, const struct mb_plan *plan,
                                    uint64_t *addr, struct mb_layout *l, struct mb_error *err)
{
    uint64_t top = cfg->mem_bytes, next = page_up(plan->end);
    l->modules_start = l->modules_end = next;
    for (unsigned int i = 0; i < cfg->module_count; i++) {
        uint64_t size = cfg->modules[i].size;
        if (next > top || size > top - next)
            return fail(err, MB_ERR_MODULE_TOO_BIG, (int)i, next, size);
        addr[i] = next;
        l->modules_end = next + size;
        next = page_up(next + size);
    }
    return MB_OK;
}

/* ---- writing ---- */

static enum mb_status write_info(const struct mb_load_config *cfg, unsigned int version,
                                 const uint64_t *module_addr, const struct guest_mem *mem,
                                 struct mb_layout *l, struct mb_error *err)
{
    uint64_t bytes = MB_INFO_END - MB_INFO_GPA;
    uint8_t *area = mem->gpa_to_host(mem->ctx, MB_INFO_GPA, bytes);
    if (!area)
        return fail(err, MB_ERR_GUEST_MEMORY, -1, MB_INFO_GPA, bytes);
    uint64_t gdt[3] = { 0, DESC_CODE32, DESC_DATA32 };
    memset(area, 0, INFO_OFFSET);
    memcpy(area, gdt, sizeof(gdt));
    size_t used;
    l->info_gpa = MB_INFO_GPA + INFO_OFFSET;
    enum mb_status st = mb_info_write(version, cfg, module_addr, l->info_gpa, area + INFO_OFFSET,
                                      bytes - INFO_OFFSET, &used);
    l->info_bytes = used;
    return st == MB_OK ? MB_OK : fail(err, st, -1, l->info_gpa, used);
}

static enum mb_status copy_segments(const uint8_t *image, const struct mb_plan *plan,
                                    const struct guest_mem *mem, struct mb_error *err)
{
    for (unsigned int i = 0; i < plan->count; i++) {
        const struct mb_segment *s = &plan->seg[i];
        uint8_t *dst = mem->gpa_to_host(mem->ctx, s->addr, s->mem_size);
        if (!dst)
            return fail(err, MB_ERR_GUEST_MEMORY, (int)i, s->addr, s->mem_size);
        memcpy_bulk(dst, image + s->offset, s->file_size);
        memset(dst + s->file_size, 0, s->mem_size - s->file_size);
    }
    return MB_OK;
}

static enum mb_status copy_modules(const struct mb_load_config *cfg, const uint64_t *addr,
                                   const struct guest_mem *mem, struct mb_error *err)
{
    for (unsigned int i = 0; i < cfg->module_count; i++) {
        uint64_t size = cfg->modules[i].size;
        if (!size)
            continue;
        uint8_t *dst = mem->gpa_to_host(mem->ctx, addr[i], size);
        if (!dst)
            return fail(err, MB_ERR_GUEST_MEMORY, (int)i, addr[i], size);
        memcpy_bulk(dst, cfg->modules[i].bytes, size);
    }
    return MB_OK;
}

static struct linux_boot_segment flat(uint16_t selector, uint32_t access_rights)
{
    return (struct linux_boot_segment){ selector, 0, 0xffffffffu, access_rights };
}

/* 32-bit protected mode, paging off, flat segments, interrupts off. */
static void fill_state(struct linux_boot_state *s, unsigned int version, const struct mb_layout *l)
{
    memset(s, 0, sizeof(*s));
    s->rip = l->entry;
    s->rax = version == 2 ? MB2_BOOT_MAGIC : MB1_BOOT_MAGIC;
    s->rbx = l->info_gpa;
    s->rsp = MB_STACK_GPA;
    s->rflags = RFLAGS_FIXED;
    s->cr0 = CR0_PE | CR0_ET;
    s->gdt_base = MB_INFO_GPA;
    s->gdt_limit = GDT_LIMIT;
    s->cs = flat(MB_BOOT_CS, AR_CODE32);
    s->ds = flat(MB_BOOT_DS, AR_DATA32);
    s->es = s->ss = s->fs = s->gs = s->ds;
    s->tr = (struct linux_boot_segment){ 0, 0, TSS_LIMIT, AR_TSS32_BUSY };
    s->ldtr = (struct linux_boot_segment){ 0, 0, 0, AR_UNUSABLE };
}

enum mb_status mb_load(const struct mb_load_config *cfg, const struct guest_mem *mem,
                       struct mb_layout *layout, struct linux_boot_state *state,
                       struct mb_error *err)
{
    const uint8_t *image = cfg->image;
    size_t size = image ? cfg->image_size : 0;
    struct mb_header h;
    struct mb_plan plan;
    uint64_t module_addr[MB_MAX_MODULES];
    enum mb_status st;

    *err = (struct mb_error){ MB_OK, -1, 0, 0 };
    memset(layout, 0, sizeof(*layout));
    if ((st = check_config(cfg, err)) != MB_OK ||
        (st = mb_header_find(image, size, &h, err)) != MB_OK ||
        (st = mb_image_plan(image, size, &h, cfg->mem_bytes, &plan, err)) != MB_OK ||
        (st = place_modules(cfg, &plan, module_addr, layout, err)) != MB_OK ||
        (st = write_info(cfg, h.version, module_addr, mem, layout, err)) != MB_OK ||
        (st = copy_segments(image, &plan, mem, err)) != MB_OK ||
        (st = copy_modules(cfg, module_addr, mem, err)) != MB_OK)
        return st;
    layout->version = h.version;
    layout->segments = plan.count;
    layout->kernel_start = plan.start;
    layout->kernel_end = plan.end;
    layout->entry = plan.entry;
    fill_state(state, h.version, layout);
    return MB_OK;
}
