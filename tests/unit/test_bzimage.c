/* Tests of the bzImage parser (vmm/loader/bzimage.c) and the Linux loader
 * (vmm/loader/linux_boot.c). Synthetic images are built in memory field by field
 * (no kernel bytes are stored in the tree). When VERTIGO_GUEST_KERNEL
 * names the downloaded Debian kernel ($(BUILD)/guest/vmlinuz; `make test`
 * sets it), the real image is parsed and loaded into a simulated 256 MiB
 * guest as well. */
#include "tests/unit/unit.h"

#include <stdlib.h>

#include "vmm/loader/bzimage.h"
#include "vmm/loader/linux_boot.h"

#define KB 1024ull
#define MB (1024ull * KB)
#define GB (1024ull * MB)

/* ---- synthetic images ------------------------------------------------- */

#define SYN_SETUP_SECTS  4u
#define SYN_SETUP_SIZE   ((SYN_SETUP_SECTS + 1) * BZ_SECTOR_SIZE)
#define SYN_KERNEL_SIZE  (64 * KB)
#define SYN_SIZE         (SYN_SETUP_SIZE + SYN_KERNEL_SIZE)
#define SYN_INIT_SIZE    (4 * MB)
#define SYN_ALIGN        (2 * MB)
#define SYN_PREF         (16 * MB)
#define SYN_CMDLINE_SIZE 0x7ffu
#define SYN_INITRD_MAX   0x7fffffffu

static void put16(uint8_t *p, size_t off, uint16_t v) { memcpy(p + off, &v, sizeof(v)); }
static void put32(uint8_t *p, size_t off, uint32_t v) { memcpy(p + off, &v, sizeof(v)); }
static void put64(uint8_t *p, size_t off, uint64_t v) { memcpy(p + off, &v, sizeof(v)); }

/* A well-formed 64-bit relocatable image, protocol 2.15; caller frees. */
static uint8_t *synthetic_image(void)
{
    uint8_t *img = calloc(1, SYN_SIZE);
    img[0x1f1] = SYN_SETUP_SECTS;
    put32(img, 0x1f4, SYN_KERNEL_SIZE / 16);          /* syssize */
    put16(img, 0x1fe, BZ_BOOT_FLAG);
    img[0x200] = 0xeb;                                 /* jmp short ... */
    img[0x201] = 0x26c - BZ_SETUP_HEADER_BASE;         /* ... to the end of the header */
    put32(img, 0x202, BZ_HDRS_MAGIC);
    put16(img, 0x206, 0x020f);
    img[0x211] = BZ_LOADED_HIGH;
    put32(img, 0x214, 0x100000);                       /* code32_start */
    put32(img, 0x22c, SYN_INITRD_MAX);
    put32(img, 0x230, SYN_ALIGN);
    img[0x234] = 1;                                    /* relocatable_kernel */
    img[0x235] = 21;                                   /* min_alignment */
    put16(img, 0x236, BZ_XLF_KERNEL_64 | BZ_XLF_CAN_BE_LOADED_ABOVE_4G);
    put32(img, 0x238, SYN_CMDLINE_SIZE);
    put32(img, 0x248, 0x100);                          /* payload_offset */
    put32(img, 0x24c, 0x1000);                         /* payload_length */
    put64(img, 0x258, SYN_PREF);
    put32(img, 0x260, SYN_INIT_SIZE);
    for (size_t i = 0; i < SYN_KERNEL_SIZE; i++)       /* recognizable kernel bytes */
        img[SYN_SETUP_SIZE + i] = (uint8_t)(i * 7 + 3);
    return img;
}

static enum bzimage_status parse_mutated(size_t off, const void *bytes, size_t n, size_t size)
{
    uint8_t *img = synthetic_image();
    struct bzimage_info bi;
    memcpy(img + off, bytes, n);
    enum bzimage_status st = bzimage_parse(img, size, &bi);
    free(img);
    return st;
}

static enum bzimage_status parse_with8(size_t off, uint8_t v)
{
    return parse_mutated(off, &v, 1, SYN_SIZE);
}

static enum bzimage_status parse_with16(size_t off, uint16_t v)
{
    return parse_mutated(off, &v, 2, SYN_SIZE);
}

