/* Host-side symbolization (see symbolize.h), its core: interned strings,
 * images, functions, the frame cache, kernel and hypervisor lookups, and
 * the symbolizer's life cycle. Symbols records are sym_sets.c's, user
 * addresses sym_user.c's, ELF files sym_elf.c's. */
#define _GNU_SOURCE   /* O_PATH */
#include "host-tools/sym_internal.h"
#include "host-tools/sym_demangle.h"
#include "host-tools/text_quote.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KERNEL_IMAGE   "[kernel.kallsyms]"
#define UNKNOWN_PREFIX "[unknown]"
#define TABLE_MIN_CAP  64u      /* hash tables */
#define ARRAY_MIN_CAP  4u       /* arrays: many are per process or set, and small */
#define HASH_SEED      0xcbf29ce484222325ull
#define HASH_PRIME     0x100000001b3ull
#define HASH_MIX_MUL   0x9e3779b97f4a7c15ull   /* 2^64 / golden ratio, odd */
#define READ_BLOCK     65536u

/* ---- Growable arrays and the probing hash table ----------------------- */

void *sym_grow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    size_t n = *cap ? *cap : ARRAY_MIN_CAP;
    while (n < need)
        n *= 2;
    p = realloc(p, n * elem);
    if (!p) {
        fprintf(stderr, "vertigo: out of memory\n");
        exit(1);
    }
    *cap = n;
    return p;
}

void *sym_calloc(size_t count, size_t elem)
{
    size_t cap = 0;
    void *p = sym_grow(NULL, &cap, count ? count : 1, elem);
    memset(p, 0, cap * elem);
    return p;
}

typedef bool (*ptab_eq_fn)(const void *ctx, uint32_t value);

static size_t ptab_slot(const struct ptab *t, uint64_t h, ptab_eq_fn eq, const void *ctx)
{
    size_t mask = t->cap - 1, i = h & mask;
    while (t->val[i] && !(t->hash[i] == h && eq(ctx, t->val[i] - 1)))
        i = (i + 1) & mask;
    return i;
}

static void ptab_grow(struct ptab *t)
{
    struct ptab n = { .cap = t->cap ? t->cap * 2 : TABLE_MIN_CAP, .used = t->used };
    n.hash = calloc(n.cap, sizeof(*n.hash));
    n.val = calloc(n.cap, sizeof(*n.val));
    if (!n.hash || !n.val) {
        fprintf(stderr, "vertigo: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->val[i])
            continue;
        size_t j = t->hash[i] & (n.cap - 1);
        while (n.val[j])
            j = (j + 1) & (n.cap - 1);
        n.hash[j] = t->hash[i];
        n.val[j] = t->val[i];
    }
    free(t->hash);
    free(t->val);
    *t = n;
}

/* Returns the value found, or inserts fresh and returns it. */
static uint32_t ptab_get(struct ptab *t, uint64_t h, ptab_eq_fn eq, const void *ctx, uint32_t fresh)
{
    if ((t->used + 1) * 2 > t->cap)
        ptab_grow(t);
    size_t i = ptab_slot(t, h, eq, ctx);
    if (t->val[i])
        return t->val[i] - 1;
    t->hash[i] = h;
    t->val[i] = fresh + 1;
    t->used++;
    return fresh;
}

static void ptab_free(struct ptab *t)
{
    free(t->hash);
    free(t->val);
}

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * HASH_PRIME;
    return h;
}

/* One more word into h. A product's low bits depend only on its factors'
 * low bits, and the tables index by the low bits: folding the high half
 * down after each multiply makes every bit of every word count (a frame
 * key's domain and the top of a 64-bit address among them). */
static uint64_t hash_mix(uint64_t h, uint64_t v)
{
    h = (h ^ v) * HASH_MIX_MUL;
    return h ^ (h >> 32);
}

/* ---- Interning: strings, images, functions ---------------------------- */

void sym_clean(char *s)
{
    text_clean(s);
}

struct str_probe {
    const struct symbolizer *s;
    const char *str;
};

static bool str_eq(const void *ctx, uint32_t v)
{
    const struct str_probe *p = ctx;
    return !strcmp(p->s->strings[v], p->str);
}

const char *sym_intern(struct symbolizer *s, const char *str)
{
    struct str_probe p = { s, str };
    uint64_t h = hash_bytes(HASH_SEED, str, strlen(str));
    uint32_t v = ptab_get(&s->string_tab, h, str_eq, &p, (uint32_t)s->string_count);
    if (v == s->string_count) {
        s->strings = sym_grow(s->strings, &s->string_cap, s->string_count + 1, sizeof(char *));
        s->strings[s->string_count++] = strdup(str);
        if (!s->strings[v]) {
            fprintf(stderr, "vertigo: out of memory\n");
            exit(1);
        }
    }
    return s->strings[v];
}

