/* The code bytes of the binary a frame was named in (see symbolize.h,
 * sym_code_of): the executable section of its ELF file holding an
 * address, or of the guest kernel image given with --kernel-image. A
 * bzImage's vmlinux is unpacked once, on first use, by the system's
 * decompressor (gzip, xz, zstd, lz4, bzip2), as the kernel's own
 * extract-vmlinux does. Everything read is checked: a truncated or
 * malformed image is refused with a message, never trusted. */
#include "host-tools/sym_internal.h"
#include "host-tools/insn_call.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define IMAGE_MAX (1ull << 30)       /* largest kernel image, packed or not */
#define SETUP_SECTS 0x1f1u           /* boot protocol header (Linux's boot.rst) */
#define HDRS_MAGIC 0x202u
#define PAYLOAD_OFFSET 0x248u
#define PAYLOAD_LENGTH 0x24cu
#define SIZE_TRAILER 4u              /* the unpacked size, after the payload */

static void load_patches(struct sym_kernel_image *k, Elf *elf);

/* ---- Reading and unpacking a kernel image ------------------------------- */

static uint8_t *read_all(int fd, size_t max, size_t *len)
{
    uint8_t *buf = NULL;
    size_t cap = 0;
    ssize_t n;
    *len = 0;
    do {
        if (*len == max) {
            free(buf);
            return NULL;
        }
        buf = sym_grow(buf, &cap, *len + 65536 < max ? *len + 65536 : max, 1);
        n = read(fd, buf + *len, cap - *len < max - *len ? cap - *len : max - *len);
        *len += n > 0 ? (size_t)n : 0;
    } while (n > 0 || (n < 0 && errno == EINTR));
    return buf;
}

struct unpacker {
    const uint8_t magic[6];
    size_t magic_len;
    const char *const argv[4];
};

static const struct unpacker unpackers[] = {
    { { 0x1f, 0x8b }, 2, { "gzip", "-dc", NULL } },
    { { 0xfd, '7', 'z', 'X', 'Z', 0 }, 6, { "xz", "-dc", NULL } },
    { { 0x28, 0xb5, 0x2f, 0xfd }, 4, { "zstd", "-dcq", NULL } },
    { { 0x02, 0x21, 0x4c, 0x18 }, 4, { "lz4", "-dcq", NULL } },
    { { 'B', 'Z', 'h' }, 3, { "bzip2", "-dc", NULL } },
    { { 0x5d, 0x00, 0x00 }, 3, { "xz", "--format=lzma", "-dc", NULL } },
};

/* Runs the unpacker on payload[0..len) (through a temporary file, so
 * neither side of a pipe waits on the other); its output, or NULL. */
static uint8_t *unpack(const struct unpacker *u, const uint8_t *payload, size_t len, size_t *out_len)
{
    FILE *in = tmpfile();
    if (!in || fwrite(payload, 1, len, in) != len || fflush(in) || fseek(in, 0, SEEK_SET)) {
        if (in)
            fclose(in);
        return NULL;
    }
    int pipefd[2];
    if (pipe(pipefd) != 0) {
        fclose(in);
        return NULL;
    }
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fileno(in), STDIN_FILENO);
        dup2(pipefd[1], STDOUT_FILENO);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, STDERR_FILENO);
        close(pipefd[0]);
        execvp(u->argv[0], (char *const *)u->argv);
        _exit(127);
    }
    close(pipefd[1]);
    uint8_t *out = pid > 0 ? read_all(pipefd[0], IMAGE_MAX, out_len) : NULL;
    close(pipefd[0]);
    fclose(in);
    int status = 0;
    if (pid > 0)
        waitpid(pid, &status, 0);
    if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The vmlinux packed in a bzImage (boot protocol 2.08+: payload_offset
 * and payload_length locate it after the setup sectors); NULL with why. */
