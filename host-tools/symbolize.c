/* Host-side symbolization (see symbolize.h): interned strings, images and
 * functions, the frame cache, kallsyms tables, process maps, JIT map
 * epochs, chunk reassembly and ELF lookups through libdwfl. */
#include "host-tools/symbolize.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KERNEL_IMAGE   "[kernel.kallsyms]"
#define ANON_IMAGE     "[anon]"
#define UNKNOWN_PREFIX "[unknown]"
#define NAME_MAX_LEN   512u
#define TABLE_MIN_CAP  64u
#define HASH_SEED      0xcbf29ce484222325ull
#define HASH_PRIME     0x100000001b3ull

/* ---- Small growable arrays and a probing hash table ------------------ */

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    size_t n = *cap ? *cap : TABLE_MIN_CAP;
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

/* Open addressing: slots hold a 64-bit hash and value + 1 (0 = empty). */
struct ptab {
    uint64_t *hash;
    uint32_t *val;
    size_t cap, used;
};

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

/* Returns the value found, or inserts fresh (when not UINT32_MAX) and
 * returns it. */
static uint32_t ptab_get(struct ptab *t, uint64_t h, ptab_eq_fn eq, const void *ctx, uint32_t fresh)
{
    if ((t->used + 1) * 2 > t->cap)
        ptab_grow(t);
    size_t i = ptab_slot(t, h, eq, ctx);
    if (t->val[i])
        return t->val[i] - 1;
    if (fresh == UINT32_MAX)
        return UINT32_MAX;
    t->hash[i] = h;
    t->val[i] = fresh + 1;
    t->used++;
    return fresh;
}

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * HASH_PRIME;
    return h;
}

static uint64_t hash_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * HASH_PRIME;
}

/* ---- State ----------------------------------------------------------- */

struct ksym {
    uint64_t addr;
    const char *name;
    uint32_t image;
};

struct ktable {
    uint32_t domain;
    bool from_file;
    struct ksym *syms;
    size_t count, cap;
};

struct map_entry {
    uint64_t start, end, offset;
    const char *path;          /* interned; NULL for anonymous */
    bool exec;
};

struct process {
    uint32_t domain, pid;
    struct map_entry *maps;
    size_t count, cap;
};

struct jit_entry {
    uint64_t start, size;
    const char *name;
    size_t order;              /* line number: a later line wins a tie */
};

struct jit_set {
    uint32_t domain, pid;
    uint64_t epoch, tsc;
    struct jit_entry *ents;    /* sorted by start */
    size_t count, cap;
};

struct pending {
    struct log_symbols key;    /* domain, kind, pid, epoch */
    uint32_t next_chunk;
    uint64_t tsc;
    char *text;
    size_t len, cap;
};

struct elf_image {
    const char *path;          /* interned */
    uint64_t base;
    Dwfl *dwfl;
    Dwfl_Module *mod;
    uint32_t image;
};

struct cr3_binding {
    uint32_t domain, pid;
    uint64_t cr3;
};

struct identity {
    uint32_t domain, pid;
    uint64_t cr3;              /* masked with CR3_SPACE_MASK */
    uint64_t tsc;
};

struct frame_key {
    uint64_t addr, where, space;
};

struct symbolizer {
    struct sym_options opts;
    const char **strings;
    size_t string_count, string_cap;
    struct ptab string_tab;
    struct sym_image *images;
    size_t image_count, image_cap;
    struct sym_function *functions;
    size_t function_count, function_cap;
    struct ptab function_tab;
    struct sym_frame *frames;
    struct frame_key *frame_keys;
    size_t frame_count, frame_cap, frame_key_cap;
    struct ptab frame_tab;
    struct ktable *ktables;
    size_t ktable_count, ktable_cap;
    struct process *procs;
    size_t proc_count, proc_cap;
    struct jit_set *jits;
    size_t jit_count, jit_cap;
    struct pending *pend;
    size_t pend_count, pend_cap;
    struct elf_image *elves;
    size_t elf_count, elf_cap;
    struct cr3_binding *bindings;
    size_t binding_count, binding_cap;
    struct identity *idents;   /* in stream order */
    size_t ident_count, ident_cap;
    uint64_t ident_tsc;        /* TSC of the identity set being committed */
    int vertigo_elf;           /* index into elves, or -1 */
    uint64_t bad_records;
};