static enum bzimage_status parse_with32(size_t off, uint32_t v)
{
    return parse_mutated(off, &v, 4, SYN_SIZE);
}

TEST(bzimage_synthetic_parses)
{
    uint8_t *img = synthetic_image();
    struct bzimage_info bi;
    CHECK_EQ(bzimage_parse(img, SYN_SIZE, &bi), BZIMAGE_OK);
    CHECK_EQ(bi.version, 0x020f);
    CHECK_EQ(bi.setup_size, SYN_SETUP_SIZE);
    CHECK_EQ(bi.header_end, 0x26c);
    CHECK(bi.kernel == img + SYN_SETUP_SIZE);
    CHECK_EQ(bi.kernel_size, SYN_KERNEL_SIZE);
    CHECK_EQ(bi.kernel_alignment, SYN_ALIGN);
    CHECK_EQ(bi.pref_address, SYN_PREF);
    CHECK_EQ(bi.init_size, SYN_INIT_SIZE);
    CHECK_EQ(bi.cmdline_size, SYN_CMDLINE_SIZE);
    CHECK_EQ(bi.initrd_addr_max, SYN_INITRD_MAX);
    CHECK_EQ(bi.payload_offset, 0x100);
    CHECK_EQ(bi.payload_length, 0x1000);
    CHECK(bi.xloadflags & BZ_XLF_KERNEL_64);
    CHECK_EQ(bi.hdr.header, BZ_HDRS_MAGIC);
    CHECK_EQ(bi.hdr.relocatable_kernel, 1);
    free(img);
}

TEST(bzimage_setup_sects_zero_means_four)
{
    uint8_t *img = synthetic_image();
    struct bzimage_info bi;
    img[0x1f1] = 0;
    CHECK_EQ(bzimage_parse(img, SYN_SIZE, &bi), BZIMAGE_OK);
    CHECK_EQ(bi.setup_size, (BZ_DEFAULT_SETUP_SECTS + 1) * BZ_SECTOR_SIZE);
    img[0x1f1] = 2;                    /* 3 sectors, 0x600 bytes: still past the header */
    CHECK_EQ(bzimage_parse(img, SYN_SIZE, &bi), BZIMAGE_OK);
    CHECK_EQ(bi.setup_size, 3 * BZ_SECTOR_SIZE);
    free(img);
}

TEST(bzimage_truncated)
{
    uint8_t *img = synthetic_image();
    struct bzimage_info bi;
    CHECK_EQ(bzimage_parse(img, 0, &bi), BZIMAGE_ERR_TRUNCATED);
    CHECK_EQ(bzimage_parse(img, 0x1f0, &bi), BZIMAGE_ERR_TRUNCATED);   /* before the header */
    CHECK_EQ(bzimage_parse(img, 0x205, &bi), BZIMAGE_ERR_TRUNCATED);   /* magic cut */
    CHECK_EQ(bzimage_parse(img, 0x240, &bi), BZIMAGE_ERR_TRUNCATED);   /* header cut */
    CHECK_EQ(bzimage_parse(img, SYN_SETUP_SIZE, &bi), BZIMAGE_ERR_TRUNCATED); /* no kernel */
    CHECK_EQ(bzimage_parse(img, SYN_SIZE - 16, &bi), BZIMAGE_ERR_TRUNCATED);  /* < syssize */
    CHECK_EQ(bzimage_parse(NULL, SYN_SIZE, &bi), BZIMAGE_ERR_TRUNCATED);
    /* setup_sects pointing past the end of the file. */
    CHECK_EQ(parse_with8(0x1f1, 200), BZIMAGE_ERR_TRUNCATED);
    free(img);
}

TEST(bzimage_every_prefix_is_handled)
{
    /* Every truncation point: no crash (ASan watches), never OK before the end. */
    uint8_t *img = synthetic_image();
    struct bzimage_info bi;
    int ok_early = 0;
    for (size_t n = 0; n < SYN_SIZE; n += (n < 0x800 ? 1 : 256)) {
        uint8_t *copy = malloc(n ? n : 1);
        memcpy(copy, img, n);
        if (bzimage_parse(copy, n, &bi) == BZIMAGE_OK)
            ok_early++;
        free(copy);
    }
    CHECK_EQ(ok_early, 0);
    free(img);
}

