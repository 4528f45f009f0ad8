/* ELF files for the symbolizer (see sym_internal.h): Vertigo's own ELF, a
 * host file the user named (with elfutils' usual search for its separate
 * debug file), and the guest's binaries under --guest-root: opened by
 * guest_root_open, checked with libelf before libdwfl reads them, and
 * never given a separate debug file (a build id or debuglink in a guest
 * file must not lead to host files, nor to a debuginfod server). A guest
 * file that cannot serve is named in one warning with the reason. */
#include "host-tools/sym_internal.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host-tools/guest_root.h"

#define REASON_MAX 160u

static int no_separate_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
                                 Dwarf_Addr base, const char *file_name, const char *debuglink,
                                 GElf_Word crc, char **debuginfo_file_name)
{
    (void)mod, (void)userdata, (void)modname, (void)base, (void)file_name, (void)debuglink;
    (void)crc, (void)debuginfo_file_name;
    return -1;
}

static int no_other_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                        char **file_name, Elf **elfp)
{
    (void)mod, (void)userdata, (void)modname, (void)base, (void)file_name, (void)elfp;
    return -1;
}

static const Dwfl_Callbacks host_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

static const Dwfl_Callbacks guest_callbacks = {
    .find_elf = no_other_elf,
    .find_debuginfo = no_separate_debuginfo,
    .section_address = dwfl_offline_section_address,
};

/* ---- Warnings ----------------------------------------------------------- */

/* "PATH: reason", once per path. */
static void warn(struct symbolizer *s, const char *path, const char *reason)
{
    if (keymap_get(&s->warned, (uintptr_t)path, 0, 0, KEYMAP_NONE) != KEYMAP_NONE)
        return;
    keymap_set(&s->warned, (uintptr_t)path, 0, 0, 1);
    char line[SYM_NAME_MAX + REASON_MAX + 4];
    snprintf(line, sizeof(line), "%s: %s", path, reason);
    s->warnings = sym_grow(s->warnings, &s->warning_cap, s->warning_count + 1, sizeof(*s->warnings));
    s->warnings[s->warning_count++] = sym_intern(s, line);
}

/* ---- Checking a file before libdwfl reads it ---------------------------- */

/* True if [offset, offset + size) lies within a file of file_size bytes. */
static bool within(uint64_t offset, uint64_t size, uint64_t file_size)
{
    return offset <= file_size && size <= file_size - offset;
}

static bool sections_ok(Elf *elf, uint64_t file_size, char *why, size_t len)
{
    size_t count;
    if (elf_getshdrnum(elf, &count) != 0) {
        snprintf(why, len, "bad section header table (%s)", elf_errmsg(-1));
        return false;
    }
    for (size_t i = 1; i < count; i++) {
        GElf_Shdr sh;
        Elf_Scn *scn = elf_getscn(elf, i);
        if (!scn || !gelf_getshdr(scn, &sh)) {
            snprintf(why, len, "bad section header %zu (%s)", i, elf_errmsg(-1));
            return false;
        }
        if (sh.sh_type != SHT_NOBITS && !within(sh.sh_offset, sh.sh_size, file_size)) {
            snprintf(why, len, "section %zu reaches past the end of the file (truncated?)", i);
            return false;
        }
    }
    return true;
}

static bool segments_ok(Elf *elf, uint64_t file_size, char *why, size_t len)
{
    size_t count;
    if (elf_getphdrnum(elf, &count) != 0) {
        snprintf(why, len, "bad program header table (%s)", elf_errmsg(-1));
        return false;
    }
    for (size_t i = 0; i < count; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, (int)i, &ph)) {
            snprintf(why, len, "bad program header %zu (%s)", i, elf_errmsg(-1));
            return false;
        }
        if (!within(ph.p_offset, ph.p_filesz, file_size)) {
            snprintf(why, len, "segment %zu reaches past the end of the file (truncated?)", i);
            return false;
        }
    }
    return true;
}

/* Whether fd holds a well-formed ELF file; if not, why. A file without
 * symbols (stripped) is well-formed: its samples show as [unknown]. */