/* An image by name; start/limit 0 means "grow from the addresses seen". */
uint32_t sym_image_get(struct symbolizer *s, const char *name, uint64_t start, uint64_t limit,
                       uint64_t offset)
{
    name = sym_intern(s, name);
    uint32_t i = keymap_get(&s->image_map, (uintptr_t)name, 0, 0, (uint32_t)s->image_count);
    if (i == s->image_count) {
        s->images = sym_grow(s->images, &s->image_cap, s->image_count + 1, sizeof(*s->images));
        s->images[s->image_count++] = (struct sym_image){ name, start, limit, offset, 0 };
    }
    return i;
}

struct fn_probe {
    const struct symbolizer *s;
    const char *name;            /* interned */
    uint32_t image;
};

static bool fn_eq(const void *ctx, uint32_t v)
{
    const struct fn_probe *p = ctx;
    return p->s->functions[v].name == p->name && p->s->functions[v].image == p->image;
}

uint32_t sym_function_get(struct symbolizer *s, uint32_t image, const char *name,
                          const char *file, uint32_t line, bool known)
{
    char demangled[SYM_NAME_MAX];
    if (known && !s->opts.no_demangle)
        name = sym_demangle(name, demangled, sizeof(demangled));
    struct fn_probe p = { s, sym_intern(s, name), image };
    uint64_t h = hash_mix(hash_bytes(HASH_SEED, name, strlen(name)), image);
    uint32_t v = ptab_get(&s->function_tab, h, fn_eq, &p, (uint32_t)s->function_count);
    if (v == s->function_count) {
        s->functions = sym_grow(s->functions, &s->function_cap, v + 1, sizeof(*s->functions));
        s->functions[v] = (struct sym_function){ p.name, file ? sym_intern(s, file) : NULL, line,
                                                 image, known };
        s->function_count++;
    }
    return v;
}

uint32_t sym_unknown_function(struct symbolizer *s, uint32_t image, bool has_image,
                              uint64_t addr, uint64_t offset)
{
    char name[SYM_NAME_MAX + 64];
    if (has_image)
        snprintf(name, sizeof(name), UNKNOWN_PREFIX " %.*s+0x%" PRIx64, (int)SYM_NAME_MAX,
                 s->images[image].name, offset);
    else
        snprintf(name, sizeof(name), UNKNOWN_PREFIX " 0x%" PRIx64, addr);
    return sym_function_get(s, image, name, NULL, 0, false);
}

/* ---- Kernel and hypervisor addresses ---------------------------------- */

/* The last of count elements of elem_size bytes, sorted by the uint64_t
 * at key_offset in each, whose key is at most key; NULL if none is. */
static const void *sorted_floor(const void *elems, size_t count, size_t elem_size,
                                size_t key_offset, uint64_t key)
{
    size_t n = sym_count_upto(elems, count, elem_size, key_offset, sizeof(uint64_t), key);
    return n ? (const char *)elems + (n - 1) * elem_size : NULL;
}

/* The kallsyms given for domain, else the ones it shipped, or NULL. */
const struct ktable *sym_ktable_of(const struct symbolizer *s, uint32_t domain)
{
    const struct ktable *given = sym_domain_ktable(s, domain);
    if (given)
        return given;
    uint32_t i = keymap_get((struct keymap *)&s->ktable_map, domain, 0, 0, KEYMAP_NONE);
    return i == KEYMAP_NONE ? NULL : &s->ktables[i];
}

bool sym_kernel_function_at(const struct symbolizer *s, uint32_t domain, uint64_t addr)
{
    const struct ktable *k = sym_ktable_of(s, domain);
    const struct ksym *sym = k ? sorted_floor(k->syms, k->count, sizeof(*k->syms),
                                              offsetof(struct ksym, addr), addr) : NULL;
    return sym && sym->addr == addr;
}

static void resolve_kernel(struct symbolizer *s, const struct sym_where *w, struct sym_frame *f)
{
    const struct ktable *k = sym_ktable_of(s, w->domain);
    const struct ksym *sym = k ? sorted_floor(k->syms, k->count, sizeof(*k->syms),
                                              offsetof(struct ksym, addr), f->addr) : NULL;
    if (sym && f->addr < sym->limit) {
        f->image = sym->image;
        f->function = sym_function_get(s, sym->image, sym->name, NULL, 0, true);
        f->offset = f->addr - sym->addr;
    } else {
        f->image = sym_image_get(s, KERNEL_IMAGE, 0, 0, 0);
        f->function = sym_unknown_function(s, f->image, false, f->addr, 0);
    }
}