TEST(bzimage_wrong_magic_and_flag)
{
    CHECK_EQ(parse_with16(0x1fe, 0x55aa), BZIMAGE_ERR_NO_BOOT_FLAG);
    CHECK_EQ(parse_with32(0x202, 0x53726449), BZIMAGE_ERR_BAD_MAGIC);   /* "IdrS" */
    CHECK_EQ(parse_with32(0x202, 0), BZIMAGE_ERR_BAD_MAGIC);
}

TEST(bzimage_too_old_protocol)
{
    CHECK_EQ(parse_with16(0x206, 0x020b), BZIMAGE_ERR_OLD_PROTOCOL);   /* 2.11 */
    CHECK_EQ(parse_with16(0x206, 0x0200), BZIMAGE_ERR_OLD_PROTOCOL);
    CHECK_EQ(parse_with16(0x206, 0x020c), BZIMAGE_OK);                 /* 2.12 is enough */
    /* A 2.12 header must reach init_size. */
    CHECK_EQ(parse_with8(0x201, 0x50), BZIMAGE_ERR_BAD_HEADER_LEN);
}

TEST(bzimage_capabilities)
{
    CHECK_EQ(parse_with8(0x211, 0), BZIMAGE_ERR_NOT_BZIMAGE);
    CHECK_EQ(parse_with16(0x236, BZ_XLF_CAN_BE_LOADED_ABOVE_4G), BZIMAGE_ERR_NOT_64BIT);
    CHECK_EQ(parse_with8(0x234, 0), BZIMAGE_ERR_NOT_RELOCATABLE);
    CHECK_EQ(parse_with32(0x230, 0), BZIMAGE_ERR_BAD_ALIGNMENT);
    CHECK_EQ(parse_with32(0x230, 3 * MB), BZIMAGE_ERR_BAD_ALIGNMENT);
    CHECK_EQ(parse_with32(0x230, 512), BZIMAGE_ERR_BAD_ALIGNMENT);
}

TEST(bzimage_sizes)
{
    CHECK_EQ(parse_with32(0x260, SYN_KERNEL_SIZE - 16), BZIMAGE_ERR_BAD_INIT_SIZE);
    CHECK_EQ(parse_with32(0x260, 0), BZIMAGE_ERR_BAD_INIT_SIZE);
    CHECK_EQ(parse_with32(0x24c, SYN_KERNEL_SIZE), BZIMAGE_ERR_BAD_PAYLOAD);
    CHECK_EQ(parse_with32(0x248, 0xffffffffu), BZIMAGE_ERR_BAD_PAYLOAD);
    CHECK_EQ(parse_with32(0x1f4, 0xffffffffu), BZIMAGE_ERR_TRUNCATED);  /* syssize */
}

TEST(bzimage_strerror_texts)
{
    const char *seen[BZIMAGE_ERR_BAD_PAYLOAD + 1];
    for (int s = 0; s <= BZIMAGE_ERR_BAD_PAYLOAD; s++) {
        seen[s] = bzimage_strerror((enum bzimage_status)s);
        CHECK(seen[s] != NULL && seen[s][0] != '\0');
        for (int t = 0; t < s; t++)
            CHECK(strcmp(seen[s], seen[t]) != 0);
    }
    CHECK(strstr(bzimage_strerror(BZIMAGE_ERR_OLD_PROTOCOL), "2.12") != NULL);
    CHECK(bzimage_strerror((enum bzimage_status)1000) != NULL);
}

/* ---- the real kernel --------------------------------------------------- */

static uint8_t *real_kernel(size_t *size)
{
    const char *path = getenv("VERTIGO_GUEST_KERNEL");
    if (!path || !*path) {
        printf("    note: VERTIGO_GUEST_KERNEL not set; real-kernel checks skipped\n");
        return NULL;
    }
    return unit_read_file(path, size);
}

