/* Unit tests: the multiboot loader (vmm/loader/multiboot_*.c) on well-formed
 * multiboot and multiboot2 kernels (ELF32, ELF64, the header's address
 * fields), the boot information each specification describes, the entry
 * state, and hostile images each refused with its own error. */
#include "vmm/loader/multiboot.h"

#include <elf.h>
#include <stdlib.h>

#include "tests/unit/unit.h"

#define MEM (16ull << 20)
#define TEXT_GPA 0x400000ull
#define DATA_GPA 0x401000ull

static uint8_t *ram;

static void *ram_at(void *ctx, uint64_t gpa, uint64_t len)
{
    (void)ctx;
    return gpa <= MEM && len <= MEM - gpa ? ram + gpa : NULL;
}

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* An ELF32 kernel: header, two program headers, a multiboot header at the
 * start of its text (0x100 bytes), data (4 bytes of file, 0x2000 of
 * memory). */
struct kernel32 {
    Elf32_Ehdr eh;
    Elf32_Phdr ph[2];
    uint8_t pad[0x1000 - sizeof(Elf32_Ehdr) - 2 * sizeof(Elf32_Phdr)];
    uint8_t text[0x100];
    uint8_t data[4];
};

static void mb1_header(uint8_t *at, uint32_t flags)
{
    put32(at, MB1_HEADER_MAGIC);
    put32(at + 4, flags);
    put32(at + 8, 0u - MB1_HEADER_MAGIC - flags);
}

static struct kernel32 *kernel32(void)
{
    struct kernel32 *k = calloc(1, sizeof(*k));
    memcpy(k->eh.e_ident, ELFMAG, SELFMAG);
    k->eh.e_ident[EI_CLASS] = ELFCLASS32;
    k->eh.e_ident[EI_DATA] = ELFDATA2LSB;
    k->eh.e_ident[EI_VERSION] = EV_CURRENT;
    k->eh.e_version = EV_CURRENT;
    k->eh.e_type = ET_EXEC;
    k->eh.e_machine = EM_386;
    k->eh.e_entry = TEXT_GPA + 0x40;
    k->eh.e_phoff = offsetof(struct kernel32, ph);
    k->eh.e_phentsize = sizeof(Elf32_Phdr);
    k->eh.e_phnum = 2;
    k->eh.e_ehsize = sizeof(Elf32_Ehdr);
    k->ph[0] = (Elf32_Phdr){ PT_LOAD, offsetof(struct kernel32, text), TEXT_GPA, TEXT_GPA,
                             0x100, 0x100, PF_R | PF_X, 0x1000 };
    k->ph[1] = (Elf32_Phdr){ PT_LOAD, offsetof(struct kernel32, data), DATA_GPA, DATA_GPA,
                             4, 0x2000, PF_R | PF_W, 0x1000 };
    mb1_header(k->text, 0);
    memset(k->text + 0x40, 0x90, 0x10);
    memcpy(k->data, "DATA", 4);
    return k;
}

/* The domain's map as vmm/domain/domain_mboot.c gives it. */
static struct e820_table domain_map(void)
{
    struct e820_table t = { .count = 4 };
    t.entries[0] = (struct mem_range){ 0, 0x9f000, MEM_USABLE };
    t.entries[1] = (struct mem_range){ 0x9f000, 0x1000, MEM_RESERVED };
    t.entries[2] = (struct mem_range){ 0xf0000, 0x10000, MEM_RESERVED };
    t.entries[3] = (struct mem_range){ 0x100000, MEM - 0x100000, MEM_USABLE };
    return t;
}

static struct e820_table map;
static struct mb_module modules[MB_MAX_MODULES + 1];

static enum mb_status load_with(const void *image, size_t size, uint64_t mem, const char *cmdline,
                                unsigned int nmods, struct mb_layout *l,
                                struct linux_boot_state *s, struct mb_error *err)
{
    static const uint8_t rsdp[36] = "RSD PTR ";
    map = domain_map();
    struct mb_load_config cfg = { image, size, mem, &map, cmdline, modules, nmods, rsdp,
                                  sizeof(rsdp) };
    struct guest_mem gm = { ram_at, NULL };
    free(ram);
    ram = malloc(MEM);
    memset(ram, 0xa5, MEM);
    return mb_load(&cfg, &gm, l, s, err);
}

