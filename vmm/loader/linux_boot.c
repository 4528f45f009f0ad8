/* Linux 64-bit boot: guest memory placement, boot_params, identity page
 * tables, boot GDT and the initial VCPU state (boot.rst "64-bit BOOT
 * PROTOCOL", zero-page.rst). Placement only ever uses MEM_USABLE ranges of
 * the guest e820 map and never lets two placed regions overlap.
 *
 * The "boot area" is one run of low pages holding, in order:
 *   boot_params | GDT + TSS | stack | command line | PML4, PDPTs, PDs */
#include "vmm/loader/linux_boot.h"

#include "lib/mem.h"

#define KIB                     1024ull
#define MIB                     (1024ull * KIB)
#define GIB                     (1024ull * MIB)
#define PAGE_4K                 (4 * KIB)
#define PAGE_2M                 (2 * MIB)
#define PAGE_1G                 GIB
#define PML4E_SPAN              (512 * GIB)
#define PT_ENTRIES              512u
#define NO_ADDR                 UINT64_MAX

/* Where the loader looks for room (guest-physical). */
#define BOOT_AREA_MIN           (64 * KIB)   /* above the IVT/BDA/EBDA-ish first 64 KiB */
#define BOOT_AREA_PREFERRED_END MIB          /* try conventional memory first */
#define LOW_4G                  (4 * GIB)
#define INITRD_MIN              MIB
#define KERNEL_MIN              MIB          /* boot.rst: bzImage loads at >= 1 MiB */
#define MAP_MIN                 LOW_4G       /* always map the 32-bit space (MMIO, ACPI) */
#define MAP_MAX_2M_PAGES        (1024 * GIB) /* 1024 PD pages = 4 MiB of tables */
#define MAP_MAX_1G_PAGES        (64 * 1024 * GIB)

/* Boot area page indexes. */
#define AREA_PAGE_BOOT_PARAMS   0u
#define AREA_PAGE_GDT           1u
#define AREA_PAGE_STACK         2u
#define AREA_PAGE_CMDLINE       3u
#define AREA_TSS_OFFSET         0x100u       /* TSS inside the GDT page */
#define TSS64_LIMIT             0x67u        /* 104-byte 64-bit TSS (SDM Vol. 3A, 8.7) */

/* Page-table entry bits (SDM Vol. 3A, 4.5 "4-Level Paging"). */
#define PTE_PRESENT             0x001ull
#define PTE_WRITABLE            0x002ull
#define PTE_LARGE               0x080ull     /* PS: 2 MiB in a PD, 1 GiB in a PDPT */

/* Control registers (SDM Vol. 3A, 2.5) and EFER (Vol. 3A, 2.2.1). */
#define CR0_PE                  (1ull << 0)
#define CR0_ET                  (1ull << 4)
#define CR0_NE                  (1ull << 5)
#define CR0_PG                  (1ull << 31)
#define CR4_PAE                 (1ull << 5)
#define EFER_LME                (1ull << 8)
#define EFER_LMA                (1ull << 10)
#define RFLAGS_FIXED1           (1ull << 1)

/* Segment descriptors (SDM Vol. 3A, 3.4.5): access byte = P|DPL|S|type,
 * flags nibble = G|D/B|L|AVL. The VMCS access-rights field holds the same
 * bits as access | flags << 12 (SDM Vol. 3C, 24.4.1). */
#define SEG_ACCESS_CODE         0x9bu   /* present, S, execute/read, accessed */
#define SEG_ACCESS_DATA         0x93u   /* present, S, read/write, accessed */
#define SEG_ACCESS_TSS_BUSY     0x8bu   /* present, 64-bit busy TSS */
#define SEG_FLAGS_CODE64        0xau    /* G, L */
#define SEG_FLAGS_DATA          0xcu    /* G, D/B */
#define SEG_AR_UNUSABLE         (1u << 16)
#define SEG_LIMIT_4G            0xffffffffu
#define SEG_LIMIT_20BIT         0xfffffu
#define GDT_ENTRIES             6u      /* null, null, CS, DS, TSS (2 slots) */