static uint8_t *bzimage_vmlinux(const uint8_t *img, size_t len, size_t *out_len, const char **why)
{
    if (len < PAYLOAD_LENGTH + 4 || memcmp(img + HDRS_MAGIC, "HdrS", 4)) {
        *why = "neither an ELF file nor a bzImage";
        return NULL;
    }
    uint64_t setup = ((uint64_t)(img[SETUP_SECTS] ? img[SETUP_SECTS] : 4) + 1) * 512;
    uint64_t start = setup + le32(img + PAYLOAD_OFFSET), size = le32(img + PAYLOAD_LENGTH);
    if (size <= SIZE_TRAILER || start > len || size > len - start) {
        *why = "its compressed kernel lies outside the file (truncated?)";
        return NULL;
    }
    const uint8_t *payload = img + start;
    for (size_t i = 0; i < sizeof(unpackers) / sizeof(unpackers[0]); i++) {
        const struct unpacker *u = &unpackers[i];
        if (memcmp(payload, u->magic, u->magic_len))
            continue;
        uint8_t *out = unpack(u, payload, size - SIZE_TRAILER, out_len);
        if (!out)
            *why = "its compressed kernel did not unpack (is the decompressor installed?)";
        return out;
    }
    *why = "its kernel is compressed in a format this tool does not know";
    return NULL;
}

/* Reads k->path into k->elf; warns once (sym_warning) when it cannot. */
static void kernel_image_load(struct symbolizer *s, struct sym_kernel_image *k)
{
    k->tried = true;
    const char *why = "unreadable";
    int fd = open(k->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    size_t len = 0;
    uint8_t *file = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ?
                    read_all(fd, IMAGE_MAX, &len) : NULL;
    if (fd >= 0)
        close(fd);
    if (file && len >= 4 && !memcmp(file, ELFMAG, SELFMAG)) {
        k->data = file;
        k->len = len;
        k->elf_file = true;
    } else if (file) {
        k->data = bzimage_vmlinux(file, len, &k->len, &why);
        free(file);
    }
    elf_version(EV_CURRENT);
    Elf *elf = k->data ? elf_memory((char *)k->data, k->len) : NULL;
    GElf_Ehdr eh;
    if (elf && (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64)) {
        why = "not an x86-64 ELF kernel";
        elf_end(elf);
        elf = NULL;
    }
    k->elf = elf;
    if (elf)
        load_patches(k, elf);
    if (!elf) {
        char line[SYM_PATH_MAX];
        snprintf(line, sizeof(line), "--kernel-image %s: %s; kernel frames are not checked",
                 k->path, k->data ? "not an x86-64 ELF kernel" : why);
        s->warnings = sym_grow(s->warnings, &s->warning_cap, s->warning_count + 1,
                               sizeof(*s->warnings));
        s->warnings[s->warning_count++] = sym_intern(s, line);
    }
}

/* The kernel image given for domain, loaded, or NULL. */
static struct sym_kernel_image *kernel_image_of(struct symbolizer *s, uint32_t domain)
{
    struct sym_kernel_image *k = NULL;
    for (unsigned int i = 0; i < s->opts.kimage_count && i < SYM_DOMAIN_FILES_MAX && !k; i++)
        if (sym_key_designates(s, s->opts.kimages[i].domain, domain))
            k = &s->kimages[i + 1];
    if (!k && domain == 0 && s->opts.kernel_image)
        k = &s->kimages[0];
    if (!k)
        return NULL;
    if (!k->tried) {
        unsigned int i = (unsigned int)(k - s->kimages);
        k->path = i ? s->opts.kimages[i - 1].path : s->opts.kernel_image;
        kernel_image_load(s, k);
    }
    return k->elf ? k : NULL;
}

/* ---- Sections ------------------------------------------------------------ */

static bool section_at(Elf *elf, uint64_t bias, uint64_t addr, struct sym_code *out);

/* The section called name: its address and bytes; false if absent. */
static bool section_named(Elf *elf, const char *name, uint64_t *addr, const uint8_t **bytes,
                          size_t *size)
{
    size_t shstrndx;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0)
        return false;
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
        GElf_Shdr sh;
        const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
        Elf_Data *data = n && !strcmp(n, name) && sh.sh_type == SHT_PROGBITS ? elf_rawdata(scn, NULL) : NULL;
        if (data && data->d_size == sh.sh_size) {
            *addr = sh.sh_addr;
            *bytes = data->d_buf;
            *size = sh.sh_size;
            return true;
        }
    }
    return false;
}