static bool elf_well_formed(int fd, char *why, size_t len)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(why, len, "unreadable");
        return false;
    }
    elf_version(EV_CURRENT);
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    GElf_Ehdr eh;
    bool ok = elf && elf_kind(elf) == ELF_K_ELF;
    if (!ok)
        snprintf(why, len, "not an ELF file");
    else if (!(ok = gelf_getehdr(elf, &eh) != NULL))
        snprintf(why, len, "bad ELF header (%s)", elf_errmsg(-1));
    else
        ok = sections_ok(elf, (uint64_t)st.st_size, why, len) &&
             segments_ok(elf, (uint64_t)st.st_size, why, len);
    elf_end(elf);
    return ok;
}

/* ---- Opening ------------------------------------------------------------ */

/* The cache entry of (path, base): its index, or a new one (*fresh). */
static int elf_entry(struct symbolizer *s, int root_fd, const char *path, uint64_t base,
                     uint32_t image, bool *fresh)
{
    uint32_t i = keymap_get(&s->elf_map, (uintptr_t)path, base, (uint64_t)(root_fd + 1),
                            (uint32_t)s->elf_count);
    *fresh = i == s->elf_count;
    if (*fresh) {
        s->elves = sym_grow(s->elves, &s->elf_cap, s->elf_count + 1, sizeof(*s->elves));
        s->elves[s->elf_count++] = (struct elf_image){ .path = path, .base = base, .image = image };
    }
    return (int)i;
}

/* Hands fd (a well-formed ELF file) to libdwfl as entry idx; false with
 * why set if it refuses. libdwfl owns fd on success. */
static bool report_elf(struct symbolizer *s, int idx, int fd, const Dwfl_Callbacks *cb,
                       char *why, size_t len)
{
    struct elf_image *e = &s->elves[idx];
    Dwfl *dwfl = dwfl_begin(cb);
    Dwfl_Module *mod = dwfl ? dwfl_report_elf(dwfl, e->path, e->path, fd, e->base, false) : NULL;
    if (!mod) {
        snprintf(why, len, "not readable as ELF (%s)", dwfl_errmsg(dwfl_errno()));
        if (dwfl)
            dwfl_end(dwfl);
        close(fd);
        return false;
    }
    dwfl_report_end(dwfl, NULL, NULL);
    e->dwfl = dwfl;
    e->mod = mod;
    struct sym_image *img = &s->images[e->image];
    if (!img->elf)
        img->elf = (uint32_t)idx + 1;
    Dwarf_Addr low, high;
    if (img->limit == 0 && dwfl_module_info(mod, NULL, &low, &high, NULL, NULL, NULL, NULL)) {
        img->start = low;
        img->limit = high;
    }
    return true;
}

int sym_elf_open_dwarf(struct symbolizer *s, const char *path)
{
    bool fresh;
    int idx = elf_entry(s, -1, sym_intern(s, path), 0, UINT32_MAX, &fresh);
    if (!fresh)
        return s->elves[idx].mod ? idx : -1;
    char why[REASON_MAX];
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !elf_well_formed(fd, why, sizeof(why))) {
        close(fd);
        return -1;
    }
    Dwfl *dwfl = dwfl_begin(&host_callbacks);
    Dwfl_Module *mod = dwfl ? dwfl_report_elf(dwfl, path, path, fd, 0, false) : NULL;
    Dwarf_Addr bias;
    if (!mod)
        close(fd);               /* (else libdwfl owns it) */
    if (!mod || !dwfl_module_getdwarf(mod, &bias)) {
        if (dwfl)
            dwfl_end(dwfl);
        return -1;
    }
    dwfl_report_end(dwfl, NULL, NULL);
    s->elves[idx].dwfl = dwfl;
    s->elves[idx].mod = mod;
    return idx;
}

int sym_elf_open_vertigo(struct symbolizer *s, const char *path, uint32_t image)
{
    bool fresh;
    int idx = elf_entry(s, -1, sym_intern(s, path), 0, image, &fresh);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    char why[REASON_MAX];
    struct stat st;
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !elf_well_formed(fd, why, sizeof(why))) {
        close(fd);
        return -1;
    }
    return report_elf(s, idx, fd, &host_callbacks, why, sizeof(why)) ? idx : -1;
}

