/* An ELF module's symbols by address (see sym_internal.h): the answer
 * libdwfl's dwfl_module_addrinfo gives, from a table read once per module
 * instead of libdwfl's walk through every symbol of the file on every
 * question (about 280 instructions a symbol, libelf underneath).
 *
 * libdwfl's choice, reproduced here rule for rule (elfutils 0.188,
 * adjust_st_value off, as dwfl_module_addrinfo asks):
 *   - it looks at named symbols of a defined section, not of type SECTION,
 *     FILE or TLS, whose value is at or below the address, global symbols
 *     first (the table's order from its first global on), then the locals
 *     (only when the globals gave no sized symbol holding the address and
 *     no sizeless symbol exactly at it);
 *   - a sized symbol holding the address wins over the one kept so far if
 *     it starts higher or binds stronger (global, weak, local, other), or,
 *     at the same start, if it is smaller and binds no weaker or as large
 *     and binds stronger; the first found wins a tie;
 *   - with no sized symbol, a sizeless one (an assembly label) in the
 *     address's section (an absolute one: exactly at it) is kept, the last
 *     found whose value is at least every earlier symbol's end, and named
 *     only if it is at least every symbol's end in the end;
 *   - "the section" of an address is found by binary search over the
 *     module's allocated sections sorted by start, a section's end counted
 *     in it unless the next one starts there.
 * The common case, a sized symbol holding the address, is found by binary
 * search over the sized symbols sorted by start; anything else takes the
 * rules above over the whole table. test_sym_table.c checks every answer
 * against dwfl_module_addrinfo at every boundary of several binaries.
 * Other machines (function descriptors, mode bits in addresses) and
 * relocatable files are left to libdwfl itself. */
#include "host-tools/sym_internal.h"

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdlib.h>

#define CANDIDATES_MAX 64u      /* sized symbols holding one address; more: the full rules */

/* libdwfl's binding preference, higher is better. */
static uint8_t binding_rank(unsigned char info)
{
    switch (GELF_ST_BIND(info)) {
    case STB_GLOBAL: return 3;
    case STB_WEAK:   return 2;
    case STB_LOCAL:  return 1;
    default:         return 0;
    }
}

/* ---- Sections ------------------------------------------------------------ */

static void sections_read(struct sym_table *t, Elf *elf, Dwarf_Addr bias)
{
    Elf_Scn *scn = NULL;
    size_t cap = 0;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
            continue;
        t->secs = sym_grow(t->secs, &cap, t->sec_count + 1, sizeof(*t->secs));
        t->secs[t->sec_count++] = (struct sym_table_section){
            sh.sh_addr + bias, sh.sh_addr + bias + sh.sh_size, (uint32_t)elf_ndxscn(scn) };
    }
    /* by start, equal starts in section order (a stable sort, as libdwfl's) */
    for (size_t i = 1; i < t->sec_count; i++) {
        struct sym_table_section s = t->secs[i];
        size_t j = i;
        for (; j > 0 && t->secs[j - 1].start > s.start; j--)
            t->secs[j] = t->secs[j - 1];
        t->secs[j] = s;
    }
}

/* The index of the section holding addr by libdwfl's search (0: none). */
static uint32_t section_of(const struct sym_table *t, uint64_t addr)
{
    size_t l = 0, u = t->sec_count;
    while (l < u) {
        size_t idx = (l + u) / 2;
        if (addr < t->secs[idx].start)
            u = idx;
        else if (addr > t->secs[idx].end)
            l = idx + 1;
        else {
            if (addr == t->secs[idx].end && idx + 1 < t->sec_count && addr == t->secs[idx + 1].start)
                idx++;
            return t->secs[idx].ndx;
        }
    }
    return 0;
}

/* ---- Building ------------------------------------------------------------ */