/* An address in an ELF linked where it runs (Vertigo's, or a domain's one
 * static image given with --domain-elf: its addresses in any mode). */
static void resolve_in_elf(struct symbolizer *s, int elf, struct sym_frame *f)
{
    const struct elf_image *e = &s->elves[elf];
    sym_elf_lookup(s, elf, f->addr, f->addr - s->images[e->image].start, f);
}

static void resolve_hypervisor(struct symbolizer *s, struct sym_frame *f)
{
    if (s->vertigo_elf >= 0) {
        resolve_in_elf(s, s->vertigo_elf, f);
        return;
    }
    f->image = sym_image_get(s, "[vertigo]", 0, 0, 0);
    f->function = sym_unknown_function(s, f->image, false, f->addr, 0);
}

/* ---- The frame cache -------------------------------------------------- */

struct frame_probe {
    const struct symbolizer *s;
    struct sym_frame_key key;
};

static bool frame_eq(const void *ctx, uint32_t v)
{
    const struct frame_probe *p = ctx;
    return !memcmp(&p->s->frame_keys[v], &p->key, sizeof(p->key));
}

/* Widens f's image to cover addr. */
static void image_cover(struct sym_image *img, uint64_t addr)
{
    if (img->limit == 0) {
        img->start = addr;
        img->limit = addr + 1;
    } else if (addr < img->start) {
        img->start = addr;
    } else if (addr >= img->limit) {
        img->limit = addr + 1;
    }
}


/* The mode addr is resolved in: a guest kernel sample's chain goes on
 * into the user stack of the process it interrupted (Vertigo crosses the
 * system call or interrupt entry frame), so its user-half addresses are
 * that process's frames. */
static struct sym_where frame_where(const struct sym_where *w, uint64_t addr)
{
    struct sym_where fw = *w;
    if (w->mode == LOG_MODE_GUEST_KERNEL && addr < SYM_KERNEL_HALF_START)
        fw.mode = LOG_MODE_GUEST_USER;
    return fw;
}

uint32_t sym_resolve(struct symbolizer *s, const struct sym_where *where, uint64_t addr)
{
    struct sym_where fw = frame_where(where, addr);
    const struct sym_where *w = &fw;
    struct frame_probe p = { s, { addr, (uint64_t)w->domain << 32 | w->jit_seq,
                                  (w->has_cr3 ? w->cr3 : UINT64_MAX) ^ ((uint64_t)w->mode << 62) ^
                                  ((uint64_t)w->program_gone << 61),
                                  w->identity_seq | (uint64_t)w->maps_seq << 32 } };
    uint64_t h = hash_mix(hash_mix(hash_mix(HASH_SEED, addr), p.key.where), p.key.space);
    h = hash_mix(h, p.key.identity_seq);
    uint32_t id = ptab_get(&s->frame_tab, h, frame_eq, &p, (uint32_t)s->frame_count);
    if (id != s->frame_count)
        return id;
    struct sym_frame f = { .addr = addr, .mode = w->mode };
    bool gone_user = w->program_gone && w->mode == LOG_MODE_GUEST_USER;
    int image_elf = w->mode == LOG_MODE_HYPERVISOR ? -1 : sym_domain_elf(s, w->domain);
    if (gone_user) {
        f.image = sym_image_get(s, SYM_GONE_IMAGE, 0, 0, 0);
        f.function = sym_unknown_function(s, f.image, false, addr, 0);
    } else if (image_elf >= 0)
        resolve_in_elf(s, image_elf, &f);
    else if (w->mode == LOG_MODE_HYPERVISOR)
        resolve_hypervisor(s, &f);
    else if (w->mode == LOG_MODE_GUEST_KERNEL)
        resolve_kernel(s, w, &f);
    else
        sym_resolve_user(s, w, &f);
    image_cover(&s->images[f.image], addr);
    s->frames = sym_grow(s->frames, &s->frame_cap, id + 1, sizeof(*s->frames));
    s->frame_keys = sym_grow(s->frame_keys, &s->frame_key_cap, id + 1, sizeof(*s->frame_keys));
    s->frames[id] = f;
    s->frame_keys[id] = p.key;
    s->frame_count++;
    return id;
}

/* ---- Life cycle and accessors ----------------------------------------- */

/* The whole of path, a regular file (a FIFO or device given by mistake
 * would block or never end), with a NUL after it; NULL with err set. */
