/* Loading a unikernel domain (see vmm/loader/unikernel_boot.h). Every field of
 * the module is checked before any byte is copied; arithmetic on its
 * values is overflow-checked (the module is untrusted input). */
#include "vmm/loader/unikernel_boot.h"

#include "vertigo/unikernel.h"
#include "lib/mem.h"

/* ELF64 (System V ABI, "ELF-64 Object File Format"). */
struct elf64_ehdr {
    uint8_t  ident[16];
    uint16_t type, machine;
    uint32_t version;
    uint64_t entry, phoff, shoff;
    uint32_t flags;
    uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct elf64_phdr {
    uint32_t type, flags;
    uint64_t offset, vaddr, paddr, filesz, memsz, align;
};

#define ELFCLASS64      2
#define ELFDATA2LSB     1
#define EV_CURRENT      1
#define ET_EXEC         2
#define EM_X86_64       62
#define PT_LOAD         1
#define PF_X            1

/* The top area (include/vertigo/unikernel.h), offsets from its start. */
#define PAGE_4K         0x1000ull
#define PAGE_2M         0x200000ull
#define PAGE_1G         0x40000000ull
#define TOP_START_INFO  0x0000ull
#define TOP_GDT         0x1000ull
#define TOP_TSS         0x1800ull
#define TOP_PML4        0x2000ull
#define TOP_PDPT        0x3000ull
#define TOP_PD          0x4000ull   /* one page per GiB of RAM, at most 64 */

#define PTE_PRESENT     0x001ull
#define PTE_WRITABLE    0x002ull
#define PTE_LARGE       0x080ull

#define CR0_PE          (1ull << 0)
#define CR0_ET          (1ull << 4)
#define CR0_NE          (1ull << 5)
#define CR0_WP          (1ull << 16)
#define CR0_PG          (1ull << 31)
#define CR4_PAE         (1ull << 5)
#define CR4_OSFXSR      (1ull << 9)
#define CR4_OSXMMEXCPT  (1ull << 10)
#define EFER_LME        (1ull << 8)
#define EFER_LMA        (1ull << 10)
#define EFER_NXE        (1ull << 11)

/* Descriptors: access byte P|DPL|S|type, flags G|D/B|L; VMCS access
 * rights = access | flags << 12 (SDM Vol. 3A 3.4.5, Vol. 3C 24.4.1). */
#define DESC_CODE64     0x00af9b000000ffffull
#define DESC_DATA       0x00cf93000000ffffull
#define AR_CODE64       (0x9bu | 0xau << 12)
#define AR_DATA         (0x93u | 0xcu << 12)
#define AR_TSS_BUSY     0x8bu
#define AR_UNUSABLE     (1u << 16)
#define TSS_LIMIT       0x67u
#define BOOT_TR         0x18u       /* a TSS, so that VM entry sees a usable TR */
#define GDT_BYTES       0x28u       /* null, code, data, TSS (16 bytes) */

#define MEM_MAX         (64ull << 30)

static const char *const uk_boot_errors[UK_BOOT_STATUS_COUNT] = {
    [UK_BOOT_OK]                    = "ok",
    [UK_BOOT_ERR_BAD_MEM]           = "domain memory is not a 2 MiB multiple of 4 MiB to 64 GiB",
    [UK_BOOT_ERR_TRUNCATED]         = "module shorter than an ELF64 header",
    [UK_BOOT_ERR_NOT_ELF]           = "module is not an ELF file",
    [UK_BOOT_ERR_CLASS]             = "not a little-endian ELF64 (version 1) file",
    [UK_BOOT_ERR_MACHINE]           = "not an x86-64 ELF file",
    [UK_BOOT_ERR_TYPE]              = "not an executable (ET_EXEC) ELF file",
    [UK_BOOT_ERR_PHDRS]             = "bad program header table (entry size, count or place)",
    [UK_BOOT_ERR_NO_SEGMENTS]       = "no loadable segment",
    [UK_BOOT_ERR_TOO_MANY_SEGMENTS] = "more than 16 loadable segments",
    [UK_BOOT_ERR_SEGMENT_FILE]      = "a segment's bytes run past the end of the file",
    [UK_BOOT_ERR_FILESZ]            = "a segment's file size exceeds its memory size",
    [UK_BOOT_ERR_SEGMENT_PHYS]      = "a segment's physical address differs from its virtual one",
    [UK_BOOT_ERR_SEGMENT_RAM]       = "a segment lies outside [1 MiB, RAM - 2 MiB)",
    [UK_BOOT_ERR_OVERLAP]           = "two segments overlap",
    [UK_BOOT_ERR_ENTRY]             = "the entry point is not inside an executable segment",
    [UK_BOOT_ERR_CMDLINE]           = "command line longer than 255 bytes",
    [UK_BOOT_ERR_GUEST_MEMORY]      = "domain memory not accessible to the loader",
};

const char *uk_boot_strerror(enum uk_boot_status status)
{
    if ((unsigned int)status < UK_BOOT_STATUS_COUNT)
        return uk_boot_errors[status];
    return "unknown unikernel loader error";
}

/* ---- checking ---------------------------------------------------------- */

struct uk_image {
    const uint8_t *bytes;
    size_t size;
    struct elf64_ehdr eh;
    struct elf64_phdr load[UK_MAX_SEGMENTS];   /* PT_LOAD with memsz > 0 */
    int load_index[UK_MAX_SEGMENTS];           /* their program header numbers */
    unsigned int loads;
};

static enum uk_boot_status check_header(struct uk_image *im)
{
    static const uint8_t magic[4] = { 0x7f, 'E', 'L', 'F' };
    const struct elf64_ehdr *eh = &im->eh;