TEST(bzimage_real_debian_kernel)
{
    size_t size;
    uint8_t *img = real_kernel(&size);
    if (!img)
        return;
    struct bzimage_info bi;
    enum bzimage_status st = bzimage_parse(img, size, &bi);
    CHECK_STR(bzimage_strerror(st), "ok");
    CHECK(bi.version >= 0x020f);
    CHECK(bi.xloadflags & BZ_XLF_KERNEL_64);
    CHECK(bi.hdr.relocatable_kernel);
    CHECK(bi.kernel_alignment >= 2 * MB);
    CHECK_EQ(bi.pref_address % bi.kernel_alignment, 0);
    CHECK(bi.pref_address >= 1 * MB);
    CHECK(bi.init_size >= bi.hdr.syssize * 16ull);
    CHECK(bi.init_size < 512 * MB);
    CHECK(bi.cmdline_size >= 255);
    CHECK(bi.initrd_addr_max >= 0x37ffffff);
    CHECK(bi.setup_size + bi.kernel_size == size);
    CHECK(bi.payload_offset + (uint64_t)bi.payload_length <= bi.kernel_size);
    printf("    real kernel: protocol %x.%02x, %zu bytes, setup %zu, init_size 0x%x, "
           "pref 0x%" PRIx64 ", align 0x%x\n", bi.version >> 8, bi.version & 0xff, size,
           bi.setup_size, bi.init_size, bi.pref_address, bi.kernel_alignment);
    free(img);
}

/* ---- loading into a simulated guest ----------------------------------- */

#define SIM_RAM   (256 * MB)
#define SIM_RSDP  0xf6a20ull
#define SIM_IOAPIC 0xfec00000ull
#define SIM_VERTIGO_BASE (224 * MB)
#define SIM_VERTIGO_END  (240 * MB)

struct sim_guest {
    uint8_t *ram;
    uint64_t ram_size;
    const struct e820_table *e820;
    int refused;
};

/* Hands out only ranges entirely inside one usable e820 entry, so the
 * loader cannot write anything else without the test noticing. */
static void *sim_gpa_to_host(void *ctx, uint64_t gpa, uint64_t len)
{
    struct sim_guest *g = ctx;
    for (uint32_t i = 0; i < g->e820->count; i++) {
        const struct mem_range *r = &g->e820->entries[i];
        if (r->type == MEM_USABLE && gpa >= r->base && len <= r->base + r->length - gpa &&
            gpa + len <= g->ram_size)
            return g->ram + gpa;
    }
    g->refused++;
    return NULL;
}

static void sim_e820(struct e820_table *t)
{
    struct mem_range fw[] = {
        { 0, 0x9fc00, MEM_USABLE },
        { 0x9fc00, 0x400, MEM_RESERVED },
        { 0xf0000, 0x10000, MEM_RESERVED },
        { 1 * MB, SIM_RAM - 1 * MB, MEM_USABLE },
        { SIM_IOAPIC, 4 * KB, MEM_RESERVED },
    };
    struct phys_range vertigo[] = { { SIM_VERTIGO_BASE, SIM_VERTIGO_END } };
    enum e820_status st = e820_build(t, fw, 5, vertigo, 1);
    CHECK_EQ(st, E820_OK);
}

static uint64_t rd64(const struct sim_guest *g, uint64_t gpa)
{
    uint64_t v = 0;
    if (gpa + 8 <= g->ram_size)
        memcpy(&v, g->ram + gpa, 8);
    return v;
}

/* Walks the guest's 4-level page tables; UINT64_MAX if `va` is unmapped. */
static uint64_t walk(const struct sim_guest *g, uint64_t cr3, uint64_t va)
{
    const uint64_t addr_mask = 0x000ffffffffff000ull;
    uint64_t e = rd64(g, (cr3 & addr_mask) + ((va >> 39) & 511) * 8);
    if (!(e & 1))
        return UINT64_MAX;
    e = rd64(g, (e & addr_mask) + ((va >> 30) & 511) * 8);
    if (!(e & 1))
        return UINT64_MAX;
    if (e & 0x80)
        return (e & addr_mask & ~(GB - 1)) + (va & (GB - 1));
    e = rd64(g, (e & addr_mask) + ((va >> 21) & 511) * 8);
    if (!(e & 1) || !(e & 0x80) || !(e & 2))
        return UINT64_MAX;
    return (e & addr_mask & ~(2 * MB - 1)) + (va & (2 * MB - 1));
}