static enum mb_status load(const void *image, size_t size, struct mb_error *err)
{
    struct mb_layout l;
    struct linux_boot_state s;
    return load_with(image, size, MEM, "", 0, &l, &s, err);
}

TEST(elf32_kernel_loads_with_v1_information)
{
    struct kernel32 *k = kernel32();
    struct mb_layout l;
    struct linux_boot_state s;
    struct mb_error err;
    modules[0] = (struct mb_module){ "NR_CPUS=1\n", 10, "env file" };
    static uint8_t big[5000];
    memset(big, 'b', sizeof(big));
    modules[1] = (struct mb_module){ big, sizeof(big), "big" };

    CHECK_EQ(load_with(k, sizeof(*k), MEM, "arg1 arg2", 2, &l, &s, &err), MB_OK);
    CHECK_EQ(l.version, 1);
    CHECK_EQ(l.segments, 2);
    CHECK(memcmp(ram + TEXT_GPA, k->text, 0x100) == 0);
    CHECK(memcmp(ram + DATA_GPA, "DATA", 4) == 0);
    CHECK_EQ(ram[DATA_GPA + 4], 0);                 /* bss zero-filled */
    CHECK_EQ(ram[DATA_GPA + 0x1fff], 0);
    CHECK_EQ(l.kernel_start, TEXT_GPA);
    CHECK_EQ(l.kernel_end, DATA_GPA + 0x2000);
    /* Entry state: 32-bit protected mode, paging off, the magic and info. */
    CHECK_EQ(s.rip, TEXT_GPA + 0x40);
    CHECK_EQ(s.rax, MB1_BOOT_MAGIC);
    CHECK_EQ(s.rbx, l.info_gpa);
    CHECK_EQ(s.cr0, 0x11);
    CHECK_EQ(s.cr4, 0);
    CHECK_EQ(s.efer, 0);
    CHECK_EQ(s.rflags, 2);
    CHECK_EQ(s.cs.selector, MB_BOOT_CS);
    CHECK_EQ(s.cs.limit, 0xffffffffu);
    CHECK_EQ(s.cs.access_rights, 0xc09b);
    CHECK_EQ(s.ss.access_rights, 0xc093);
    CHECK_EQ(s.tr.access_rights, 0x8b);
    CHECK_EQ(get64(ram + s.gdt_base + 8), 0x00cf9b000000ffffull);
    /* The information: memory, command line, modules, map, loader name. */
    const uint8_t *mbi = ram + l.info_gpa;
    CHECK_EQ(get32(mbi), (1u << 0) | (1u << 2) | (1u << 3) | (1u << 6) | (1u << 9));
    CHECK_EQ(get32(mbi + 4), 0x9f000 >> 10);
    CHECK_EQ(get32(mbi + 8), (MEM - 0x100000) >> 10);
    CHECK_STR((const char *)ram + get32(mbi + 16), "arg1 arg2");
    CHECK_STR((const char *)ram + get32(mbi + 64), "Vertigo");
    CHECK_EQ(get32(mbi + 20), 2);
    const uint8_t *mods = ram + get32(mbi + 24);
    uint32_t m0 = get32(mods), m1 = get32(mods + 16);
    CHECK_EQ(m0, 0x403000);                         /* page-aligned after the kernel */
    CHECK_EQ(get32(mods + 4), m0 + 10);
    CHECK(memcmp(ram + m0, "NR_CPUS=1\n", 10) == 0);
    CHECK_STR((const char *)ram + get32(mods + 8), "env file");
    CHECK_EQ(m1, 0x404000);
    CHECK_EQ(get32(mods + 20), m1 + 5000);
    CHECK_EQ(l.modules_end, m1 + 5000);
    CHECK_EQ(ram[m1 + 4999], 'b');
    CHECK_EQ(get32(mbi + 44), 4 * 24);
    const uint8_t *mm = ram + get32(mbi + 48);
    CHECK_EQ(get32(mm), 20);
    CHECK_EQ(get64(mm + 4), 0);
    CHECK_EQ(get64(mm + 12), 0x9f000);
    CHECK_EQ(get32(mm + 20), 1);
    CHECK_EQ(get64(mm + 3 * 24 + 4), 0x100000);
    CHECK_EQ(get32(mm + 2 * 24 + 20), 2);
    CHECK(l.info_gpa >= MB_INFO_GPA && l.info_gpa + l.info_bytes <= MB_INFO_END);
    free(k);
}