static int32_t s32_at(const uint8_t *p)
{
    return (int32_t)le32(p);
}

/* Whether the image's bytes at link address a are a call. */
static bool image_call_at(Elf *elf, uint64_t a)
{
    struct sym_code c;
    if (!section_at(elf, 0, a, &c))
        return false;
    const uint8_t *p = c.bytes + (a - c.start);
    size_t avail = c.size - (a - c.start);
    return (avail >= 5 && p[0] == 0xe8) || insn_ff2_length(p, avail) != 0;
}

static void patch_add(struct sym_kernel_image *k, struct sym_patch site)
{
    if (!site.len)
        return;
    k->patches = sym_grow(k->patches, &k->patch_cap, k->patch_count + 1, sizeof(*k->patches));
    k->patches[k->patch_count++] = site;
}

/* struct alt_instr { s32 instr_offset, repl_offset; u16 cpuid; u8
 * instrlen, replacementlen; } (packed, 12 bytes), offsets relative to
 * the fields themselves. */
static void alternatives(struct sym_kernel_image *k, Elf *elf)
{
    uint64_t at, repl_at;
    const uint8_t *b, *repl;
    size_t size, repl_size;
    if (!section_named(elf, ".altinstructions", &at, &b, &size) ||
        !section_named(elf, ".altinstr_replacement", &repl_at, &repl, &repl_size))
        return;
    for (size_t i = 0; i + 12 <= size; i += 12) {
        uint64_t instr = at + i + (uint64_t)(int64_t)s32_at(b + i);
        uint64_t r = at + i + 4 + (uint64_t)(int64_t)s32_at(b + i + 4);
        uint8_t len = b[i + 10], rlen = b[i + 11];
        bool in_repl = r >= repl_at && r - repl_at <= repl_size && rlen <= repl_size - (r - repl_at);
        patch_add(k, (struct sym_patch){ SYM_PATCH_ALTERNATIVE, instr, len,
                                         in_repl ? repl + (r - repl_at) : NULL, in_repl ? rlen : 0,
                                         image_call_at(elf, instr) });
    }
}

/* s32 offsets, relative to themselves, of the calls and jumps through
 * the retpoline thunks; the calls are kept (5 bytes: E8 rel32). */
static void retpolines(struct sym_kernel_image *k, Elf *elf)
{
    uint64_t at;
    const uint8_t *b;
    size_t size;
    if (!section_named(elf, ".retpoline_sites", &at, &b, &size))
        return;
    for (size_t i = 0; i + 4 <= size; i += 4) {
        uint64_t site = at + i + (uint64_t)(int64_t)s32_at(b + i);
        struct sym_code c;
        if (section_at(elf, 0, site, &c) && c.bytes[site - c.start] == 0xe8)
            patch_add(k, (struct sym_patch){ SYM_PATCH_RETPOLINE_CALL, site, 5, NULL, 0, true });
    }
}

/* struct paravirt_patch_site { u8 *instr; u8 type, len; } (16 bytes). */
static void paravirt_sites(struct sym_kernel_image *k, Elf *elf)
{
    uint64_t at;
    const uint8_t *b;
    size_t size;
    if (!section_named(elf, ".parainstructions", &at, &b, &size))
        return;
    for (size_t i = 0; i + 16 <= size; i += 16) {
        uint64_t instr = (uint64_t)le32(b + i) | (uint64_t)le32(b + i + 4) << 32;
        patch_add(k, (struct sym_patch){ SYM_PATCH_PARAVIRT, instr, b[i + 9], NULL, 0,
                                         image_call_at(elf, instr) });
    }
}