static bool identity(const struct sim_guest *g, uint64_t cr3, uint64_t base, uint64_t len)
{
    return walk(g, cr3, base) == base && walk(g, cr3, base + len - 1) == base + len - 1;
}

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
    return a < b + blen && b < a + alen;
}

static bool in_usable(const struct e820_table *t, uint64_t base, uint64_t len)
{
    for (uint32_t i = 0; i < t->count; i++) {
        const struct mem_range *r = &t->entries[i];
        if (r->type == MEM_USABLE && base >= r->base && base + len <= r->base + r->length)
            return true;
    }
    return false;
}

struct load_run {
    struct sim_guest g;
    struct e820_table e820;
    struct bzimage_info bi;
    struct linux_boot_config cfg;
    struct linux_boot_layout l;
    struct linux_boot_state s;
    uint8_t *initrd;
};

static enum linux_boot_status load(struct load_run *r, const uint8_t *img, size_t img_size,
                                   uint64_t initrd_size, const char *cmdline, bool use_1g)
{
    memset(r, 0, sizeof(*r));
    sim_e820(&r->e820);
    CHECK_EQ(bzimage_parse(img, img_size, &r->bi), BZIMAGE_OK);
    r->g = (struct sim_guest){ calloc(1, SIM_RAM), SIM_RAM, &r->e820, 0 };
    r->initrd = malloc(initrd_size ? initrd_size : 1);
    for (uint64_t i = 0; i < initrd_size; i++)
        r->initrd[i] = (uint8_t)(i * 13 + 1);
    r->cfg = (struct linux_boot_config){ &r->bi, r->initrd, initrd_size, cmdline, &r->e820,
                                         SIM_RSDP, use_1g };
    struct guest_mem mem = { sim_gpa_to_host, &r->g };
    return linux_boot_load(&r->cfg, &mem, &r->l, &r->s);
}

static void unload(struct load_run *r)
{
    free(r->g.ram);
    free(r->initrd);
}

/* Everything the 64-bit boot protocol promises the kernel, checked in the
 * simulated guest memory. */