int sym_elf_open_guest(struct symbolizer *s, int root_fd, const char *path, uint64_t base,
                       uint32_t image)
{
    bool fresh;
    int idx = elf_entry(s, root_fd, path, base, image, &fresh);
    if (!fresh)
        return s->elves[idx].mod ? idx : -1;
    enum guest_root_error error;
    int fd = guest_root_open(root_fd, path, &error);
    if (fd < 0) {
        if (error != GUEST_ROOT_NOT_FOUND)
            warn(s, path, guest_root_error_text(error));
        return -1;
    }
    char why[REASON_MAX];
    if (!elf_well_formed(fd, why, sizeof(why))) {
        close(fd);
        warn(s, path, why);
        return -1;
    }
    if (!report_elf(s, idx, fd, &guest_callbacks, why, sizeof(why))) {
        warn(s, path, why);
        return -1;
    }
    return idx;
}

/* ---- Lookups ------------------------------------------------------------ */

/* The functions inlined at addr, kept in the symbolizer's table. */
static void add_inlines(struct symbolizer *s, struct elf_image *e, uint64_t addr, struct sym_frame *f)
{
    struct sym_inline chain[SYM_INLINE_MAX];
    size_t n = sym_dwarf_inlines(s, e, addr, f->line, chain, SYM_INLINE_MAX, &f->call_line);
    if (!n)
        return;
    s->inlines = sym_grow(s->inlines, &s->inline_cap, s->inline_count + n, sizeof(*s->inlines));
    memcpy(&s->inlines[s->inline_count], chain, n * sizeof(chain[0]));
    f->inline_first = (uint32_t)s->inline_count;
    f->inline_count = (uint32_t)n;
    s->inline_count += n;
}

const struct sym_inline *sym_frame_inlines(const struct symbolizer *s, const struct sym_frame *f)
{
    return f->inline_count ? &s->inlines[f->inline_first] : NULL;
}

/* name, cut to SYM_NAME_MAX - 1 bytes and cleaned of control bytes. */
static const char *clean_copy(const char *name, char out[SYM_NAME_MAX])
{
    snprintf(out, SYM_NAME_MAX, "%.*s", (int)SYM_NAME_MAX - 1, name);
    sym_clean(out);
    return out;
}

/* ---- Symbols by interval ---------------------------------------------------
 * An address's symbol is libdwfl's answer (sym_table.c gives it from a
 * table read once), kept for the interval of addresses that must get the
 * same one, so a frame's lookup is one binary search: the answer's
 * choice depends only on which symbols start at or below the address,
 * which of them still hold it (start + size), an absolute symbol's exact
 * address, and the section the address is in (a sizeless symbol names
 * addresses of its section only; libdwfl 0.188 takes the byte after a
 * section's end as in it). Those are the boundaries. */

/* The start and end of every section of elf, at bias. */
static void push_sections(Elf *elf, Dwarf_Addr bias, uint64_t **b, size_t *n, size_t *cap)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr shdr;
        if (!gelf_getshdr(scn, &shdr))
            continue;
        sym_bounds_push(b, n, cap, shdr.sh_addr + bias);
        sym_bounds_push(b, n, cap, shdr.sh_addr + shdr.sh_size + bias);
        /* libdwfl takes the byte after a section's end as in it */
        sym_bounds_push(b, n, cap, shdr.sh_addr + shdr.sh_size + bias + 1);
    }
}

static void build_symbol_intervals(struct elf_image *e)
{
    Dwfl_Module *mod = e->mod;
    uint64_t *b = NULL;
    size_t n = 0, cap = 0;
    Elf *seen[2] = { NULL, NULL };       /* the main and an auxiliary symbol table's files */
    Dwarf_Addr bias;
    Elf *main_elf = dwfl_module_getelf(mod, &bias);
    if (main_elf) {
        push_sections(main_elf, bias, &b, &n, &cap);
        seen[0] = main_elf;
    }
    int count = dwfl_module_getsymtab(mod);
    for (int i = 0; i < count; i++) {
        GElf_Sym sym;
        GElf_Addr value;
        GElf_Word shndx;
        Elf *elf = NULL;
        if (!dwfl_module_getsym_info(mod, i, &sym, &value, &shndx, &elf, &bias))
            continue;
        sym_bounds_push(&b, &n, &cap, value);
        sym_bounds_push(&b, &n, &cap, value + 1);
        sym_bounds_push(&b, &n, &cap, value + sym.st_size);
        if (elf && elf != seen[0] && elf != seen[1] && !seen[1]) {
            push_sections(elf, bias, &b, &n, &cap);
            seen[seen[0] ? 1 : 0] = elf;
        }
    }
    sym_intervals_build(&e->symbols, b, n);
}

