/* Unit tests: the unikernel loader (vmm/loader/unikernel_boot.c) on a well-formed
 * module and on hostile headers, each refused with its own error. */
#include "vmm/loader/unikernel_boot.h"

#include <elf.h>
#include <stdlib.h>

#include "tests/unit/unit.h"
#include "vertigo/unikernel.h"

#define MEM (8ull << 20)
#define TEXT_GPA 0x100000ull
#define DATA_GPA 0x200000ull

static uint8_t *ram;

static void *ram_at(void *ctx, uint64_t gpa, uint64_t len)
{
    (void)ctx;
    return gpa <= MEM && len <= MEM - gpa ? ram + gpa : NULL;
}

/* A module: ELF header, two program headers, text (8 bytes), data (4 bytes
 * of file, 0x2000 of memory). */
struct module {
    Elf64_Ehdr eh;
    Elf64_Phdr ph[2];
    uint8_t text[8];
    uint8_t data[4];
};

static struct module good_module(void)
{
    struct module m;
    memset(&m, 0, sizeof(m));
    memcpy(m.eh.e_ident, ELFMAG, SELFMAG);
    m.eh.e_ident[EI_CLASS] = ELFCLASS64;
    m.eh.e_ident[EI_DATA] = ELFDATA2LSB;
    m.eh.e_ident[EI_VERSION] = EV_CURRENT;
    m.eh.e_version = EV_CURRENT;
    m.eh.e_type = ET_EXEC;
    m.eh.e_machine = EM_X86_64;
    m.eh.e_entry = TEXT_GPA + 4;
    m.eh.e_phoff = offsetof(struct module, ph);
    m.eh.e_phentsize = sizeof(Elf64_Phdr);
    m.eh.e_phnum = 2;
    m.eh.e_ehsize = sizeof(Elf64_Ehdr);
    m.ph[0] = (Elf64_Phdr){ PT_LOAD, PF_R | PF_X, offsetof(struct module, text), TEXT_GPA,
                            TEXT_GPA, 8, 8, 0x1000 };
    m.ph[1] = (Elf64_Phdr){ PT_LOAD, PF_R | PF_W, offsetof(struct module, data), DATA_GPA,
                            DATA_GPA, 4, 0x2000, 0x1000 };
    memcpy(m.text, "\x90\x90\x90\x90\xf4\xf4\xf4\xf4", 8);
    memcpy(m.data, "DATA", 4);
    return m;
}

static enum uk_boot_status load(const void *image, size_t size, uint64_t mem,
                                const char *cmdline, struct uk_boot_layout *l,
                                struct linux_boot_state *s, int *bad)
{
    struct uk_boot_config cfg = { image, size, mem, 3, 123456789, cmdline };
    struct guest_mem gm = { ram_at, NULL };
    free(ram);
    ram = malloc(MEM);
    memset(ram, 0xa5, MEM);
    return uk_boot_load(&cfg, &gm, l, s, bad);
}

TEST(good_module_loads)
{
    struct module m = good_module();
    struct uk_boot_layout l;
    struct linux_boot_state s;
    int bad = 7;

    CHECK_EQ(load(&m, sizeof(m), MEM, "n=5", &l, &s, &bad), UK_BOOT_OK);
    CHECK_EQ(bad, -1);
    CHECK(memcmp(ram + TEXT_GPA, m.text, 8) == 0);
    CHECK(memcmp(ram + DATA_GPA, "DATA", 4) == 0);
    CHECK_EQ(ram[DATA_GPA + 4], 0);                 /* bss zero-filled */
    CHECK_EQ(ram[DATA_GPA + 0x1fff], 0);
    CHECK_EQ(ram[DATA_GPA + 0x2000], 0xa5);          /* nothing past memsz */
    CHECK_EQ(ram[TEXT_GPA - 1], 0xa5);
    CHECK_EQ(l.segments, 2);
    CHECK_EQ(l.free_start, DATA_GPA + 0x2000);
    CHECK_EQ(l.free_end, MEM - VERTIGO_UK_TOP_BYTES);

    const struct vertigo_uk_start *si = (const void *)(ram + l.start_info_gpa);
    CHECK_EQ(si->magic, VERTIGO_UK_MAGIC);
    CHECK_EQ(si->version, 1);
    CHECK_EQ(si->domain_id, 3);
    CHECK_EQ(si->mem_bytes, MEM);
    CHECK_EQ(si->tsc_hz, 123456789);
    CHECK_EQ(si->free_start, l.free_start);
    CHECK_EQ(si->free_end, l.free_end);
    CHECK_STR(si->cmdline, "n=5");

    CHECK_EQ(s.rip, TEXT_GPA + 4);
    CHECK_EQ(s.rdi, l.start_info_gpa);
    CHECK_EQ(s.rsp, 0);
    CHECK_EQ(s.rflags, 2);
    CHECK_EQ(s.cr3, l.pml4_gpa);
    CHECK_EQ(s.cr0 & 0x80010001u, 0x80010001u);      /* PG, WP, PE */
    CHECK_EQ(s.cr4, 0x620);                          /* PAE, OSFXSR, OSXMMEXCPT */
    CHECK_EQ(s.efer, 0xd00);                         /* LME, LMA, NXE */
    CHECK_EQ(s.cs.selector, VERTIGO_UK_BOOT_CS);
    CHECK_EQ(s.ss.selector, VERTIGO_UK_BOOT_DS);
    CHECK_EQ(s.cs.access_rights, 0xa09b);
    CHECK(l.start_info_gpa >= MEM - VERTIGO_UK_TOP_BYTES && l.pml4_gpa < MEM);

    const uint64_t *gdt = (const void *)(ram + s.gdt_base);
    CHECK_EQ(gdt[0], 0);
    CHECK_EQ(gdt[1], 0x00af9b000000ffffull);
    CHECK_EQ(gdt[2], 0x00cf93000000ffffull);
    CHECK(s.tr.base > s.gdt_base && s.tr.base < MEM);
}