static void push_symbol(struct sym_table *t, Dwfl_Module *mod, int i, size_t *cap)
{
    GElf_Sym sym;
    GElf_Addr value;
    GElf_Word shndx;
    const char *name = dwfl_module_getsym_info(mod, i, &sym, &value, &shndx, NULL, NULL);
    if (!name || !name[0] || sym.st_shndx == SHN_UNDEF || GELF_ST_TYPE(sym.st_info) == STT_SECTION ||
        GELF_ST_TYPE(sym.st_info) == STT_FILE || GELF_ST_TYPE(sym.st_info) == STT_TLS)
        return;
    t->all = sym_grow(t->all, cap, t->count + 1, sizeof(*t->all));
    t->all[t->count++] = (struct sym_table_entry){
        .value = value, .size = sym.st_size, .name = name,
        .section = shndx >= SHN_LORESERVE ? 0 : section_of(t, value),
        .bind = binding_rank(sym.st_info), .absolute = shndx >= SHN_LORESERVE };
}

static int sized_cmp(const void *a, const void *b)
{
    const struct sym_table_sized *x = a, *y = b;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    return x->entry < y->entry ? -1 : x->entry > y->entry;
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The values of the sizeless global symbols, sorted. */
static void index_sizeless_globals(struct sym_table *t)
{
    t->sizeless_globals = sym_calloc(t->global_count + 1, sizeof(*t->sizeless_globals));
    for (size_t i = 0; i < t->global_count; i++)
        if (!t->all[i].size)
            t->sizeless_globals[t->sizeless_global_count++] = t->all[i].value;
    qsort(t->sizeless_globals, t->sizeless_global_count, sizeof(uint64_t), u64_cmp);
}

/* The sized symbols by start, with the highest end up to each (an end
 * past 2^64 counts as 2^64 - 1: only the search uses it). */
static void index_sized(struct sym_table *t)
{
    t->sized = sym_calloc(t->count + 1, sizeof(*t->sized));
    for (size_t i = 0; i < t->count; i++)
        if (t->all[i].size)
            t->sized[t->sized_count++] = (struct sym_table_sized){ t->all[i].value, 0, (uint32_t)i };
    qsort(t->sized, t->sized_count, sizeof(*t->sized), sized_cmp);
    uint64_t max = 0;
    for (size_t k = 0; k < t->sized_count; k++) {
        const struct sym_table_entry *e = &t->all[t->sized[k].entry];
        uint64_t end = e->value + e->size < e->value ? UINT64_MAX : e->value + e->size;
        max = end > max ? end : max;
        t->sized[k].max_end = max;
    }
}

/* True for a module whose symbols this file can answer for exactly. */
static bool answerable(Dwfl_Module *mod, Elf **elf, Dwarf_Addr *bias)
{
    GElf_Ehdr eh;
    *elf = dwfl_module_getelf(mod, bias);
    return *elf && gelf_getehdr(*elf, &eh) && eh.e_type != ET_REL &&
           (eh.e_machine == EM_X86_64 || eh.e_machine == EM_386);
}

void sym_table_build(struct sym_table *t, void *module)
{
    Dwfl_Module *mod = module;
    Elf *elf;
    Dwarf_Addr bias;
    *t = (struct sym_table){ .built = true, .own = answerable(mod, &elf, &bias) };
    if (!t->own)
        return;
    sections_read(t, elf, bias);
    int count = dwfl_module_getsymtab(mod);
    int first_global = dwfl_module_getsymtab_first_global(mod);
    size_t cap = 0;
    if (count > 0 && first_global >= 0) {
        for (int i = first_global ? first_global : 1; i < count; i++)
            push_symbol(t, mod, i, &cap);
        t->global_count = t->count;
        t->local_pass = first_global > 1;
        for (int i = 1; t->local_pass && i < first_global; i++)
            push_symbol(t, mod, i, &cap);
    }
    index_sized(t);
    index_sizeless_globals(t);
}

void sym_table_free(struct sym_table *t)
{
    free(t->all);
    free(t->secs);
    free(t->sized);
    free(t->sizeless_globals);
    *t = (struct sym_table){ 0 };
}

/* ---- Looking up ---------------------------------------------------------- */

/* libdwfl's search, every rule, over the whole table. */
struct full_search {
    const struct sym_table *t;
    uint64_t addr;
    const struct sym_table_entry *closest, *sizeless;
    uint64_t min_label;
    uint32_t addr_section;
    bool addr_section_known;
};

static bool same_section(struct full_search *f, const struct sym_table_entry *e)
{
    if (e->absolute)
        return e->value == f->addr;
    if (!f->addr_section_known) {
        f->addr_section = section_of(f->t, f->addr);
        f->addr_section_known = true;
    }
    return e->section == f->addr_section;
}

/* Whether a sized e, holding the address, replaces c: see the rules above. */
static bool sized_better(const struct sym_table_entry *c, const struct sym_table_entry *e)
{
    if (!c || c->value < e->value || c->bind < e->bind)
        return true;
    return c->value == e->value && ((c->size > e->size && c->bind <= e->bind) ||
                                    (c->size >= e->size && c->bind < e->bind));
}

static void full_try(struct full_search *f, const struct sym_table_entry *e)
{
    if (e->value + e->size > f->min_label)      /* unsigned, as libdwfl's */
        f->min_label = e->value + e->size;
    if (e->size && f->addr - e->value < e->size) {
        if (sized_better(f->closest, e))
            f->closest = e;
    } else if (!e->size && !f->closest && e->value >= f->min_label && same_section(f, e)) {
        f->sizeless = e;
    }
}

static void full_pass(struct full_search *f, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (f->t->all[i].value <= f->addr)
            full_try(f, &f->t->all[i]);
}

static const struct sym_table_entry *full_lookup(const struct sym_table *t, uint64_t addr)
{
    struct full_search f = { .t = t, .addr = addr };
    full_pass(&f, 0, t->global_count);
    if (!f.closest && t->local_pass && (!f.sizeless || f.sizeless->value != addr))
        full_pass(&f, t->global_count, t->count);
    if (!f.closest && f.sizeless && f.sizeless->value >= f.min_label)
        return f.sizeless;
    return f.closest;
}

/* The sized symbols holding addr, in search order; false when more than
 * max do. */
static bool holders(const struct sym_table *t, uint64_t addr, uint32_t *out, size_t max, size_t *n)
{
    size_t lo = 0, hi = t->sized_count;        /* sized symbols starting at or below addr */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->sized[mid].value <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    *n = 0;
    for (size_t k = lo; k-- > 0 && t->sized[k].max_end > addr;) {
        uint32_t entry = t->sized[k].entry;
        const struct sym_table_entry *e = &t->all[entry];
        if (addr - e->value >= e->size)
            continue;
        if (*n == max)
            return false;
        size_t j = (*n)++;                        /* insertion by search order */
        for (; j > 0 && out[j - 1] > entry; j--)
            out[j] = out[j - 1];
        out[j] = entry;
    }
    return true;
}

/* A sizeless global symbol exactly at addr could stop the local pass:
 * such addresses take the full rules. */
static bool sizeless_global_at(const struct sym_table *t, uint64_t addr)
{
    return t->sizeless_global_count &&
           bsearch(&addr, t->sizeless_globals, t->sizeless_global_count, sizeof(uint64_t), u64_cmp);
}

const char *sym_table_lookup(struct sym_table *t, void *module, uint64_t addr, uint64_t *start,
                             uint64_t *size)
{
    if (!t->built)
        sym_table_build(t, module);
    if (!t->own) {
        GElf_Off off = 0;
        GElf_Sym sym;
        const char *name = dwfl_module_addrinfo(module, addr, &off, &sym, NULL, NULL, NULL);
        *start = addr - off;
        *size = name ? sym.st_size : 0;
        return name;
    }
    uint32_t found[CANDIDATES_MAX];
    size_t n;
    const struct sym_table_entry *best = NULL;
    if (holders(t, addr, found, CANDIDATES_MAX, &n) && n) {
        size_t globals = 0;
        while (globals < n && found[globals] < t->global_count)
            globals++;
        size_t pass_end = globals ? globals : n;     /* libdwfl's pass that finds them */
        if (globals || !sizeless_global_at(t, addr))
            for (size_t k = 0; k < pass_end; k++)
                best = sized_better(best, &t->all[found[k]]) ? &t->all[found[k]] : best;
    }
    if (!best)
        best = full_lookup(t, addr);
    *start = best ? best->value : addr;
    *size = best ? best->size : 0;
    return best ? best->name : NULL;
}