static int patch_cmp(const void *a, const void *b)
{
    const struct sym_patch *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static void load_patches(struct sym_kernel_image *k, Elf *elf)
{
    alternatives(k, elf);
    retpolines(k, elf);
    paravirt_sites(k, elf);
    if (k->patch_count)
        qsort(k->patches, k->patch_count, sizeof(*k->patches), patch_cmp);
}

/* The address of symbol name in elf's symbol table, if it has one. */
static bool elf_symbol(Elf *elf, const char *name, uint64_t *addr)
{
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
        GElf_Shdr sh;
        Elf_Data *data;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
            !(data = elf_getdata(scn, NULL)))
            continue;
        for (size_t i = 0; i < data->d_size / sh.sh_entsize; i++) {
            GElf_Sym sym;
            const char *n = gelf_getsym(data, (int)i, &sym) ? elf_strptr(elf, sh.sh_link, sym.st_name) : NULL;
            if (n && !strcmp(n, name)) {
                *addr = sym.st_value;
                return true;
            }
        }
    }
    return false;
}

/* The address of the section called name, if any. */
static bool elf_section_addr(Elf *elf, const char *name, uint64_t *addr)
{
    size_t shstrndx;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0)
        return false;
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
        GElf_Shdr sh;
        const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
        if (n && !strcmp(n, name)) {
            *addr = sh.sh_addr;
            return true;
        }
    }
    return false;
}

/* How far the running kernel of domain lies from the image's link
 * addresses: kallsyms' _stext less the image's (its symbol, else the
 * start of .text, where x86's linker script puts it); 0 when unknown. */
static uint64_t kernel_slide(const struct symbolizer *s, uint32_t domain, Elf *elf)
{
    const struct ktable *k = sym_ktable_of(s, domain);
    uint64_t linked;
    if (!k || !(elf_symbol(elf, "_stext", &linked) || elf_section_addr(elf, ".text", &linked)))
        return 0;
    for (size_t i = 0; i < k->count; i++)
        if (!strcmp(k->syms[i].name, "_stext"))
            return k->syms[i].addr - linked;
    return 0;
}

/* The executable section of elf holding addr - bias, into out. */
static bool section_at(Elf *elf, uint64_t bias, uint64_t addr, struct sym_code *out)
{
    uint64_t at = addr - bias;
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR) ||
            at < sh.sh_addr || at - sh.sh_addr >= sh.sh_size)
            continue;
        Elf_Data *data = elf_rawdata(scn, NULL);
        if (!data || data->d_size != sh.sh_size)
            return false;
        out->bytes = data->d_buf;
        out->start = sh.sh_addr + bias;
        out->size = sh.sh_size;
        return true;
    }
    return false;
}

/* The kernel image of domain with its slide known, or NULL. */
static struct sym_kernel_image *kernel_image_slid(struct symbolizer *s, uint32_t domain)
{
    struct sym_kernel_image *k = kernel_image_of(s, domain);
    if (k && !k->slide_known) {
        k->slide = kernel_slide(s, domain, k->elf);
        k->slide_known = true;
    }
    return k;
}

/* The kernel image of domain when f is a frame of the guest kernel
 * ([kernel.kallsyms]), with its slide known; else NULL. */
static struct sym_kernel_image *kernel_image_for(struct symbolizer *s, uint32_t domain,
                                                 const struct sym_frame *f)
{
    if (f->mode != LOG_MODE_GUEST_KERNEL || strcmp(s->images[f->image].name, SYM_KERNEL_IMAGE))
        return NULL;
    return kernel_image_slid(s, domain);
}

bool sym_code_of(struct symbolizer *s, uint32_t domain, const struct sym_frame *f, uint64_t addr,
                 struct sym_code *out, const char **why)
{
    *why = "no-binary";
    if (f->elf) {
        struct elf_image *e = &s->elves[f->elf - 1];
        Dwarf_Addr bias;
        Elf *elf = e->mod ? dwfl_module_getelf(e->mod, &bias) : NULL;
        out->binary = e->path;
        if (!elf)
            return false;
        *why = "outside-text";
        return section_at(elf, bias, addr, out);
    }
    struct sym_kernel_image *k = kernel_image_for(s, domain, f);
    if (!k)
        return false;
    out->binary = SYM_KERNEL_IMAGE;
    *why = "outside-text";
    return section_at(k->elf, k->slide, addr, out);
}