/* Walks the multiboot2 tags at `info`: *found gets the tag of `type`. */
static const uint8_t *v2_tag(const uint8_t *info, uint32_t type, unsigned int nth)
{
    uint32_t total = get32(info);
    for (uint32_t at = 8; at + 8 <= total; at = (at + get32(info + at + 4) + 7) & ~7u) {
        if (get32(info + at) == type && nth-- == 0)
            return info + at;
        if (get32(info + at) == MB2_TAG_END)
            break;
    }
    return NULL;
}

static void mb2_header(uint8_t *at, const uint8_t *tags, uint32_t tags_len)
{
    uint32_t len = 16 + tags_len;
    put32(at, MB2_HEADER_MAGIC);
    put32(at + 4, 0);
    put32(at + 8, len);
    put32(at + 12, 0u - MB2_HEADER_MAGIC - len);
    memcpy(at + 16, tags, tags_len);
}

/* Tags: an information request for what Vertigo gives, the end tag. */
static const uint8_t v2_tags[] = {
    1, 0, 0, 0, 20, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 8, 0, 0, 0,
};

TEST(multiboot2_kernel_gets_tags)
{
    struct kernel32 *k = kernel32();
    struct mb_layout l;
    struct linux_boot_state s;
    struct mb_error err;
    memset(k->text, 0, 0x40);
    mb2_header(k->text, v2_tags, sizeof(v2_tags));
    modules[0] = (struct mb_module){ "abc", 3, "mod0 x" };

    CHECK_EQ(load_with(k, sizeof(*k), MEM, "hello", 1, &l, &s, &err), MB_OK);
    CHECK_EQ(l.version, 2);
    CHECK_EQ(s.rax, MB2_BOOT_MAGIC);
    const uint8_t *info = ram + s.rbx;
    CHECK_EQ(s.rbx % 8, 0);
    CHECK_EQ(get32(info), l.info_bytes);
    const uint8_t *t = v2_tag(info, MB2_TAG_CMDLINE, 0);
    CHECK(t && strcmp((const char *)t + 8, "hello") == 0);
    t = v2_tag(info, MB2_TAG_LOADER_NAME, 0);
    CHECK(t && strcmp((const char *)t + 8, "Vertigo") == 0);
    t = v2_tag(info, MB2_TAG_MODULE, 0);
    CHECK(t && get32(t + 8) == 0x403000 && get32(t + 12) == 0x403003 &&
          strcmp((const char *)t + 16, "mod0 x") == 0);
    CHECK(memcmp(ram + 0x403000, "abc", 3) == 0);
    t = v2_tag(info, MB2_TAG_BASIC_MEM, 0);
    CHECK(t && get32(t + 8) == 0x9f000 >> 10 && get32(t + 12) == (MEM - 0x100000) >> 10);
    t = v2_tag(info, MB2_TAG_MMAP, 0);
    CHECK(t && get32(t + 4) == 16 + 4 * 24 && get32(t + 8) == 24);
    CHECK(t && get64(t + 16 + 3 * 24) == 0x100000 && get32(t + 16 + 3 * 24 + 16) == 1);
    t = v2_tag(info, MB2_TAG_ACPI_NEW, 0);
    CHECK(t && memcmp(t + 8, "RSD PTR ", 8) == 0);
    CHECK(v2_tag(info, MB2_TAG_END, 0) != NULL);
    free(k);
}

TEST(elf64_kernel_loads)
{
    struct {
        Elf64_Ehdr eh;
        Elf64_Phdr ph;
        uint8_t text[0x100];
    } k;
    struct mb_error err;
    struct mb_layout l;
    struct linux_boot_state s;
    memset(&k, 0, sizeof(k));
    memcpy(k.eh.e_ident, ELFMAG, SELFMAG);
    k.eh.e_ident[EI_CLASS] = ELFCLASS64;
    k.eh.e_ident[EI_DATA] = ELFDATA2LSB;
    k.eh.e_ident[EI_VERSION] = EV_CURRENT;
    k.eh.e_version = EV_CURRENT;
    k.eh.e_type = ET_EXEC;
    k.eh.e_machine = EM_X86_64;
    /* Linked high, loaded low: the entry follows its segment (GRUB's rule). */
    k.eh.e_entry = 0xffffffff80000010ull;
    k.eh.e_phoff = offsetof(__typeof__(k), ph);
    k.eh.e_phentsize = sizeof(Elf64_Phdr);
    k.eh.e_phnum = 1;
    k.ph = (Elf64_Phdr){ PT_LOAD, PF_R | PF_X, offsetof(__typeof__(k), text),
                         0xffffffff80000000ull, 0x200000, 0x100, 0x100, 0x1000 };
    mb1_header(k.text, 3);      /* page-aligned modules and memory information */
    CHECK_EQ(load_with(&k, sizeof(k), MEM, NULL, 0, &l, &s, &err), MB_OK);
    CHECK_EQ(s.rip, 0x200010);
    CHECK(memcmp(ram + 0x200000, k.text, 0x100) == 0);
}