/* Walks the boot page tables: every 2 MiB of RAM maps to itself, writable,
 * supervisor-only; nothing above RAM is mapped. */
TEST(page_tables_identity_map_ram)
{
    struct module m = good_module();
    struct uk_boot_layout l;
    struct linux_boot_state s;

    CHECK_EQ(load(&m, sizeof(m), MEM, NULL, &l, &s, NULL), UK_BOOT_OK);
    const uint64_t *pml4 = (const void *)(ram + s.cr3);
    CHECK_EQ(pml4[0] & 0x7, 0x3);
    CHECK_EQ(pml4[1], 0);
    const uint64_t *pdpt = (const void *)(ram + (pml4[0] & ~0xfffull));
    CHECK_EQ(pdpt[1], 0);
    const uint64_t *pd = (const void *)(ram + (pdpt[0] & ~0xfffull));
    for (uint64_t i = 0; i < MEM >> 21; i++)
        CHECK_EQ(pd[i], i << 21 | 0x83);
    CHECK_EQ(pd[MEM >> 21], 0);
    CHECK_STR(((const struct vertigo_uk_start *)(ram + l.start_info_gpa))->cmdline, "");
}

/* One spoiler per rule: each must give its own error, and nothing below
 * the module's range or in the top area is written. */
TEST(hostile_headers_are_refused)
{
    static const struct {
        const char *what;
        enum uk_boot_status want;
        int bad;
    } cases[] = {
        { "magic", UK_BOOT_ERR_NOT_ELF, -1 },
        { "class", UK_BOOT_ERR_CLASS, -1 },
        { "big-endian", UK_BOOT_ERR_CLASS, -1 },
        { "machine", UK_BOOT_ERR_MACHINE, -1 },
        { "type", UK_BOOT_ERR_TYPE, -1 },
        { "phentsize", UK_BOOT_ERR_PHDRS, -1 },
        { "phnum 0", UK_BOOT_ERR_PHDRS, -1 },
        { "phoff past end", UK_BOOT_ERR_PHDRS, -1 },
        { "phoff wraps", UK_BOOT_ERR_PHDRS, -1 },
        { "no PT_LOAD", UK_BOOT_ERR_NO_SEGMENTS, -1 },
        { "offset past end", UK_BOOT_ERR_SEGMENT_FILE, 1 },
        { "filesz wraps", UK_BOOT_ERR_SEGMENT_FILE, 1 },
        { "filesz > memsz", UK_BOOT_ERR_FILESZ, 1 },
        { "paddr", UK_BOOT_ERR_SEGMENT_PHYS, 0 },
        { "below 1 MiB", UK_BOOT_ERR_SEGMENT_RAM, 0 },
        { "into the top area", UK_BOOT_ERR_SEGMENT_RAM, 1 },
        { "memsz wraps", UK_BOOT_ERR_SEGMENT_RAM, 1 },
        { "overlap", UK_BOOT_ERR_OVERLAP, 1 },
        { "entry in data", UK_BOOT_ERR_ENTRY, -1 },
        { "entry past text", UK_BOOT_ERR_ENTRY, -1 },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct module m = good_module();
        const char *w = cases[i].what;
        if (!strcmp(w, "magic")) m.eh.e_ident[1] = 'X';
        if (!strcmp(w, "class")) m.eh.e_ident[EI_CLASS] = ELFCLASS32;
        if (!strcmp(w, "big-endian")) m.eh.e_ident[EI_DATA] = ELFDATA2MSB;
        if (!strcmp(w, "machine")) m.eh.e_machine = EM_386;
        if (!strcmp(w, "type")) m.eh.e_type = ET_DYN;
        if (!strcmp(w, "phentsize")) m.eh.e_phentsize = 32;
        if (!strcmp(w, "phnum 0")) m.eh.e_phnum = 0;
        if (!strcmp(w, "phoff past end")) m.eh.e_phoff = sizeof(m) - 8;
        if (!strcmp(w, "phoff wraps")) m.eh.e_phoff = UINT64_MAX - 8;
        if (!strcmp(w, "no PT_LOAD")) m.ph[0].p_type = m.ph[1].p_type = PT_NOTE;
        if (!strcmp(w, "offset past end")) m.ph[1].p_offset = sizeof(m) + 1;
        if (!strcmp(w, "filesz wraps")) m.ph[1].p_filesz = UINT64_MAX;
        if (!strcmp(w, "filesz > memsz")) m.ph[1].p_memsz = 2;
        if (!strcmp(w, "paddr")) m.ph[0].p_paddr = 0x300000;
        if (!strcmp(w, "below 1 MiB")) m.ph[0].p_vaddr = m.ph[0].p_paddr = 0xff000;
        if (!strcmp(w, "into the top area")) m.ph[1].p_memsz = MEM - 2 * 0x100000 - DATA_GPA + 1;
        if (!strcmp(w, "memsz wraps")) m.ph[1].p_memsz = UINT64_MAX - DATA_GPA + 2;
        if (!strcmp(w, "overlap")) m.ph[1].p_vaddr = m.ph[1].p_paddr = TEXT_GPA + 4;
        if (!strcmp(w, "entry in data")) m.eh.e_entry = DATA_GPA;
        if (!strcmp(w, "entry past text")) m.eh.e_entry = TEXT_GPA + 8;

        struct uk_boot_layout l;
        struct linux_boot_state s;
        int bad = 99;
        enum uk_boot_status st = load(&m, sizeof(m), MEM, NULL, &l, &s, &bad);
        if (!CHECK_EQ(st, cases[i].want) || !CHECK_EQ(bad, cases[i].bad))
            printf("  case '%s': %s (header %d)\n", w, uk_boot_strerror(st), bad);
        CHECK_EQ(ram[MEM - VERTIGO_UK_TOP_BYTES], 0xa5);
        CHECK_EQ(ram[TEXT_GPA], 0xa5);
    }
}