/* ---- Interning ------------------------------------------------------- */

struct str_probe {
    const struct symbolizer *s;
    const char *str;
};

static bool str_eq(const void *ctx, uint32_t v)
{
    const struct str_probe *p = ctx;
    return !strcmp(p->s->strings[v], p->str);
}

static const char *intern(struct symbolizer *s, const char *str)
{
    struct str_probe p = { s, str };
    uint64_t h = hash_bytes(HASH_SEED, str, strlen(str));
    uint32_t v = ptab_get(&s->string_tab, h, str_eq, &p, (uint32_t)s->string_count);
    if (v == s->string_count) {
        s->strings = grow(s->strings, &s->string_cap, s->string_count + 1, sizeof(char *));
        s->strings[s->string_count++] = strdup(str);
    }
    return s->strings[v];
}

/* An image by name; start/limit 0 means "grow from the addresses seen". */
static uint32_t image_get(struct symbolizer *s, const char *name, uint64_t start, uint64_t limit,
                          uint64_t offset)
{
    name = intern(s, name);
    for (size_t i = 0; i < s->image_count; i++)
        if (s->images[i].name == name)
            return (uint32_t)i;
    s->images = grow(s->images, &s->image_cap, s->image_count + 1, sizeof(*s->images));
    s->images[s->image_count] = (struct sym_image){ name, start, limit, offset };
    return (uint32_t)s->image_count++;
}

struct fn_probe {
    const struct symbolizer *s;
    const char *name;          /* interned */
    uint32_t image;
};

static bool fn_eq(const void *ctx, uint32_t v)
{
    const struct fn_probe *p = ctx;
    return p->s->functions[v].name == p->name && p->s->functions[v].image == p->image;
}

static uint32_t function_get(struct symbolizer *s, uint32_t image, const char *name,
                             const char *file, uint32_t line, bool known)
{
    struct fn_probe p = { s, intern(s, name), image };
    uint64_t h = hash_mix(hash_bytes(HASH_SEED, name, strlen(name)), image);
    uint32_t v = ptab_get(&s->function_tab, h, fn_eq, &p, (uint32_t)s->function_count);
    if (v == s->function_count) {
        s->functions = grow(s->functions, &s->function_cap, v + 1, sizeof(*s->functions));
        s->functions[v] = (struct sym_function){ p.name, file ? intern(s, file) : NULL, line,
                                                 image, known };
        s->function_count++;
    }
    return v;
}

static uint32_t unknown_function(struct symbolizer *s, uint32_t image, bool has_image,
                                 uint64_t addr, uint64_t offset)
{
    char name[NAME_MAX_LEN];
    if (has_image)
        snprintf(name, sizeof(name), UNKNOWN_PREFIX " %s+0x%" PRIx64, s->images[image].name, offset);
    else
        snprintf(name, sizeof(name), UNKNOWN_PREFIX " 0x%" PRIx64, addr);
    return function_get(s, image, name, NULL, 0, false);
}

/* ---- ELF images through libdwfl -------------------------------------- */

static const Dwfl_Callbacks dwfl_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

/* Opens path once per load base; returns its index or -1. */
static int elf_open(struct symbolizer *s, const char *path, uint64_t base, uint32_t image)
{
    path = intern(s, path);
    for (size_t i = 0; i < s->elf_count; i++)
        if (s->elves[i].path == path && s->elves[i].base == base)
            return s->elves[i].mod ? (int)i : -1;
    s->elves = grow(s->elves, &s->elf_cap, s->elf_count + 1, sizeof(*s->elves));
    struct elf_image *e = &s->elves[s->elf_count++];
    *e = (struct elf_image){ .path = path, .base = base, .image = image };
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    e->dwfl = dwfl_begin(&dwfl_callbacks);
    if (e->dwfl) {
        e->mod = dwfl_report_elf(e->dwfl, path, path, fd, base, false);
        dwfl_report_end(e->dwfl, NULL, NULL);
    }
    if (!e->mod) {
        close(fd);   /* on success libdwfl owns fd */
        return -1;
    }
    struct sym_image *img = &s->images[image];
    Dwarf_Addr low, high;
    if (img->limit == 0 && dwfl_module_info(e->mod, NULL, &low, &high, NULL, NULL, NULL, NULL)) {
        img->start = low;
        img->limit = high;
    }
    return e->mod ? (int)(s->elf_count - 1) : -1;
}