static const char *const linux_boot_errors[] = {
    [LINUX_BOOT_OK]                   = "ok",
    [LINUX_BOOT_ERR_NO_KERNEL]        = "no kernel image or memory map given",
    [LINUX_BOOT_ERR_NO_INITRD]        = "no initrd given (Vertigo's guests need one)",
    [LINUX_BOOT_ERR_CMDLINE_TOO_LONG] = "command line longer than the kernel's cmdline_size",
    [LINUX_BOOT_ERR_NO_ROOM_KERNEL]   = "too little guest memory for the kernel (init_size)",
    [LINUX_BOOT_ERR_NO_ROOM_BOOT_AREA]= "too little low guest memory for boot_params and page tables",
    [LINUX_BOOT_ERR_INITRD_TOO_BIG]   = "initrd does not fit in usable memory below initrd_addr_max",
    [LINUX_BOOT_ERR_TOO_MUCH_MEMORY]  = "guest memory map too large for the boot page tables",
    [LINUX_BOOT_ERR_GUEST_MEMORY]     = "guest memory range not accessible to the loader",
};

const char *linux_boot_strerror(enum linux_boot_status status)
{
    if ((size_t)status >= sizeof(linux_boot_errors) / sizeof(linux_boot_errors[0]))
        return "unknown Linux boot error";
    return linux_boot_errors[status];
}

static uint64_t align_up(uint64_t v, uint64_t align)
{
    uint64_t r = (v + align - 1) & ~(align - 1);
    return r < v ? NO_ADDR : r;
}

static uint64_t align_down(uint64_t v, uint64_t align)
{
    return v & ~(align - 1);
}

/* ---- placement -------------------------------------------------------- */

#define MAX_PLACED 3u

struct placement {
    const struct e820_table *e820;
    struct phys_range placed[MAX_PLACED];   /* regions already taken */
    uint32_t count;
};

/* The placed region overlapping [base, base+size), or NULL. */
static const struct phys_range *conflict(const struct placement *pl, uint64_t base,
                                         uint64_t size)
{
    for (uint32_t i = 0; i < pl->count; i++) {
        if (base < pl->placed[i].end && pl->placed[i].base < base + size)
            return &pl->placed[i];
    }
    return NULL;
}

static void take(struct placement *pl, uint64_t base, uint64_t size)
{
    pl->placed[pl->count++] = (struct phys_range){ base, base + size };
}

/* Usable entry `i`, clipped to [lo, hi); false if nothing is left. */
static bool usable_window(const struct placement *pl, uint32_t i, uint64_t lo, uint64_t hi,
                          uint64_t *start, uint64_t *end)
{
    const struct mem_range *r = &pl->e820->entries[i];
    if (r->type != MEM_USABLE)
        return false;
    uint64_t r_end = r->base + r->length;
    *start = r->base > lo ? r->base : lo;
    *end = r_end < hi ? r_end : hi;
    return *start < *end;
}

/* Lowest `align`-aligned address of `size` free bytes within [lo, hi). */
static uint64_t find_lowest(const struct placement *pl, uint64_t size, uint64_t align,
                            uint64_t lo, uint64_t hi)
{
    for (uint32_t i = 0; i < pl->e820->count; i++) {
        uint64_t start, end;
        if (!usable_window(pl, i, lo, hi, &start, &end))
            continue;
        uint64_t cand = align_up(start, align);
        while (cand != NO_ADDR && cand <= end && size <= end - cand) {
            const struct phys_range *c = conflict(pl, cand, size);
            if (!c)
                return cand;
            cand = align_up(c->end, align);
        }
    }
    return NO_ADDR;
}