static void check_loaded(struct load_run *r, const char *cmdline)
{
    const struct sim_guest *g = &r->g;
    const struct linux_boot_layout *l = &r->l;
    const struct linux_boot_state *s = &r->s;
    const struct bzimage_info *bi = &r->bi;

    CHECK_EQ(g->refused, 0);
    /* Kernel: at pref_address (free here), aligned, copied, in usable RAM. */
    CHECK_EQ(l->kernel_gpa, bi->pref_address);
    CHECK_EQ(l->kernel_gpa % bi->kernel_alignment, 0);
    CHECK(l->kernel_size >= bi->init_size);
    CHECK(in_usable(&r->e820, l->kernel_gpa, l->kernel_size));
    CHECK(memcmp(g->ram + l->kernel_gpa, bi->kernel, bi->kernel_size) == 0);
    /* Initrd: copied, highest usable place below initrd_addr_max (the top
     * of RAM here, since Vertigo's hole is below it), no overlaps. */
    CHECK(memcmp(g->ram + l->initrd_gpa, r->initrd, l->initrd_size) == 0);
    CHECK(l->initrd_gpa + l->initrd_size - 1 <= bi->initrd_addr_max);
    CHECK(in_usable(&r->e820, l->initrd_gpa, l->initrd_size));
    CHECK_EQ((l->initrd_gpa + l->initrd_size + 4095) & ~4095ull, SIM_RAM);
    CHECK(!overlaps(l->initrd_gpa, l->initrd_size, l->kernel_gpa, l->kernel_size));
    CHECK(!overlaps(l->initrd_gpa, l->initrd_size, l->boot_area_gpa, l->boot_area_size));
    CHECK(!overlaps(l->kernel_gpa, l->kernel_size, l->boot_area_gpa, l->boot_area_size));
    CHECK(in_usable(&r->e820, l->boot_area_gpa, l->boot_area_size));

    /* boot_params. */
    const struct linux_boot_params *bp = (const void *)(g->ram + l->boot_params_gpa);
    CHECK_EQ(s->rsi, l->boot_params_gpa);
    CHECK_EQ(bp->hdr.header, BZ_HDRS_MAGIC);
    CHECK_EQ(bp->hdr.version, bi->version);
    CHECK_EQ(bp->hdr.init_size, bi->init_size);
    CHECK_EQ(bp->hdr.boot_flag, BZ_BOOT_FLAG);
    CHECK_EQ(bp->hdr.type_of_loader, 0xff);
    CHECK_EQ(bp->hdr.code32_start, l->kernel_gpa);
    CHECK_EQ(bp->hdr.setup_data, 0);
    CHECK_EQ(bp->sentinel, 0);
    uint64_t cmd = bp->hdr.cmd_line_ptr | (uint64_t)bp->ext_cmd_line_ptr << 32;
    CHECK_EQ(cmd, l->cmdline_gpa);
    CHECK_STR((const char *)g->ram + cmd, cmdline);
    CHECK_EQ(bp->hdr.ramdisk_image | (uint64_t)bp->ext_ramdisk_image << 32, l->initrd_gpa);
    CHECK_EQ(bp->hdr.ramdisk_size | (uint64_t)bp->ext_ramdisk_size << 32, l->initrd_size);
    CHECK_EQ(bp->acpi_rsdp_addr, SIM_RSDP);
    CHECK_EQ(bp->e820_entries, r->e820.count);
    for (uint32_t i = 0; i < r->e820.count && i < E820_MAX_ENTRIES; i++) {
        CHECK_EQ(bp->e820_table[i].addr, r->e820.entries[i].base);
        CHECK_EQ(bp->e820_table[i].size, r->e820.entries[i].length);
        CHECK_EQ(bp->e820_table[i].type, r->e820.entries[i].type);
    }

    /* Page tables: identity for the kernel's init_size region, the zero
     * page, the command line, the GDT, the initrd and the 32-bit MMIO. */
    CHECK_EQ(s->cr3, l->pml4_gpa);
    CHECK(identity(g, s->cr3, l->kernel_gpa, l->kernel_size));
    CHECK(identity(g, s->cr3, l->boot_params_gpa, 4096));
    CHECK(identity(g, s->cr3, l->cmdline_gpa, strlen(cmdline) + 1));
    CHECK(identity(g, s->cr3, s->gdt_base, s->gdt_limit + 1u));
    CHECK(identity(g, s->cr3, l->initrd_gpa, l->initrd_size));
    CHECK(identity(g, s->cr3, SIM_IOAPIC, 4096));
    CHECK(identity(g, s->cr3, 0, SIM_RAM));
    CHECK_EQ(l->mapped_bytes, 4 * GB);
    CHECK_EQ(walk(g, s->cr3, 4 * GB), UINT64_MAX);

    /* GDT: __BOOT_CS = 0x10 64-bit code, __BOOT_DS = 0x18 flat data. */
    uint64_t cs = rd64(g, s->gdt_base + LINUX_BOOT_CS);
    uint64_t ds = rd64(g, s->gdt_base + LINUX_BOOT_DS);
    CHECK(s->gdt_limit >= LINUX_BOOT_DS + 7);
    CHECK(cs & (1ull << 47));                /* present */
    CHECK(cs & (1ull << 43));                /* code */
    CHECK(cs & (1ull << 53));                /* L: 64-bit */
    CHECK(!(cs & (1ull << 54)));             /* D must be 0 with L */
    CHECK(ds & (1ull << 47));
    CHECK(!(ds & (1ull << 43)));             /* data */
    CHECK(ds & (1ull << 41));                /* writable */
    CHECK_EQ(rd64(g, s->gdt_base), 0);       /* null descriptor */

    /* Register state. */
    CHECK_EQ(s->rip, l->kernel_gpa + 0x200);
    CHECK_EQ(s->cs.selector, LINUX_BOOT_CS);
    CHECK_EQ(s->ds.selector, LINUX_BOOT_DS);
    CHECK_EQ(s->ss.selector, LINUX_BOOT_DS);
    CHECK_EQ(s->es.selector, LINUX_BOOT_DS);
    CHECK_EQ(s->cs.access_rights & 0xffff, 0xa09b);
    CHECK_EQ(s->ds.access_rights & 0xffff, 0xc093);
    CHECK(s->ldtr.access_rights & (1u << 16));
    CHECK_EQ(s->tr.access_rights & 0xf, 0xb);   /* busy 64-bit TSS */
    CHECK((s->cr0 & 0x80000001u) == 0x80000001u);
    CHECK(s->cr4 & (1u << 5));
    CHECK_EQ(s->efer & 0x500, 0x500);
    CHECK(!(s->rflags & (1u << 9)));            /* IF = 0 */
    CHECK(s->rsp > l->boot_area_gpa && s->rsp <= l->boot_area_gpa + l->boot_area_size);
}