TEST(short_files_memory_and_cmdline)
{
    struct module m = good_module();
    struct uk_boot_layout l;
    struct linux_boot_state s;
    char longline[300];

    CHECK_EQ(load(&m, 0, MEM, NULL, &l, &s, NULL), UK_BOOT_ERR_TRUNCATED);
    CHECK_EQ(load(&m, 20, MEM, NULL, &l, &s, NULL), UK_BOOT_ERR_TRUNCATED);
    CHECK_EQ(load("#!/bin/sh\n", 10, MEM, NULL, &l, &s, NULL), UK_BOOT_ERR_NOT_ELF);
    CHECK_EQ(load(&m, offsetof(struct module, data) + 3, MEM, NULL, &l, &s, NULL), UK_BOOT_ERR_SEGMENT_FILE);
    CHECK_EQ(load(NULL, 100, MEM, NULL, &l, &s, NULL), UK_BOOT_ERR_TRUNCATED);
    CHECK_EQ(load(&m, sizeof(m), 2ull << 20, NULL, &l, &s, NULL), UK_BOOT_ERR_BAD_MEM);
    CHECK_EQ(load(&m, sizeof(m), MEM + 4096, NULL, &l, &s, NULL), UK_BOOT_ERR_BAD_MEM);
    memset(longline, 'x', sizeof(longline) - 1);
    longline[sizeof(longline) - 1] = '\0';
    CHECK_EQ(load(&m, sizeof(m), MEM, longline, &l, &s, NULL), UK_BOOT_ERR_CMDLINE);
    longline[255] = '\0';
    CHECK_EQ(load(&m, sizeof(m), MEM, longline, &l, &s, NULL), UK_BOOT_OK);
    CHECK(strcmp(uk_boot_strerror(UK_BOOT_ERR_OVERLAP), "two segments overlap") == 0);
    CHECK(strcmp(uk_boot_strerror(UK_BOOT_STATUS_COUNT), "unknown unikernel loader error") == 0);
}

/* A module whose RAM the domain cannot give (a refusing gpa_to_host). */
static void *refuse(void *ctx, uint64_t gpa, uint64_t len)
{
    (void)ctx; (void)gpa; (void)len;
    return NULL;
}

TEST(refused_guest_memory)
{
    struct module m = good_module();
    struct uk_boot_config cfg = { &m, sizeof(m), MEM, 1, 0, NULL };
    struct guest_mem gm = { refuse, NULL };
    struct uk_boot_layout l;
    struct linux_boot_state s;
    int bad = 5;
    CHECK_EQ(uk_boot_load(&cfg, &gm, &l, &s, &bad), UK_BOOT_ERR_GUEST_MEMORY);
    CHECK_EQ(bad, 0);
    free(ram);
    ram = NULL;
}