/* Highest `align`-aligned address of `size` free bytes within [lo, hi). */
static uint64_t find_highest(const struct placement *pl, uint64_t size, uint64_t align,
                             uint64_t lo, uint64_t hi)
{
    for (uint32_t i = pl->e820->count; i-- > 0;) {
        uint64_t start, end;
        if (!usable_window(pl, i, lo, hi, &start, &end) || end - start < size)
            continue;
        uint64_t cand = align_down(end - size, align);
        while (cand >= start) {
            const struct phys_range *c = conflict(pl, cand, size);
            if (!c)
                return cand;
            if (c->base < start + size)
                break;
            cand = align_down(c->base - size, align);
        }
    }
    return NO_ADDR;
}

/* boot.rst: a relocatable kernel goes at pref_address when it can, else
 * at a kernel_alignment boundary. Not below pref_address: the 64-bit
 * decompressor never runs the kernel below LOAD_PHYSICAL_ADDR and would
 * move it there. */
static uint64_t place_kernel(struct placement *pl, const struct bzimage_info *k,
                             uint64_t size)
{
    uint64_t align = k->kernel_alignment;
    uint64_t pref = k->pref_address > KERNEL_MIN ? k->pref_address : KERNEL_MIN;
    uint64_t at = NO_ADDR;

    if (pref % align == 0 && pref <= NO_ADDR - size)
        at = find_lowest(pl, size, align, pref, pref + size);
    if (at != pref)
        at = find_lowest(pl, size, align, pref, NO_ADDR);
    if (at != NO_ADDR)
        take(pl, at, size);
    return at;
}

static uint64_t place_low(struct placement *pl, uint64_t size)
{
    uint64_t at = find_lowest(pl, size, PAGE_4K, BOOT_AREA_MIN, BOOT_AREA_PREFERRED_END);
    if (at == NO_ADDR)
        at = find_lowest(pl, size, PAGE_4K, BOOT_AREA_MIN, LOW_4G);
    if (at != NO_ADDR)
        take(pl, at, size);
    return at;
}

/* boot.rst: initrd_addr_max is the highest address the initrd may occupy;
 * loaders put the initrd as high as possible below it. */
static uint64_t place_initrd(struct placement *pl, const struct bzimage_info *k,
                             uint64_t size)
{
    uint64_t limit = (uint64_t)k->initrd_addr_max + 1;
    if (limit > LOW_4G)
        limit = LOW_4G;
    uint64_t at = find_highest(pl, size, PAGE_4K, INITRD_MIN, limit);
    if (at != NO_ADDR)
        take(pl, at, size);
    return at;
}

/* ---- boot area contents ----------------------------------------------- */

struct area_plan {
    uint64_t cmdline_pages;
    uint64_t pdpt_pages;
    uint64_t pd_pages;
    uint64_t map_bytes;
    uint64_t total_pages;
};

static uint64_t e820_top(const struct e820_table *t)
{
    uint64_t top = 0;
    for (uint32_t i = 0; i < t->count; i++) {
        uint64_t end = t->entries[i].base + t->entries[i].length;
        if (end > top)
            top = end;
    }
    return top;
}

static enum linux_boot_status plan_area(const struct linux_boot_config *cfg,
                                        size_t cmdline_len, struct area_plan *p)
{
    uint64_t top = e820_top(cfg->e820);
    uint64_t max = cfg->use_1g_pages ? MAP_MAX_1G_PAGES : MAP_MAX_2M_PAGES;
    if (top > max)
        return LINUX_BOOT_ERR_TOO_MUCH_MEMORY;
    p->map_bytes = align_up(top > MAP_MIN ? top : MAP_MIN, PAGE_1G);
    p->cmdline_pages = align_up(cmdline_len + 1, PAGE_4K) / PAGE_4K;
    p->pdpt_pages = align_up(p->map_bytes, PML4E_SPAN) / PML4E_SPAN;
    p->pd_pages = cfg->use_1g_pages ? 0 : p->map_bytes / PAGE_1G;
    p->total_pages = AREA_PAGE_CMDLINE + p->cmdline_pages + 1 + p->pdpt_pages + p->pd_pages;
    return LINUX_BOOT_OK;
}