    if (im->size < sizeof(*eh))
        return im->size >= 4 && memcmp(im->bytes, magic, 4) != 0 ? UK_BOOT_ERR_NOT_ELF
                                                                  : UK_BOOT_ERR_TRUNCATED;
    memcpy(&im->eh, im->bytes, sizeof(*eh));
    if (memcmp(eh->ident, magic, 4) != 0)
        return UK_BOOT_ERR_NOT_ELF;
    if (eh->ident[4] != ELFCLASS64 || eh->ident[5] != ELFDATA2LSB ||
        eh->ident[6] != EV_CURRENT || eh->version != EV_CURRENT)
        return UK_BOOT_ERR_CLASS;
    if (eh->machine != EM_X86_64)
        return UK_BOOT_ERR_MACHINE;
    if (eh->type != ET_EXEC)
        return UK_BOOT_ERR_TYPE;
    if (eh->phentsize != sizeof(struct elf64_phdr) || eh->phnum == 0 ||
        eh->phnum > UK_MAX_PHDRS || eh->phoff > im->size ||
        im->size - eh->phoff < (uint64_t)eh->phnum * sizeof(struct elf64_phdr))
        return UK_BOOT_ERR_PHDRS;
    return UK_BOOT_OK;
}

static enum uk_boot_status check_segment(const struct uk_image *im, const struct elf64_phdr *ph,
                                         uint64_t mem_bytes)
{
    if (ph->offset > im->size || im->size - ph->offset < ph->filesz)
        return UK_BOOT_ERR_SEGMENT_FILE;
    if (ph->filesz > ph->memsz)
        return UK_BOOT_ERR_FILESZ;
    if (ph->paddr != ph->vaddr)
        return UK_BOOT_ERR_SEGMENT_PHYS;
    uint64_t limit = mem_bytes - VERTIGO_UK_TOP_BYTES;
    if (ph->vaddr < VERTIGO_UK_LOAD_MIN || ph->vaddr > limit || limit - ph->vaddr < ph->memsz)
        return UK_BOOT_ERR_SEGMENT_RAM;
    return UK_BOOT_OK;
}

static bool overlaps(const struct elf64_phdr *a, const struct elf64_phdr *b)
{
    return a->vaddr < b->vaddr + b->memsz && b->vaddr < a->vaddr + a->memsz;
}

/* Collects and checks the PT_LOAD headers; *bad gets the one at fault. */
static enum uk_boot_status check_segments(struct uk_image *im, uint64_t mem_bytes, int *bad)
{
    for (unsigned int i = 0; i < im->eh.phnum; i++) {
        struct elf64_phdr ph;
        memcpy(&ph, im->bytes + im->eh.phoff + i * sizeof(ph), sizeof(ph));
        if (ph.type != PT_LOAD || ph.memsz == 0)
            continue;
        *bad = (int)i;
        if (im->loads == UK_MAX_SEGMENTS)
            return UK_BOOT_ERR_TOO_MANY_SEGMENTS;
        enum uk_boot_status st = check_segment(im, &ph, mem_bytes);
        if (st != UK_BOOT_OK)
            return st;
        for (unsigned int j = 0; j < im->loads; j++)
            if (overlaps(&ph, &im->load[j]))
                return UK_BOOT_ERR_OVERLAP;
        im->load_index[im->loads] = (int)i;
        im->load[im->loads++] = ph;
    }
    *bad = -1;
    return im->loads ? UK_BOOT_OK : UK_BOOT_ERR_NO_SEGMENTS;
}

static bool entry_executable(const struct uk_image *im)
{
    for (unsigned int i = 0; i < im->loads; i++) {
        const struct elf64_phdr *ph = &im->load[i];
        if ((ph->flags & PF_X) && im->eh.entry >= ph->vaddr &&
            im->eh.entry - ph->vaddr < ph->memsz)
            return true;
    }
    return false;
}

static enum uk_boot_status check_image(struct uk_image *im, const struct uk_boot_config *cfg,
                                       int *bad)
{
    enum uk_boot_status st;
    if (cfg->mem_bytes < 2 * VERTIGO_UK_TOP_BYTES || cfg->mem_bytes % PAGE_2M ||
        cfg->mem_bytes > MEM_MAX)
        return UK_BOOT_ERR_BAD_MEM;
    if (cfg->cmdline && strnlen(cfg->cmdline, VERTIGO_UK_CMDLINE_MAX) >= VERTIGO_UK_CMDLINE_MAX)
        return UK_BOOT_ERR_CMDLINE;
    if ((st = check_header(im)) != UK_BOOT_OK ||
        (st = check_segments(im, cfg->mem_bytes, bad)) != UK_BOOT_OK)
        return st;
    return entry_executable(im) ? UK_BOOT_OK : UK_BOOT_ERR_ENTRY;
}

/* ---- building ---------------------------------------------------------- */

static enum uk_boot_status copy_segments(const struct uk_image *im, const struct guest_mem *mem,
                                         struct uk_boot_layout *l, int *bad)
{
    l->load_start = UINT64_MAX;
    l->load_end = 0;
    for (unsigned int i = 0; i < im->loads; i++) {
        const struct elf64_phdr *ph = &im->load[i];
        uint8_t *dst = mem->gpa_to_host(mem->ctx, ph->vaddr, ph->memsz);
        if (!dst) {
            *bad = im->load_index[i];
            return UK_BOOT_ERR_GUEST_MEMORY;
        }
        memcpy_bulk(dst, im->bytes + ph->offset, ph->filesz);
        memset(dst + ph->filesz, 0, ph->memsz - ph->filesz);
        if (ph->vaddr < l->load_start)
            l->load_start = ph->vaddr;
        if (ph->vaddr + ph->memsz > l->load_end)
            l->load_end = ph->vaddr + ph->memsz;
    }
    l->segments = im->loads;
    return UK_BOOT_OK;
}

/* Identity map of [0, mem) with 2 MiB pages, supervisor-only. */
static void build_page_tables(uint8_t *top, uint64_t top_gpa, uint64_t mem_bytes)
{
    uint64_t *pml4 = (uint64_t *)(top + TOP_PML4);
    uint64_t *pdpt = (uint64_t *)(top + TOP_PDPT);
    uint64_t *pd = (uint64_t *)(top + TOP_PD);

    pml4[0] = (top_gpa + TOP_PDPT) | PTE_PRESENT | PTE_WRITABLE;
    for (uint64_t g = 0; g * PAGE_1G < mem_bytes; g++)
        pdpt[g] = (top_gpa + TOP_PD + g * PAGE_4K) | PTE_PRESENT | PTE_WRITABLE;
    for (uint64_t i = 0; i * PAGE_2M < mem_bytes; i++)
        pd[i] = i * PAGE_2M | PTE_PRESENT | PTE_WRITABLE | PTE_LARGE;
}

static void build_gdt(uint8_t *top, uint64_t top_gpa)
{
    uint64_t *gdt = (uint64_t *)(top + TOP_GDT);
    uint64_t tss = top_gpa + TOP_TSS;

    gdt[VERTIGO_UK_BOOT_CS / 8] = DESC_CODE64;
    gdt[VERTIGO_UK_BOOT_DS / 8] = DESC_DATA;
    gdt[BOOT_TR / 8] = TSS_LIMIT | (tss & 0xffffffull) << 16 | (uint64_t)AR_TSS_BUSY << 40 |
                       ((tss >> 24) & 0xffull) << 56;
    gdt[BOOT_TR / 8 + 1] = tss >> 32;
}

static void fill_start_info(uint8_t *top, const struct uk_boot_config *cfg,
                            const struct uk_boot_layout *l)
{
    struct vertigo_uk_start *si = (struct vertigo_uk_start *)(top + TOP_START_INFO);
    const char *cmdline = cfg->cmdline ? cfg->cmdline : "";

    si->magic = VERTIGO_UK_MAGIC;
    si->version = VERTIGO_UK_VERSION;
    si->domain_id = cfg->domain_id;
    si->mem_bytes = cfg->mem_bytes;
    si->tsc_hz = cfg->tsc_hz;
    si->free_start = l->free_start;
    si->free_end = l->free_end;
    memcpy(si->cmdline, cmdline, strlen(cmdline) + 1);
}

static struct linux_boot_segment flat(uint16_t selector, uint32_t access_rights)
{
    return (struct linux_boot_segment){ selector, 0, 0xffffffffu, access_rights };
}

static void fill_state(struct linux_boot_state *s, uint64_t entry, const struct uk_boot_layout *l)
{
    memset(s, 0, sizeof(*s));
    s->rip = entry;
    s->rdi = l->start_info_gpa;
    s->rflags = 0x2;
    s->cr0 = CR0_PE | CR0_ET | CR0_NE | CR0_WP | CR0_PG;
    s->cr3 = l->pml4_gpa;
    s->cr4 = CR4_PAE | CR4_OSFXSR | CR4_OSXMMEXCPT;
    s->efer = EFER_LME | EFER_LMA | EFER_NXE;
    s->gdt_base = l->gdt_gpa;
    s->gdt_limit = GDT_BYTES - 1;
    s->cs = flat(VERTIGO_UK_BOOT_CS, AR_CODE64);
    s->ds = flat(VERTIGO_UK_BOOT_DS, AR_DATA);
    s->es = s->ss = s->fs = s->gs = s->ds;
    s->tr = (struct linux_boot_segment){ BOOT_TR, l->gdt_gpa + (TOP_TSS - TOP_GDT), TSS_LIMIT,
                                         AR_TSS_BUSY };
    s->ldtr = (struct linux_boot_segment){ 0, 0, 0, AR_UNUSABLE };
}

enum uk_boot_status uk_boot_load(const struct uk_boot_config *cfg, const struct guest_mem *mem,
                                 struct uk_boot_layout *layout, struct linux_boot_state *state,
                                 int *bad_index)
{
    struct uk_image im;
    int bad = -1;

    memset(&im, 0, sizeof(im));
    im.bytes = cfg->image;
    im.size = cfg->image ? cfg->image_size : 0;
    enum uk_boot_status st = check_image(&im, cfg, &bad);
    if (st == UK_BOOT_OK)
        st = copy_segments(&im, mem, layout, &bad);
    if (bad_index)
        *bad_index = bad;
    if (st != UK_BOOT_OK)
        return st;

    uint64_t top_gpa = cfg->mem_bytes - VERTIGO_UK_TOP_BYTES;
    uint8_t *top = mem->gpa_to_host(mem->ctx, top_gpa, VERTIGO_UK_TOP_BYTES);
    if (!top)
        return UK_BOOT_ERR_GUEST_MEMORY;
    memset(top, 0, VERTIGO_UK_TOP_BYTES);
    layout->free_start = (layout->load_end + PAGE_4K - 1) & ~(PAGE_4K - 1);
    layout->free_end = top_gpa;
    layout->start_info_gpa = top_gpa + TOP_START_INFO;
    layout->gdt_gpa = top_gpa + TOP_GDT;
    layout->pml4_gpa = top_gpa + TOP_PML4;
    build_page_tables(top, top_gpa, cfg->mem_bytes);
    build_gdt(top, top_gpa);
    fill_start_info(top, cfg, layout);
    fill_state(state, im.eh.entry, layout);
    return UK_BOOT_OK;
}