char *sym_read_text_file(const char *option, const char *path, size_t *len, char *err,
                         size_t err_len)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, err_len, "%s: %s", option, fd < 0 ? strerror(errno) : "not a regular file");
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    char *text = NULL;
    size_t cap = 0;
    ssize_t n;
    *len = 0;
    do {
        text = sym_grow(text, &cap, *len + READ_BLOCK + 1, 1);
        n = read(fd, text + *len, READ_BLOCK);
        *len += n > 0 ? (size_t)n : 0;
    } while (n > 0);
    close(fd);
    text[*len] = '\0';
    return text;
}

int sym_open_root(const char *option, const char *path, char *err, size_t err_len)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, err_len, "%s: %s", option, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, err_len, "%s: not a directory", option);
        return -1;
    }
    int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        snprintf(err, err_len, "%s: %s", option, strerror(errno));
    return fd;
}

static bool open_options(struct symbolizer *s, char *err, size_t err_len)
{
    const struct sym_options *o = &s->opts;
    char option[SYM_PATH_MAX];
    if (o->guest_root) {
        snprintf(option, sizeof(option), "--guest-root %s", o->guest_root);
        s->root_fd = sym_open_root(option, o->guest_root, err, err_len);
        if (s->root_fd < 0)
            return false;
    }
    if (o->kallsyms_path) {
        size_t len;
        snprintf(option, sizeof(option), "--kallsyms %s", o->kallsyms_path);
        char *text = sym_read_text_file(option, o->kallsyms_path, &len, err, err_len);
        if (!text)
            return false;
        s->ktables = sym_grow(s->ktables, &s->ktable_cap, 1, sizeof(*s->ktables));
        s->ktables[s->ktable_count++] = (struct ktable){ 0 };
        sym_load_kallsyms(s, &s->ktables[0], text, len);
        free(text);
    }
    if (o->vertigo_elf) {
        const char *slash = strrchr(o->vertigo_elf, '/');
        uint32_t image = sym_image_get(s, slash ? slash + 1 : o->vertigo_elf, 0, 0, 0);
        s->vertigo_elf = sym_elf_open_vertigo(s, o->vertigo_elf, image);
        if (s->vertigo_elf < 0) {
            snprintf(err, err_len, "--vertigo-elf %s: not a readable ELF file", o->vertigo_elf);
            return false;
        }
    }
    return sym_domains_open(s, err, err_len);
}

bool sym_vertigo_build_id(const struct symbolizer *s, uint8_t out[LOG_BUILD_ID_SIZE])
{
    return s->vertigo_elf >= 0 && sym_elf_build_id(s, s->vertigo_elf, out);
}

struct symbolizer *sym_create(const struct sym_options *opts, char *err, size_t err_len)
{
    struct symbolizer *s = calloc(1, sizeof(*s));
    if (!s) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    s->opts = *opts;
    s->vertigo_elf = -1;
    s->root_fd = -1;
    s->ix.stale = true;
    s->oldest_commit = UINT64_MAX;
    if (!open_options(s, err, err_len)) {
        sym_destroy(s);
        return NULL;
    }
    return s;
}

void sym_destroy(struct symbolizer *s)
{
    if (!s)
        return;
    sym_unwinders_free(s);
    sym_code_free(s);
    sym_elf_free(s);
    sym_sets_free(s);
    sym_user_free(s);
    for (size_t i = 0; i < s->string_count; i++)
        free((void *)s->strings[i]);
    for (size_t i = 0; i < s->ktable_count; i++)
        free(s->ktables[i].syms);
    if (s->root_fd >= 0)
        close(s->root_fd);
    sym_domains_close(s);
    free(s->strings);
    ptab_free(&s->string_tab);
    free(s->images);
    keymap_free(&s->image_map);
    free(s->functions);
    ptab_free(&s->function_tab);
    free(s->frames);
    free(s->frame_keys);
    ptab_free(&s->frame_tab);
    free(s->ktables);
    keymap_free(&s->ktable_map);
    free(s);
}

const struct sym_frame *sym_frame(const struct symbolizer *s, uint32_t id) { return &s->frames[id]; }
const struct sym_function *sym_function(const struct symbolizer *s, uint32_t id) { return &s->functions[id]; }
const struct sym_image *sym_image(const struct symbolizer *s, uint32_t id) { return &s->images[id]; }
uint32_t sym_function_count(const struct symbolizer *s) { return (uint32_t)s->function_count; }
uint32_t sym_image_count(const struct symbolizer *s) { return (uint32_t)s->image_count; }
size_t sym_warning_count(const struct symbolizer *s) { return s->warning_count; }
const char *sym_warning(const struct symbolizer *s, size_t i) { return s->warnings[i]; }