/* Identity map of [0, map_bytes) (boot.rst: the kernel, zero page and
 * command line must be identity-mapped at the 64-bit entry). */
static void build_page_tables(uint8_t *host, uint64_t gpa, const struct area_plan *p,
                              bool use_1g)
{
    uint64_t *pml4 = (uint64_t *)host;
    uint64_t pdpt_gpa = gpa + PAGE_4K;
    uint64_t pd_gpa = pdpt_gpa + p->pdpt_pages * PAGE_4K;
    uint64_t *pdpt = (uint64_t *)(host + PAGE_4K);
    uint64_t *pd = (uint64_t *)(host + PAGE_4K + p->pdpt_pages * PAGE_4K);
    uint64_t gib_count = p->map_bytes / PAGE_1G;

    for (uint64_t i = 0; i < p->pdpt_pages; i++)
        pml4[i] = (pdpt_gpa + i * PAGE_4K) | PTE_PRESENT | PTE_WRITABLE;
    for (uint64_t g = 0; g < gib_count; g++) {
        if (use_1g) {
            pdpt[g] = g * PAGE_1G | PTE_PRESENT | PTE_WRITABLE | PTE_LARGE;
            continue;
        }
        pdpt[g] = (pd_gpa + g * PAGE_4K) | PTE_PRESENT | PTE_WRITABLE;
        for (uint64_t k = 0; k < PT_ENTRIES; k++)
            pd[g * PT_ENTRIES + k] = (g * PAGE_1G + k * PAGE_2M) | PTE_PRESENT | PTE_WRITABLE | PTE_LARGE;
    }
}

static uint64_t gdt_segment(uint32_t access, uint32_t flags)
{
    return (SEG_LIMIT_20BIT & 0xffffull) | (uint64_t)access << 40 |
           (uint64_t)(SEG_LIMIT_20BIT >> 16) << 48 | (uint64_t)flags << 52;
}

/* A 16-byte system descriptor for the TSS at `base` (SDM Vol. 3A, 8.2.3). */
static void gdt_tss(uint64_t *slot, uint64_t base)
{
    slot[0] = TSS64_LIMIT | (base & 0xffffffull) << 16 | (uint64_t)SEG_ACCESS_TSS_BUSY << 40 |
              ((base >> 24) & 0xffull) << 56;
    slot[1] = base >> 32;
}

static void build_gdt(uint8_t *page, uint64_t page_gpa)
{
    uint64_t *gdt = (uint64_t *)page;
    gdt[LINUX_BOOT_CS / 8] = gdt_segment(SEG_ACCESS_CODE, SEG_FLAGS_CODE64);
    gdt[LINUX_BOOT_DS / 8] = gdt_segment(SEG_ACCESS_DATA, SEG_FLAGS_DATA);
    gdt_tss(&gdt[LINUX_BOOT_TR / 8], page_gpa + AREA_TSS_OFFSET);
}

static void fill_boot_params(struct linux_boot_params *bp, const struct linux_boot_config *cfg,
                             const struct linux_boot_layout *l)
{
    const struct bzimage_info *k = cfg->kernel;

    /* 64-bit protocol: copy the setup header (0x1f1 up to 0x202 + byte at
     * 0x201) from the image, then fill what the loader owns. */
    memcpy((uint8_t *)bp + BZ_SETUP_HEADER_OFFSET, k->image + BZ_SETUP_HEADER_OFFSET,
           k->header_end - BZ_SETUP_HEADER_OFFSET);
    bp->hdr.type_of_loader = BZ_TYPE_OF_LOADER_UNDEF;
    bp->hdr.vid_mode = 0xffff;                 /* boot.rst: "normal" */
    bp->hdr.code32_start = (uint32_t)l->kernel_gpa;
    bp->hdr.cmd_line_ptr = (uint32_t)l->cmdline_gpa;
    bp->ext_cmd_line_ptr = (uint32_t)(l->cmdline_gpa >> 32);
    bp->hdr.ramdisk_image = (uint32_t)l->initrd_gpa;
    bp->ext_ramdisk_image = (uint32_t)(l->initrd_gpa >> 32);
    bp->hdr.ramdisk_size = (uint32_t)l->initrd_size;
    bp->ext_ramdisk_size = (uint32_t)(l->initrd_size >> 32);
    bp->hdr.setup_data = 0;
    bp->acpi_rsdp_addr = cfg->rsdp_gpa;

    bp->e820_entries = (uint8_t)cfg->e820->count;
    for (uint32_t i = 0; i < cfg->e820->count; i++) {
        const struct mem_range *r = &cfg->e820->entries[i];
        bp->e820_table[i] = (struct linux_e820_entry){ r->base, r->length, r->type };
    }
}