TEST(linux_boot_synthetic_in_256m_guest)
{
    uint8_t *img = synthetic_image();
    struct load_run r;
    const char *cmdline = "console=ttyS0 nokaslr vertigo.scenario=hello";
    CHECK_EQ(load(&r, img, SYN_SIZE, 3 * MB + 123, cmdline, false), LINUX_BOOT_OK);
    check_loaded(&r, cmdline);
    unload(&r);
    /* The same with 1 GiB pages. */
    CHECK_EQ(load(&r, img, SYN_SIZE, 100 * KB, cmdline, true), LINUX_BOOT_OK);
    check_loaded(&r, cmdline);
    unload(&r);
    free(img);
}

TEST(linux_boot_real_kernel_in_256m_guest)
{
    size_t size;
    uint8_t *img = real_kernel(&size);
    if (!img)
        return;
    struct load_run r;
    const char *cmdline = "console=ttyS0 nokaslr tsc=reliable vertigo.scenario=hello";
    enum linux_boot_status st = load(&r, img, size, 2 * MB, cmdline, false);
    CHECK_STR(linux_boot_strerror(st), "ok");
    if (st == LINUX_BOOT_OK)
        check_loaded(&r, cmdline);
    unload(&r);
    free(img);
}

TEST(linux_boot_kernel_moves_when_pref_taken)
{
    uint8_t *img = synthetic_image();
    struct load_run r;
    CHECK_EQ(load(&r, img, SYN_SIZE, 4096, "", false), LINUX_BOOT_OK);
    unload(&r);
    /* Reserve 16-17 MiB: the kernel goes to the next 2 MiB boundary. */
    struct mem_range fw[] = { { 0, 0x9fc00, MEM_USABLE }, { 1 * MB, SIM_RAM - 1 * MB, MEM_USABLE } };
    struct phys_range ex[] = { { 16 * MB, 17 * MB } };
    struct sim_guest g = { calloc(1, SIM_RAM), SIM_RAM, &r.e820, 0 };
    struct bzimage_info bi;
    CHECK_EQ(bzimage_parse(img, SYN_SIZE, &bi), BZIMAGE_OK);
    CHECK_EQ(e820_build(&r.e820, fw, 2, ex, 1), E820_OK);
    uint8_t initrd[4096] = { 1 };
    struct linux_boot_config cfg = { &bi, initrd, sizeof(initrd), "x", &r.e820, 0, false };
    struct guest_mem mem = { sim_gpa_to_host, &g };
    CHECK_EQ(linux_boot_load(&cfg, &mem, &r.l, &r.s), LINUX_BOOT_OK);
    CHECK_EQ(r.l.kernel_gpa, 18 * MB);
    CHECK_EQ(r.s.rip, 18 * MB + 0x200);
    CHECK_EQ(g.refused, 0);
    /* A small initrd_addr_max keeps the initrd low. */
    bi.initrd_addr_max = 32 * MB - 1;
    CHECK_EQ(linux_boot_load(&cfg, &mem, &r.l, &r.s), LINUX_BOOT_OK);
    CHECK_EQ(r.l.initrd_gpa, 32 * MB - 4096);
    /* The highest spot below the limit is inside the kernel: go below it. */
    bi.initrd_addr_max = 22 * MB - 1;
    CHECK_EQ(linux_boot_load(&cfg, &mem, &r.l, &r.s), LINUX_BOOT_OK);
    CHECK_EQ(r.l.initrd_gpa, 18 * MB - 4096);
    /* No usable RAM below 1 MiB: the boot area moves above the kernel. */
    struct mem_range high_only[] = { { 1 * MB, SIM_RAM - 1 * MB, MEM_USABLE } };
    CHECK_EQ(e820_build(&r.e820, high_only, 1, NULL, 0), E820_OK);
    CHECK_EQ(linux_boot_load(&cfg, &mem, &r.l, &r.s), LINUX_BOOT_OK);
    CHECK(r.l.boot_area_gpa >= 1 * MB);
    CHECK(!overlaps(r.l.boot_area_gpa, r.l.boot_area_size, r.l.kernel_gpa, r.l.kernel_size));
    free(g.ram);
    free(img);
}