bool sym_code_entry_point(struct symbolizer *s, const struct sym_frame *f, uint64_t *entry,
                          const char **binary)
{
    if (!f->elf)
        return false;
    Dwarf_Addr bias;
    struct elf_image *e = &s->elves[f->elf - 1];
    Elf *elf = e->mod ? dwfl_module_getelf(e->mod, &bias) : NULL;
    GElf_Ehdr eh;
    if (!elf || !gelf_getehdr(elf, &eh) || !eh.e_entry)
        return false;
    *entry = eh.e_entry + bias;
    *binary = e->path;
    return true;
}

bool sym_code_patch_at(struct symbolizer *s, uint32_t domain, uint64_t addr, struct sym_patch *out)
{
    struct sym_kernel_image *k = kernel_image_slid(s, domain);
    if (!k)
        return false;
    uint64_t a = addr - k->slide;
    /* the first site starting at or after a */
    size_t lo = a ? sym_count_upto(k->patches, k->patch_count, sizeof(*k->patches),
                                   offsetof(struct sym_patch, start), sizeof(k->patches->start), a - 1)
                  : 0;
    for (size_t i = lo; i > 0 && i + 4 > lo; i--) {   /* nested sites: a few before */
        const struct sym_patch *p = &k->patches[i - 1];
        if (a - p->start <= p->len) {
            *out = *p;
            out->start += k->slide;
            return true;
        }
    }
    return false;
}

void sym_code_free(struct symbolizer *s)
{
    for (size_t i = 0; i <= SYM_DOMAIN_FILES_MAX; i++) {
        if (s->kimages[i].elf)
            elf_end(s->kimages[i].elf);
        free(s->kimages[i].data);
        free(s->kimages[i].patches);
    }
}

bool sym_function_bounds(struct symbolizer *s, uint32_t domain, const struct sym_frame *f,
                         uint64_t *start, uint64_t *end)
{
    if (!sym_function(s, f->function)->known)
        return false;
    if (f->elf) {
        struct elf_image *e = &s->elves[f->elf - 1];
        uint64_t first, size;
        if (!e->mod || !sym_table_lookup(&e->table, e->mod, f->addr, &first, &size) || !size)
            return false;
        *start = first;
        *end = first + size;
        return true;
    }
    const struct ktable *k = f->mode == LOG_MODE_GUEST_KERNEL ? sym_ktable_of(s, domain) : NULL;
    size_t lo = 0, hi = k ? k->count : 0;          /* the first symbol above the frame */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (k->syms[mid].addr <= f->addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo)
        return false;
    *start = k->syms[lo - 1].addr;
    *end = lo < k->count && k->syms[lo].addr < k->syms[lo - 1].limit ? k->syms[lo].addr
                                                                   : k->syms[lo - 1].limit;
    return *end > *start && *end != UINT64_MAX;
}

bool sym_source_line(struct symbolizer *s, uint32_t domain, const struct sym_frame *f,
                     uint64_t addr, char file[SYM_PATH_MAX], uint32_t *line)
{
    if (f->elf)
        return s->elves[f->elf - 1].mod && sym_dwarf_line(&s->elves[f->elf - 1], addr, file, line);
    struct sym_kernel_image *k = kernel_image_for(s, domain, f);
    if (!k)
        return false;
    if (!k->dwarf_tried) {               /* a vmlinux built with DWARF; a bzImage has none */
        k->dwarf_tried = true;
        k->dwarf = k->elf_file ? sym_elf_open_dwarf(s, k->path) + 1 : 0;
    }
    return k->dwarf && sym_dwarf_line(&s->elves[k->dwarf - 1], addr - k->slide, file, line);
}