static struct linux_boot_segment flat_segment(uint16_t sel, uint32_t access, uint32_t flags)
{
    return (struct linux_boot_segment){ sel, 0, SEG_LIMIT_4G, access | flags << 12 };
}

static void fill_state(struct linux_boot_state *s, const struct linux_boot_layout *l,
                       uint64_t stack_top)
{
    memset(s, 0, sizeof(*s));
    s->rip = l->kernel_gpa + BZ_ENTRY64_OFFSET;
    s->rsi = l->boot_params_gpa;
    s->rsp = stack_top;
    s->rflags = RFLAGS_FIXED1;                 /* IF = 0: interrupts disabled */
    s->cr0 = CR0_PE | CR0_ET | CR0_NE | CR0_PG;
    s->cr3 = l->pml4_gpa;
    s->cr4 = CR4_PAE;
    s->efer = EFER_LME | EFER_LMA;
    s->gdt_base = l->gdt_gpa;
    s->gdt_limit = GDT_ENTRIES * 8 - 1;
    s->cs = flat_segment(LINUX_BOOT_CS, SEG_ACCESS_CODE, SEG_FLAGS_CODE64);
    s->ds = flat_segment(LINUX_BOOT_DS, SEG_ACCESS_DATA, SEG_FLAGS_DATA);
    s->es = s->ss = s->fs = s->gs = s->ds;
    s->tr = (struct linux_boot_segment){ LINUX_BOOT_TR, l->gdt_gpa + AREA_TSS_OFFSET,
                                         TSS64_LIMIT, SEG_ACCESS_TSS_BUSY };
    s->ldtr = (struct linux_boot_segment){ 0, 0, 0, SEG_AR_UNUSABLE };
}

/* ---- top level -------------------------------------------------------- */

static enum linux_boot_status check_config(const struct linux_boot_config *cfg,
                                           size_t *cmdline_len)
{
    if (!cfg->kernel || !cfg->kernel->image || !cfg->e820)
        return LINUX_BOOT_ERR_NO_KERNEL;
    if (!cfg->initrd || cfg->initrd_size == 0)
        return LINUX_BOOT_ERR_NO_INITRD;
    const char *cmd = cfg->cmdline ? cfg->cmdline : "";
    size_t max = cfg->kernel->cmdline_size;
    *cmdline_len = strnlen(cmd, max + 1);
    if (*cmdline_len > max)
        return LINUX_BOOT_ERR_CMDLINE_TOO_LONG;
    return LINUX_BOOT_OK;
}

static enum linux_boot_status place_all(const struct linux_boot_config *cfg,
                                        const struct area_plan *plan,
                                        struct linux_boot_layout *l)
{
    const struct bzimage_info *k = cfg->kernel;
    struct placement pl = { .e820 = cfg->e820 };
    uint64_t ksize = k->init_size > k->kernel_size ? k->init_size : k->kernel_size;