/* dwfl_module_addrinfo's name for addr (NULL: none) and addr's offset
 * from that symbol's start, looked up once per interval. */
static const char *symbol_of(struct elf_image *e, uint64_t addr, GElf_Off *off)
{
    if (!e->symbols.built)
        build_symbol_intervals(e);
    uint32_t *slot = sym_intervals_slot(&e->symbols, addr);
    if (!*slot) {
        uint64_t start, size;
        const char *name = sym_table_lookup(&e->table, e->mod, addr, &start, &size);
        e->symbol_answers = sym_grow(e->symbol_answers, &e->symbol_answer_cap,
                                     e->symbol_answer_count + 1, sizeof(*e->symbol_answers));
        e->symbol_answers[e->symbol_answer_count++] = (struct sym_symbol_answer){ name, start };
        *slot = (uint32_t)e->symbol_answer_count;
    }
    const struct sym_symbol_answer *a = &e->symbol_answers[*slot - 1];
    *off = a->name ? addr - a->start : 0;
    return a->name;
}

void sym_elf_lookup(struct symbolizer *s, int idx, uint64_t addr, uint64_t image_off,
                    struct sym_frame *f)
{
    struct elf_image *e = &s->elves[idx];
    GElf_Off off = 0;
    const char *name = symbol_of(e, addr, &off);
    f->image = e->image;
    f->elf = (uint32_t)idx + 1;
    if (!name) {
        f->function = sym_unknown_function(s, e->image, true, addr, image_off);
        return;
    }
    char file[SYM_PATH_MAX], clean_name[SYM_NAME_MAX], clean_file[SYM_NAME_MAX];
    uint32_t line = 0;
    if (!sym_dwarf_line(e, addr, file, &f->line))
        f->line = 0;
    bool has_file = sym_dwarf_line(e, addr - off, file, &line);
    f->function = sym_function_get(s, e->image, clean_copy(name, clean_name),
                                   has_file ? clean_copy(file, clean_file) : NULL,
                                   has_file ? line : 0, true);
    f->offset = off;
    add_inlines(s, e, addr, f);
}

bool sym_elf_build_id(const struct symbolizer *s, int idx, uint8_t out[LOG_BUILD_ID_SIZE])
{
    const unsigned char *bits;
    GElf_Addr vaddr;
    int len = dwfl_module_build_id(s->elves[idx].mod, &bits, &vaddr);
    if (len != (int)LOG_BUILD_ID_SIZE)
        return false;
    memcpy(out, bits, LOG_BUILD_ID_SIZE);
    return true;
}

bool sym_image_build_id(const struct symbolizer *s, uint32_t image, char out[41])
{
    if (s->kernel_build_id && !strcmp(s->images[image].name, SYM_KERNEL_IMAGE)) {
        snprintf(out, 2 * LOG_BUILD_ID_SIZE + 1, "%s", s->kernel_build_id);
        return true;
    }
    uint32_t elf = s->images[image].elf;
    const unsigned char *bits;
    GElf_Addr vaddr;
    int len = elf ? dwfl_module_build_id(s->elves[elf - 1].mod, &bits, &vaddr) : 0;
    if (len <= 0 || len > (int)LOG_BUILD_ID_SIZE)
        return false;
    for (int k = 0; k < len; k++)
        snprintf(out + 2 * k, 3, "%02x", bits[k]);
    return true;
}

void sym_elf_free(struct symbolizer *s)
{
    for (size_t i = 0; i < s->elf_count; i++) {
        if (s->elves[i].dwfl)
            dwfl_end(s->elves[i].dwfl);
        free(s->elves[i].cus);
        sym_intervals_free(&s->elves[i].symbols);
        sym_table_free(&s->elves[i].table);
        free(s->elves[i].symbol_answers);
        sym_dwarf_free(&s->elves[i]);
    }
    free(s->inlines);
    free(s->elves);
    keymap_free(&s->elf_map);
    free(s->warnings);
    keymap_free(&s->warned);
}

bool sym_elf_guest_file_ok(int fd, char *why, size_t len)
{
    return elf_well_formed(fd, why, len);
}

void *sym_elf_guest_dwfl(void)
{
    return dwfl_begin(&guest_callbacks);
}