TEST(address_fields_load_a_flat_image)
{
    /* A flat binary: the header at offset 0x20 says header_addr 0x100020,
     * so the file loads from offset 0 at 0x100000; bss up to 0x103000. */
    uint8_t img[0x300];
    struct mb_error err;
    struct mb_layout l;
    struct linux_boot_state s;
    memset(img, 0x90, sizeof(img));
    mb1_header(img + 0x20, 1u << 16);
    put32(img + 0x2c, 0x100020);        /* header_addr */
    put32(img + 0x30, 0x100000);        /* load_addr */
    put32(img + 0x34, 0);               /* load_end_addr: the whole file */
    put32(img + 0x38, 0x103000);        /* bss_end_addr */
    put32(img + 0x3c, 0x100200);        /* entry_addr */
    CHECK_EQ(load_with(img, sizeof(img), MEM, "", 0, &l, &s, &err), MB_OK);
    CHECK_EQ(s.rip, 0x100200);
    CHECK(memcmp(ram + 0x100000, img, sizeof(img)) == 0);
    CHECK_EQ(ram[0x100000 + sizeof(img)], 0);
    CHECK_EQ(ram[0x102fff], 0);
    CHECK_EQ(ram[0x103000], 0xa5);
    CHECK_EQ(l.kernel_end, 0x103000);

    put32(img + 0x30, 0x100030);        /* load_addr above header_addr */
    CHECK_EQ(load(img, sizeof(img), &err), MB_ERR_ADDRESS);
    put32(img + 0x30, 0x0ff000);        /* the text would start before the file */
    CHECK_EQ(load(img, sizeof(img), &err), MB_ERR_ADDRESS);
    put32(img + 0x30, 0x100000);
    put32(img + 0x34, 0x100400);        /* load_end past the file */
    CHECK_EQ(load(img, sizeof(img), &err), MB_ERR_SEGMENT_FILE);
    put32(img + 0x34, 0x100100);
    put32(img + 0x38, 0x100080);        /* bss_end below load_end */
    CHECK_EQ(load(img, sizeof(img), &err), MB_ERR_ADDRESS);
    put32(img + 0x38, 0);
    put32(img + 0x3c, 0x100100);        /* entry past what is loaded */
    CHECK_EQ(load(img, sizeof(img), &err), MB_ERR_ENTRY);
    put32(img + 0x3c, 0x100010);
    put32(img + 0x2c, 0x20020);         /* below 1 MiB */
    put32(img + 0x30, 0x20000);
    put32(img + 0x34, 0x20100);
    put32(img + 0x3c, 0x20010);
    CHECK_EQ(load(img, sizeof(img), &err), MB_ERR_SEGMENT_LOW);
    put32(img + 0x2c, 0xffff0020);      /* past the RAM */
    put32(img + 0x30, 0xffff0000);
    put32(img + 0x34, 0xffff0100);
    put32(img + 0x3c, 0xffff0010);
    CHECK_EQ(load(img, sizeof(img), &err), MB_ERR_SEGMENT_RAM);
    CHECK_EQ(err.addr, 0xffff0000);
}