    l->kernel_size = align_up(ksize, PAGE_4K);
    l->kernel_gpa = place_kernel(&pl, k, l->kernel_size);
    if (l->kernel_gpa == NO_ADDR)
        return LINUX_BOOT_ERR_NO_ROOM_KERNEL;

    l->boot_area_size = plan->total_pages * PAGE_4K;
    l->boot_area_gpa = place_low(&pl, l->boot_area_size);
    if (l->boot_area_gpa == NO_ADDR)
        return LINUX_BOOT_ERR_NO_ROOM_BOOT_AREA;

    l->initrd_size = cfg->initrd_size;
    uint64_t isize = align_up(cfg->initrd_size, PAGE_4K);
    l->initrd_gpa = isize == NO_ADDR ? NO_ADDR : place_initrd(&pl, k, isize);
    if (l->initrd_gpa == NO_ADDR)
        return LINUX_BOOT_ERR_INITRD_TOO_BIG;

    l->boot_params_gpa = l->boot_area_gpa + AREA_PAGE_BOOT_PARAMS * PAGE_4K;
    l->gdt_gpa = l->boot_area_gpa + AREA_PAGE_GDT * PAGE_4K;
    l->cmdline_gpa = l->boot_area_gpa + AREA_PAGE_CMDLINE * PAGE_4K;
    l->pml4_gpa = l->cmdline_gpa + plan->cmdline_pages * PAGE_4K;
    l->mapped_bytes = plan->map_bytes;
    return LINUX_BOOT_OK;
}

static enum linux_boot_status write_all(const struct linux_boot_config *cfg,
                                        const struct guest_mem *mem,
                                        const struct area_plan *plan, size_t cmdline_len,
                                        const struct linux_boot_layout *l)
{
    const struct bzimage_info *k = cfg->kernel;
    uint8_t *kern = mem->gpa_to_host(mem->ctx, l->kernel_gpa, k->kernel_size);
    uint8_t *initrd = mem->gpa_to_host(mem->ctx, l->initrd_gpa, l->initrd_size);
    uint8_t *area = mem->gpa_to_host(mem->ctx, l->boot_area_gpa, l->boot_area_size);
    if (!kern || !initrd || !area)
        return LINUX_BOOT_ERR_GUEST_MEMORY;

    memcpy_bulk(kern, k->kernel, k->kernel_size);
    memcpy_bulk(initrd, cfg->initrd, l->initrd_size);
    memset(area, 0, l->boot_area_size);
    memcpy(area + (l->cmdline_gpa - l->boot_area_gpa), cfg->cmdline ? cfg->cmdline : "",
           cmdline_len);
    build_gdt(area + AREA_PAGE_GDT * PAGE_4K, l->gdt_gpa);
    build_page_tables(area + (l->pml4_gpa - l->boot_area_gpa), l->pml4_gpa, plan,
                      cfg->use_1g_pages);
    fill_boot_params((struct linux_boot_params *)(area + AREA_PAGE_BOOT_PARAMS * PAGE_4K),
                     cfg, l);
    return LINUX_BOOT_OK;
}

enum linux_boot_status linux_boot_load(const struct linux_boot_config *cfg,
                                       const struct guest_mem *mem,
                                       struct linux_boot_layout *layout,
                                       struct linux_boot_state *state)
{
    struct area_plan plan;
    size_t cmdline_len = 0;
    enum linux_boot_status st;

    memset(layout, 0, sizeof(*layout));
    st = check_config(cfg, &cmdline_len);
    if (st == LINUX_BOOT_OK)
        st = plan_area(cfg, cmdline_len, &plan);
    if (st == LINUX_BOOT_OK)
        st = place_all(cfg, &plan, layout);
    if (st == LINUX_BOOT_OK)
        st = write_all(cfg, mem, &plan, cmdline_len, layout);
    if (st == LINUX_BOOT_OK) {
        uint64_t stack_top = layout->boot_area_gpa + (AREA_PAGE_STACK + 1) * PAGE_4K;
        fill_state(state, layout, stack_top);
    }
    return st;
}