TEST(linux_boot_errors)
{
    uint8_t *img = synthetic_image();
    struct load_run r;
    char longline[SYN_CMDLINE_SIZE + 2];

    CHECK_EQ(load(&r, img, SYN_SIZE, 0, "", false), LINUX_BOOT_ERR_NO_INITRD);
    unload(&r);

    memset(longline, 'a', sizeof(longline) - 1);
    longline[sizeof(longline) - 1] = '\0';                 /* cmdline_size + 1 chars */
    CHECK_EQ(load(&r, img, SYN_SIZE, 4096, longline, false), LINUX_BOOT_ERR_CMDLINE_TOO_LONG);
    unload(&r);
    longline[SYN_CMDLINE_SIZE] = '\0';                     /* exactly cmdline_size: fits */
    CHECK_EQ(load(&r, img, SYN_SIZE, 4096, longline, false), LINUX_BOOT_OK);
    CHECK_STR((const char *)r.g.ram + r.l.cmdline_gpa, longline);
    unload(&r);

    /* Bigger than all usable RAM left above the kernel. */
    CHECK_EQ(load(&r, img, SYN_SIZE, 210 * MB, "", false), LINUX_BOOT_ERR_INITRD_TOO_BIG);
    unload(&r);

    /* Too little memory: 16 MiB of RAM cannot hold a kernel at >= 16 MiB. */
    struct mem_range small[] = { { 0, 0x9fc00, MEM_USABLE }, { 1 * MB, 15 * MB, MEM_USABLE } };
    struct e820_table t;
    struct bzimage_info bi;
    uint8_t initrd[16] = { 0 };
    CHECK_EQ(e820_build(&t, small, 2, NULL, 0), E820_OK);
    CHECK_EQ(bzimage_parse(img, SYN_SIZE, &bi), BZIMAGE_OK);
    struct sim_guest g = { calloc(1, 16 * MB), 16 * MB, &t, 0 };
    struct guest_mem mem = { sim_gpa_to_host, &g };
    struct linux_boot_config cfg = { &bi, initrd, sizeof(initrd), "", &t, 0, false };
    CHECK_EQ(linux_boot_load(&cfg, &mem, &r.l, &r.s), LINUX_BOOT_ERR_NO_ROOM_KERNEL);
    cfg.kernel = NULL;
    CHECK_EQ(linux_boot_load(&cfg, &mem, &r.l, &r.s), LINUX_BOOT_ERR_NO_KERNEL);

    /* A gpa_to_host that refuses (memory the hypervisor does not own). */
    struct mem_range big[] = { { 0, 0x9fc00, MEM_USABLE }, { 1 * MB, 255 * MB, MEM_USABLE } };
    CHECK_EQ(e820_build(&t, big, 2, NULL, 0), E820_OK);
    cfg.kernel = &bi;
    CHECK_EQ(linux_boot_load(&cfg, &mem, &r.l, &r.s), LINUX_BOOT_ERR_GUEST_MEMORY);

    /* A map too large for 2 MiB boot page tables. */
    struct mem_range huge[] = { { 1 * MB, 2048 * GB, MEM_USABLE } };
    CHECK_EQ(e820_build(&t, huge, 1, NULL, 0), E820_OK);
    CHECK_EQ(linux_boot_load(&cfg, &mem, &r.l, &r.s), LINUX_BOOT_ERR_TOO_MUCH_MEMORY);

    CHECK(strstr(linux_boot_strerror(LINUX_BOOT_ERR_INITRD_TOO_BIG), "initrd") != NULL);
    CHECK(linux_boot_strerror((enum linux_boot_status)77) != NULL);
    free(g.ram);
    free(img);
}