TEST(malformed_kernels_are_refused_each_with_its_error)
{
    struct kernel32 *k = kernel32();
    struct mb_error err;
    char text[200];

    /* No header at all; a header past the first 8 KiB. */
    uint8_t *plain = calloc(1, 0x3000);
    memcpy(plain, k, sizeof(*k));
    memset(plain + offsetof(struct kernel32, text), 0, 12);
    CHECK_EQ(load(plain, 0x3000, &err), MB_ERR_NO_HEADER);
    mb1_header(plain + 0x2000, 0);
    CHECK_EQ(load(plain, 0x3000, &err), MB_ERR_NO_HEADER);
    free(plain);

    /* A header on a file that is not ELF (no address fields). */
    uint8_t raw[64] = { 0 };
    mb1_header(raw + 8, 0);
    CHECK_EQ(load(raw, sizeof(raw), &err), MB_ERR_NOT_ELF);
    mb_error_text(&err, text, sizeof(text));
    CHECK_STR(text, "the image is not an ELF file and its header has no load addresses");

#define SPOILED(field_change, want)                                    \
    do {                                                               \
        struct kernel32 *b = kernel32();                               \
        field_change;                                                  \
        CHECK_EQ(load(b, sizeof(*b), &err), want);                     \
        free(b);                                                       \
    } while (0)

    SPOILED(put32(b->text + 8, 1), MB_ERR_CHECKSUM);
    SPOILED(mb1_header(b->text, 1u << 2), MB_ERR_VIDEO);
    SPOILED(mb1_header(b->text, 1u << 5), MB_ERR_REQUIREMENT);
    SPOILED(b->eh.e_ident[EI_CLASS] = 3, MB_ERR_ELF_CLASS);
    SPOILED(b->eh.e_machine = EM_X86_64, MB_ERR_ELF_MACHINE);
    SPOILED(b->eh.e_type = ET_DYN, MB_ERR_ELF_TYPE);
    SPOILED(b->eh.e_phentsize = 20, MB_ERR_ELF_PHDRS);
    SPOILED(b->eh.e_phoff = 0x7fffffff, MB_ERR_ELF_PHDRS);
    SPOILED((b->ph[0].p_type = PT_NOTE, b->ph[1].p_type = PT_NOTE), MB_ERR_NO_SEGMENTS);
    SPOILED(b->ph[0].p_filesz = 0x10000, MB_ERR_SEGMENT_FILE);
    SPOILED(b->ph[1].p_filesz = 0x3000, MB_ERR_SEGMENT_FILE);
    SPOILED((b->ph[1].p_filesz = 4, b->ph[1].p_memsz = 2), MB_ERR_FILESZ);
    SPOILED(b->ph[1].p_paddr = 0x8000, MB_ERR_SEGMENT_LOW);
    SPOILED(b->ph[1].p_paddr = MEM - 0x1000, MB_ERR_SEGMENT_RAM);
    SPOILED(b->ph[1].p_paddr = 0xfffff000, MB_ERR_SEGMENT_RAM);
    SPOILED(b->ph[1].p_paddr = TEXT_GPA + 0x80, MB_ERR_OVERLAP);
    SPOILED(b->eh.e_entry = DATA_GPA + 0x3000, MB_ERR_ENTRY);

    /* The segment outside the RAM is named with its program header. */
    struct kernel32 *b = kernel32();
    b->ph[1].p_paddr = MEM - 0x1000;
    load(b, sizeof(*b), &err);
    mb_error_text(&err, text, sizeof(text));
    CHECK_STR(text, "a segment lies outside the domain's RAM (program header 1, 8192 bytes at "
                    "0xfff000)");
    free(b);
    free(k);
}