static void src_of(Dwfl_Module *mod, uint64_t addr, const char **file, uint32_t *line)
{
    Dwfl_Line *l = dwfl_module_getsrc(mod, addr);
    int lineno = 0;
    const char *f = l ? dwfl_lineinfo(l, NULL, &lineno, NULL, NULL, NULL) : NULL;
    *file = f;
    *line = f && lineno > 0 ? (uint32_t)lineno : 0;
}

/* Resolves addr in ELF e into frame f (function, image, line). */
static void elf_lookup(struct symbolizer *s, int idx, uint64_t addr, uint64_t image_off,
                       struct sym_frame *f)
{
    struct elf_image *e = &s->elves[idx];
    GElf_Off off = 0;
    GElf_Sym sym;
    const char *name = dwfl_module_addrinfo(e->mod, addr, &off, &sym, NULL, NULL, NULL);
    f->image = e->image;
    if (!name) {
        f->function = unknown_function(s, e->image, true, addr, image_off);
        return;
    }
    const char *file;
    uint32_t line;
    src_of(e->mod, addr, &file, &f->line);
    src_of(e->mod, addr - off, &file, &line);
    if (!file)
        line = 0;
    f->function = function_get(s, e->image, name, file, line, true);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* ---- Text tables: kallsyms, maps, JIT maps --------------------------- */

static struct ktable *ktable_for(struct symbolizer *s, uint32_t domain, bool from_file)
{
    for (size_t i = 0; i < s->ktable_count; i++)
        if (s->ktables[i].from_file == from_file && (from_file || s->ktables[i].domain == domain))
            return &s->ktables[i];
    s->ktables = grow(s->ktables, &s->ktable_cap, s->ktable_count + 1, sizeof(*s->ktables));
    struct ktable *k = &s->ktables[s->ktable_count++];
    *k = (struct ktable){ .domain = domain, .from_file = from_file };
    return k;
}

static bool is_text_type(char t)
{
    return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

/* "ADDR TYPE NAME [\t[MODULE]]". Returns false if malformed. */
static bool kallsyms_line(struct symbolizer *s, struct ktable *k, const char *line)
{
    char type, name[NAME_MAX_LEN], module[NAME_MAX_LEN] = "";
    uint64_t addr;
    int n = sscanf(line, "%" SCNx64 " %c %511s [%511[^]]]", &addr, &type, name, module);
    if (n < 3)
        return false;
    if (!is_text_type(type) || !addr)
        return true;
    char image[NAME_MAX_LEN + 2];
    snprintf(image, sizeof(image), "[%s]", module);
    k->syms = grow(k->syms, &k->cap, k->count + 1, sizeof(*k->syms));
    k->syms[k->count++] = (struct ksym){
        addr, intern(s, name), image_get(s, module[0] ? image : KERNEL_IMAGE, 0, 0, 0) };
    return true;
}

static int ksym_cmp(const void *a, const void *b)
{
    const struct ksym *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* "START-END PERMS OFFSET DEV INODE [PATH]" */
static bool maps_line(struct symbolizer *s, struct process *p, const char *line)
{
    struct map_entry m = { 0 };
    char perms[8], path[NAME_MAX_LEN] = "";
    unsigned long long inode;
    int n = sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %llu %511[^\n]",
                   &m.start, &m.end, perms, &m.offset, &inode, path);
    if (n < 5 || m.end <= m.start)
        return false;
    m.exec = strchr(perms, 'x') != NULL;
    m.path = path[0] ? intern(s, path) : NULL;
    p->maps = grow(p->maps, &p->cap, p->count + 1, sizeof(*p->maps));
    p->maps[p->count++] = m;
    return true;
}

/* "START SIZE NAME" (hex, hex, rest of line) */
static bool jit_line(struct symbolizer *s, struct jit_set *j, const char *line)
{
    struct jit_entry e;
    int used = 0;
    if (sscanf(line, "%" SCNx64 " %" SCNx64 " %n", &e.start, &e.size, &used) < 2 || !line[used])
        return false;
    e.name = intern(s, line + used);
    e.order = j->count;
    j->ents = grow(j->ents, &j->cap, j->count + 1, sizeof(*j->ents));
    j->ents[j->count++] = e;
    return true;
}

static int jit_cmp(const void *a, const void *b)
{
    const struct jit_entry *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static struct process *process_for(struct symbolizer *s, uint32_t domain, uint32_t pid)
{
    for (size_t i = 0; i < s->proc_count; i++)
        if (s->procs[i].domain == domain && s->procs[i].pid == pid)
            return &s->procs[i];
    s->procs = grow(s->procs, &s->proc_cap, s->proc_count + 1, sizeof(*s->procs));
    struct process *p = &s->procs[s->proc_count++];
    *p = (struct process){ .domain = domain, .pid = pid };
    return p;
}

typedef bool (*line_fn)(struct symbolizer *s, void *table, const char *line);

/* Calls fn on each non-empty line of text (modified in place). */
static void each_line(struct symbolizer *s, char *text, void *table, line_fn fn)
{
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (*line && !fn(s, table, line))
            s->bad_records++;
    }
}

static bool kallsyms_cb(struct symbolizer *s, void *t, const char *l) { return kallsyms_line(s, t, l); }
static bool maps_cb(struct symbolizer *s, void *t, const char *l) { return maps_line(s, t, l); }
static bool jit_cb(struct symbolizer *s, void *t, const char *l) { return jit_line(s, t, l); }

/* CR3 bits that do not name an address space: the PCID (11:0) and, under
 * page-table isolation, bit 12, which selects the user half of the
 * kernel's 8 KiB page-table pair. */
#define CR3_SPACE_MASK (~0x1fffull)

static void bind_cr3(struct symbolizer *s, uint32_t domain, uint32_t pid, uint64_t cr3)
{
    cr3 &= CR3_SPACE_MASK;
    for (size_t i = 0; i < s->binding_count; i++)
        if (s->bindings[i].domain == domain && s->bindings[i].cr3 == cr3) {
            s->bindings[i].pid = pid;   /* the newest identity wins */
            return;
        }
    s->bindings = grow(s->bindings, &s->binding_cap, s->binding_count + 1, sizeof(*s->bindings));
    s->bindings[s->binding_count++] = (struct cr3_binding){ domain, pid, cr3 };
}

/* One "PID CR3 COMM" line of a process-identity set (hex CR3). */
static bool process_cb(struct symbolizer *s, void *t, const char *l)
{
    unsigned int pid;
    unsigned long long cr3;
    if (sscanf(l, "%u %llx", &pid, &cr3) != 2 || !pid || !cr3)
        return false;
    s->idents = grow(s->idents, &s->ident_cap, s->ident_count + 1, sizeof(*s->idents));
    s->idents[s->ident_count++] = (struct identity){ *(const uint32_t *)t, pid,
                                                     cr3 & CR3_SPACE_MASK, s->ident_tsc };
    return true;
}

static void load_kallsyms(struct symbolizer *s, struct ktable *k, char *text)
{
    k->count = 0;
    each_line(s, text, k, kallsyms_cb);
    qsort(k->syms, k->count, sizeof(*k->syms), ksym_cmp);
}

static void commit_set(struct symbolizer *s, struct pending *p)
{
    p->text[p->len] = '\0';
    if (p->key.kind == LOG_SYM_KALLSYMS) {
        load_kallsyms(s, ktable_for(s, p->key.domain, false), p->text);
    } else if (p->key.kind == LOG_SYM_PROC_MAPS) {
        struct process *proc = process_for(s, p->key.domain, p->key.pid);
        proc->count = 0;
        each_line(s, p->text, proc, maps_cb);
    } else if (p->key.kind == LOG_SYM_JIT_MAP) {
        s->jits = grow(s->jits, &s->jit_cap, s->jit_count + 1, sizeof(*s->jits));
        struct jit_set *j = &s->jits[s->jit_count++];
        *j = (struct jit_set){ .domain = p->key.domain, .pid = p->key.pid,
                               .epoch = p->key.epoch, .tsc = p->tsc };
        each_line(s, p->text, j, jit_cb);
        qsort(j->ents, j->count, sizeof(*j->ents), jit_cmp);
    } else if (p->key.kind == LOG_SYM_PROCESS) {
        s->ident_tsc = p->tsc;
        each_line(s, p->text, &p->key.domain, process_cb);
    }
}

static struct pending *pending_for(struct symbolizer *s, const struct log_symbols *r)
{
    for (size_t i = 0; i < s->pend_count; i++) {
        const struct log_symbols *k = &s->pend[i].key;
        if (k->domain == r->domain && k->kind == r->kind && k->pid == r->pid && k->epoch == r->epoch)
            return &s->pend[i];
    }
    s->pend = grow(s->pend, &s->pend_cap, s->pend_count + 1, sizeof(*s->pend));
    struct pending *p = &s->pend[s->pend_count++];
    *p = (struct pending){ .key = *r };
    p->key.data = NULL;
    return p;
}

static void pending_drop(struct symbolizer *s, struct pending *p)
{
    free(p->text);
    *p = s->pend[--s->pend_count];
}

bool sym_add_record(struct symbolizer *s, const struct log_symbols *rec, uint64_t tsc)
{
    if (rec->kind == 0 || rec->kind >= LOG_SYM_KIND_COUNT) {
        s->bad_records++;
        return false;
    }
    struct pending *p = pending_for(s, rec);
    if (rec->chunk != p->next_chunk) {
        s->bad_records++;
        pending_drop(s, p);
        return false;
    }
    if (rec->chunk == 0)
        p->tsc = tsc;
    p->text = grow(p->text, &p->cap, p->len + rec->len + 1, 1);
    memcpy(p->text + p->len, rec->data, rec->len);
    p->len += rec->len;
    p->next_chunk++;
    if (rec->last) {
        uint64_t before = s->bad_records;
        commit_set(s, p);
        pending_drop(s, p);
        return before == s->bad_records;
    }
    return true;
}

uint32_t sym_identity_seq_at(const struct symbolizer *s, uint64_t tsc)
{
    for (size_t i = s->ident_count; i-- > 0;)
        if (s->idents[i].tsc <= tsc)
            return (uint32_t)i + 1;
    return 0;
}

uint32_t sym_jit_seq_at(const struct symbolizer *s, uint32_t domain, uint64_t tsc)
{
    /* The last matching set: found at once when sets arrive in TSC order. */
    for (size_t i = s->jit_count; i-- > 0;)
        if (s->jits[i].domain == domain && s->jits[i].tsc <= tsc)
            return (uint32_t)i + 1;
    return 0;
}

/* ---- Lookups by mode -------------------------------------------------- */

/* The last of count elements of elem_size bytes, sorted by the uint64_t
 * at key_offset in each, whose key is at most key; NULL if none is. */
static const void *sorted_floor(const void *elems, size_t count, size_t elem_size,
                                size_t key_offset, uint64_t key)
{
    const char *base = elems;
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t k;
        memcpy(&k, base + mid * elem_size + key_offset, sizeof(k));
        if (k <= key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? base + (lo - 1) * elem_size : NULL;
}

static const struct ksym *ktable_find(const struct ktable *k, uint64_t addr)
{
    return sorted_floor(k->syms, k->count, sizeof(*k->syms), offsetof(struct ksym, addr), addr);
}

static void resolve_kernel(struct symbolizer *s, const struct sym_where *w, struct sym_frame *f)
{
    const struct ktable *k = NULL;
    for (size_t i = 0; i < s->ktable_count && !k; i++)
        if (s->ktables[i].from_file)
            k = &s->ktables[i];
    for (size_t i = 0; i < s->ktable_count && !k; i++)
        if (s->ktables[i].domain == w->domain)
            k = &s->ktables[i];
    const struct ksym *sym = k ? ktable_find(k, f->addr) : NULL;
    if (sym) {
        f->image = sym->image;
        f->function = function_get(s, sym->image, sym->name, NULL, 0, true);
    } else {
        f->image = image_get(s, KERNEL_IMAGE, 0, 0, 0);
        f->function = unknown_function(s, f->image, false, f->addr, 0);
    }
}

static void resolve_hypervisor(struct symbolizer *s, struct sym_frame *f)
{
    if (s->vertigo_elf >= 0) {
        const struct elf_image *e = &s->elves[s->vertigo_elf];
        elf_lookup(s, s->vertigo_elf, f->addr, f->addr - s->images[e->image].start, f);
        return;
    }
    f->image = image_get(s, "[vertigo]", 0, 0, 0);
    f->function = unknown_function(s, f->image, false, f->addr, 0);
}

static const struct map_entry *proc_find(const struct process *p, uint64_t addr)
{
    for (size_t i = 0; i < p->count; i++)
        if (p->maps[i].exec && addr >= p->maps[i].start && addr < p->maps[i].end)
            return &p->maps[i];
    return NULL;
}

static struct cr3_binding *binding_for(struct symbolizer *s, const struct sym_where *w)
{
    for (size_t i = 0; i < s->binding_count; i++)
        if (s->bindings[i].domain == w->domain &&
            s->bindings[i].cr3 == (w->cr3 & CR3_SPACE_MASK))
            return &s->bindings[i];
    return NULL;
}

/* The identity naming w's CR3 at the sample's time: the newest one
 * before it, else the first one after it (see sym_identity_seq_at). */
static const struct identity *identity_for(const struct symbolizer *s, const struct sym_where *w)
{
    uint64_t cr3 = w->cr3 & CR3_SPACE_MASK;
    size_t seq = w->identity_seq < s->ident_count ? w->identity_seq : s->ident_count;
    for (size_t i = seq; i-- > 0;)
        if (s->idents[i].domain == w->domain && s->idents[i].cr3 == cr3)
            return &s->idents[i];
    for (size_t i = seq; i < s->ident_count; i++)
        if (s->idents[i].domain == w->domain && s->idents[i].cr3 == cr3)
            return &s->idents[i];
    return NULL;
}

/* Process pid of domain when it maps addr executable, else NULL. */
static const struct process *pid_mapping(const struct symbolizer *s, uint32_t domain, uint32_t pid,
                                         uint64_t addr)
{
    for (size_t i = 0; i < s->proc_count; i++)
        if (s->procs[i].domain == domain && s->procs[i].pid == pid && proc_find(&s->procs[i], addr))
            return &s->procs[i];
    return NULL;
}

/* The process an address belongs to. Samples carry CR3, maps carry PID:
 * process-identity records ("PID CR3 COMM", from the guest's kernel
 * module) bind the two; failing that, the first address of a CR3 that only
 * one process maps binds them; otherwise the most recently described
 * process mapping it wins. */
static const struct process *pick_process(struct symbolizer *s, const struct sym_where *w,
                                          uint64_t addr)
{
    const struct identity *id = w->has_cr3 ? identity_for(s, w) : NULL;
    const struct process *named = id ? pid_mapping(s, w->domain, id->pid, addr) : NULL;
    if (named)
        return named;
    struct cr3_binding *b = w->has_cr3 ? binding_for(s, w) : NULL;
    named = b ? pid_mapping(s, w->domain, b->pid, addr) : NULL;
    if (named)
        return named;
    const struct process *found = NULL;
    unsigned matches = 0;
    for (size_t i = 0; i < s->proc_count; i++)
        if (s->procs[i].domain == w->domain && proc_find(&s->procs[i], addr)) {
            found = &s->procs[i];
            matches++;
        }
    if (matches == 1 && w->has_cr3 && !b)
        bind_cr3(s, w->domain, found->pid, w->cr3);
    return found;
}

static const struct jit_entry *jit_find(const struct jit_set *j, uint64_t addr)
{
    const struct jit_entry *e = sorted_floor(j->ents, j->count, sizeof(*j->ents),
                                             offsetof(struct jit_entry, start), addr);
    return e && addr - e->start < e->size ? e : NULL;
}

/* The JIT symbol for addr: the newest map set at jit_seq (of p's process
 * when known) that covers it. Newest first serves both ways an agent may
 * ship a perf-PID.map: whole again at each epoch, or only the new lines. */
static bool resolve_jit(struct symbolizer *s, const struct sym_where *w, const struct process *p,
                        struct sym_frame *f)
{
    for (size_t i = w->jit_seq; i-- > 0;) {
        const struct jit_set *j = &s->jits[i];
        if (j->domain != w->domain || (p && j->pid != p->pid))
            continue;
        const struct jit_entry *e = jit_find(j, f->addr);
        if (e) {
            char image[NAME_MAX_LEN];
            snprintf(image, sizeof(image), "perf-%u.map", j->pid);
            f->image = image_get(s, image, 0, 0, 0);
            f->function = function_get(s, f->image, e->name, NULL, 0, true);
            return true;
        }
    }
    return false;
}

static void resolve_user(struct symbolizer *s, const struct sym_where *w, struct sym_frame *f)
{
    const struct process *p = pick_process(s, w, f->addr);
    if (resolve_jit(s, w, p, f))
        return;
    const struct map_entry *m = p ? proc_find(p, f->addr) : NULL;
    if (!m) {
        f->image = image_get(s, ANON_IMAGE, 0, 0, 0);
        f->function = unknown_function(s, f->image, false, f->addr, 0);
        return;
    }
    uint64_t image_off = f->addr - m->start + m->offset;
    f->image = image_get(s, m->path ? m->path : ANON_IMAGE, m->start, m->end, m->offset);
    int idx = -1;
    if (m->path && s->opts.guest_root) {
        char path[2 * NAME_MAX_LEN];
        snprintf(path, sizeof(path), "%s/%s", s->opts.guest_root, m->path);
        idx = elf_open(s, path, m->start - m->offset, f->image);
    }
    if (idx >= 0)
        elf_lookup(s, idx, f->addr, image_off, f);
    else
        f->function = unknown_function(s, f->image, true, f->addr, image_off);
}

struct frame_probe {
    const struct symbolizer *s;
    struct frame_key key;
};

static bool frame_eq(const void *ctx, uint32_t v)
{
    const struct frame_probe *p = ctx;
    return !memcmp(&p->s->frame_keys[v], &p->key, sizeof(p->key));
}

uint32_t sym_resolve(struct symbolizer *s, const struct sym_where *w, uint64_t addr)
{
    struct frame_probe p = { s, { addr, (uint64_t)w->domain << 32 | w->jit_seq,
                                  (w->has_cr3 ? w->cr3 : UINT64_MAX) ^ ((uint64_t)w->mode << 62) } };
    uint64_t h = hash_mix(hash_mix(hash_mix(HASH_SEED, addr), p.key.where), p.key.space);
    uint32_t id = ptab_get(&s->frame_tab, h, frame_eq, &p, (uint32_t)s->frame_count);
    if (id != s->frame_count)
        return id;
    struct sym_frame f = { .addr = addr };
    if (w->mode == LOG_MODE_HYPERVISOR)
        resolve_hypervisor(s, &f);
    else if (w->mode == LOG_MODE_GUEST_KERNEL)
        resolve_kernel(s, w, &f);
    else
        resolve_user(s, w, &f);
    struct sym_image *img = &s->images[f.image];
    if (img->limit == 0) {
        img->start = addr;
        img->limit = addr + 1;
    } else if (addr < img->start) {
        img->start = addr;
    } else if (addr >= img->limit) {
        img->limit = addr + 1;
    }
    s->frames = grow(s->frames, &s->frame_cap, id + 1, sizeof(*s->frames));
    s->frame_keys = grow(s->frame_keys, &s->frame_key_cap, id + 1, sizeof(*s->frame_keys));
    s->frames[id] = f;
    s->frame_keys[id] = p.key;
    s->frame_count++;
    return id;
}

/* ---- Life cycle and accessors ----------------------------------------- */

static char *read_text_file(const char *path, char *err, size_t err_len)
{
    FILE *in = fopen(path, "rb");
    if (!in) {
        snprintf(err, err_len, "--kallsyms %s: %s", path, strerror(errno));
        return NULL;
    }
    char *text = NULL;
    size_t len = 0, cap = 0, n;
    do {
        text = grow(text, &cap, len + 65536 + 1, 1);
        n = fread(text + len, 1, 65536, in);
        len += n;
    } while (n > 0);
    fclose(in);
    text[len] = '\0';
    return text;
}

static bool open_options(struct symbolizer *s, char *err, size_t err_len)
{
    const struct sym_options *o = &s->opts;
    struct stat st;
    if (o->guest_root && stat(o->guest_root, &st) != 0) {
        snprintf(err, err_len, "--guest-root %s: %s", o->guest_root, strerror(errno));
        return false;
    }
    if (o->guest_root && !S_ISDIR(st.st_mode)) {
        snprintf(err, err_len, "--guest-root %s: not a directory", o->guest_root);
        return false;
    }
    if (o->kallsyms_path) {
        char *text = read_text_file(o->kallsyms_path, err, err_len);
        if (!text)
            return false;
        load_kallsyms(s, ktable_for(s, 0, true), text);
        free(text);
    }
    if (o->vertigo_elf) {
        uint32_t image = image_get(s, base_name(o->vertigo_elf), 0, 0, 0);
        s->vertigo_elf = elf_open(s, o->vertigo_elf, 0, image);
        if (s->vertigo_elf < 0) {
            snprintf(err, err_len, "--vertigo-elf %s: not a readable ELF file", o->vertigo_elf);
            return false;
        }
    }
    return true;
}

bool sym_vertigo_build_id(const struct symbolizer *s, uint8_t out[LOG_BUILD_ID_SIZE])
{
    if (s->vertigo_elf < 0)
        return false;
    const unsigned char *bits;
    GElf_Addr vaddr;
    int len = dwfl_module_build_id(s->elves[s->vertigo_elf].mod, &bits, &vaddr);
    if (len != (int)LOG_BUILD_ID_SIZE)
        return false;
    memcpy(out, bits, LOG_BUILD_ID_SIZE);
    return true;
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
    for (size_t i = 0; i < s->elf_count; i++)
        if (s->elves[i].dwfl)
            dwfl_end(s->elves[i].dwfl);
    for (size_t i = 0; i < s->string_count; i++)
        free((void *)s->strings[i]);
    for (size_t i = 0; i < s->ktable_count; i++)
        free(s->ktables[i].syms);
    for (size_t i = 0; i < s->proc_count; i++)
        free(s->procs[i].maps);
    for (size_t i = 0; i < s->jit_count; i++)
        free(s->jits[i].ents);
    for (size_t i = 0; i < s->pend_count; i++)
        free(s->pend[i].text);
    free(s->strings);
    free(s->string_tab.hash);
    free(s->string_tab.val);
    free(s->images);
    free(s->functions);
    free(s->function_tab.hash);
    free(s->function_tab.val);
    free(s->frames);
    free(s->frame_keys);
    free(s->frame_tab.hash);
    free(s->frame_tab.val);
    free(s->ktables);
    free(s->procs);
    free(s->jits);
    free(s->pend);
    free(s->elves);
    free(s->bindings);
    free(s->idents);
    free(s);
}

const struct sym_frame *sym_frame(const struct symbolizer *s, uint32_t id) { return &s->frames[id]; }
const struct sym_function *sym_function(const struct symbolizer *s, uint32_t id) { return &s->functions[id]; }
const struct sym_image *sym_image(const struct symbolizer *s, uint32_t id) { return &s->images[id]; }
uint32_t sym_function_count(const struct symbolizer *s) { return (uint32_t)s->function_count; }
uint32_t sym_image_count(const struct symbolizer *s) { return (uint32_t)s->image_count; }
uint64_t sym_bad_records(const struct symbolizer *s) { return s->bad_records; }