TEST(multiboot2_headers_are_checked)
{
    struct kernel32 *k = kernel32();
    struct mb_error err;
    uint8_t tags[64];

#define V2(tag_bytes, want)                                            \
    do {                                                               \
        memset(k->text, 0, 0x40);                                      \
        memcpy(tags, tag_bytes, sizeof(tag_bytes));                    \
        mb2_header(k->text, tags, sizeof(tag_bytes));                  \
        CHECK_EQ(load(k, sizeof(*k), &err), want);                     \
    } while (0)

    static const uint8_t end_only[] = { 0, 0, 0, 0, 8, 0, 0, 0 };
    static const uint8_t fb_required[] = { 5, 0, 0, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                           0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0 };
    static const uint8_t fb_optional[] = { 5, 0, 1, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                           0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0 };
    static const uint8_t ask_apm[] = { 1, 0, 0, 0, 12, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0,
                                       0, 0, 0, 0, 8, 0, 0, 0 };
    static const uint8_t ask_apm_optional[] = { 1, 0, 1, 0, 12, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0,
                                                0, 0, 0, 0, 0, 8, 0, 0, 0 };
    static const uint8_t unknown[] = { 42, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0 };
    static const uint8_t unknown_optional[] = { 42, 0, 1, 0, 8, 0, 0, 0,
                                                0, 0, 0, 0, 8, 0, 0, 0 };
    static const uint8_t no_end[] = { 42, 0, 1, 0, 8, 0, 0, 0 };
    static const uint8_t tiny_tag[] = { 42, 0, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0 };
    /* An entry address tag: the ELF's own entry is replaced. */
    static const uint8_t entry_out[] = { 3, 0, 0, 0, 12, 0, 0, 0, 0, 0, 0x60, 0, 0, 0, 0, 0,
                                         0, 0, 0, 0, 8, 0, 0, 0 };
    /* Address without entry. */
    static const uint8_t address_only[] = { 2, 0, 0, 0, 24, 0, 0, 0, 0, 0x10, 0x40, 0, 0, 0,
                                            0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0,
                                            0, 0 };
    V2(end_only, MB_OK);
    V2(fb_required, MB_ERR_VIDEO);
    V2(fb_optional, MB_OK);
    V2(ask_apm, MB_ERR_INFO_REQUEST);
    V2(ask_apm_optional, MB_OK);
    V2(unknown, MB_ERR_UNKNOWN_TAG);
    V2(unknown_optional, MB_OK);
    V2(no_end, MB_ERR_HEADER_LENGTH);
    V2(tiny_tag, MB_ERR_HEADER_LENGTH);
    V2(entry_out, MB_ERR_ENTRY);
    V2(address_only, MB_ERR_ADDRESS);
    /* The architecture and the checksum. */
    memset(k->text, 0, 0x40);
    mb2_header(k->text, end_only, sizeof(end_only));
    put32(k->text + 4, 4);
    CHECK_EQ(load(k, sizeof(*k), &err), MB_ERR_CHECKSUM);
    put32(k->text + 12, 0u - MB2_HEADER_MAGIC - 4 - 24);
    CHECK_EQ(load(k, sizeof(*k), &err), MB_ERR_ARCH);
    free(k);
}

TEST(modules_and_command_lines_are_bounded)
{
    struct kernel32 *k = kernel32();
    struct mb_layout l;
    struct linux_boot_state s;
    struct mb_error err;
    char text[200];
    static uint8_t huge_dummy;

    /* A module larger than the RAM left after the kernel. */
    modules[0] = (struct mb_module){ "x", 1, "small" };
    modules[1] = (struct mb_module){ &huge_dummy, MEM - 0x404000 + 1, "huge" };
    CHECK_EQ(load_with(k, sizeof(*k), MEM, "", 2, &l, &s, &err), MB_ERR_MODULE_TOO_BIG);
    CHECK_EQ(err.index, 1);
    mb_error_text(&err, text, sizeof(text));
    CHECK_STR(text, "a module does not fit in the domain's RAM after the kernel (module 1, "
                    "12566529 bytes at 0x404000)");
    /* Exactly the room left fits (its bytes are not copied here: size 0
     * would skip, so give it a real buffer). */
    uint8_t *fits = calloc(1, MEM - 0x404000);
    modules[1] = (struct mb_module){ fits, MEM - 0x404000, "fits" };
    CHECK_EQ(load_with(k, sizeof(*k), MEM, "", 2, &l, &s, &err), MB_OK);
    free(fits);
    CHECK_EQ(load_with(k, sizeof(*k), MEM, "", MB_MAX_MODULES + 1, &l, &s, &err),
             MB_ERR_TOO_MANY_MODULES);
    char *longline = malloc(MB_CMDLINE_MAX + 1);
    memset(longline, 'a', MB_CMDLINE_MAX);
    longline[MB_CMDLINE_MAX] = '\0';
    CHECK_EQ(load_with(k, sizeof(*k), MEM, longline, 0, &l, &s, &err), MB_ERR_CMDLINE);
    longline[MB_CMDLINE_MAX - 1] = '\0';
    CHECK_EQ(load_with(k, sizeof(*k), MEM, longline, 0, &l, &s, &err), MB_OK);
    free(longline);
    CHECK_EQ(load_with(k, sizeof(*k), 3ull << 20, "", 0, &l, &s, &err), MB_ERR_BAD_MEM);
    CHECK_EQ(load_with(k, sizeof(*k), 4ull << 30, "", 0, &l, &s, &err), MB_ERR_BAD_MEM);
    free(k);
}

TEST(error_texts_exist)
{
    for (int st = 0; st < MB_STATUS_COUNT; st++)
        CHECK(mb_strerror((enum mb_status)st) && mb_strerror((enum mb_status)st)[0]);
    CHECK_STR(mb_strerror(MB_STATUS_COUNT), "unknown multiboot loader error");
}
