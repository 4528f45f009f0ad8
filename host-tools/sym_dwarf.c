/* Source lines and inlined functions of an address in an ELF file's DWARF
 * (see sym_internal.h), for any producer: libdw finds an address's
 * compile unit through .debug_aranges, which clang does not emit, so when
 * that lookup fails the compile units' own address ranges answer (indexed
 * once per file, sorted, then a binary search). Paths relative to a
 * unit's compilation directory are joined to it, and the inlined
 * subroutines around the address give the chain of functions it is in,
 * innermost first, each with its line. */
#include "host-tools/sym_internal.h"
#include "host-tools/out_of_memory.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cu_range {
    uint64_t low, high;          /* [low, high), module addresses */
    Dwarf_Die die;
    uint64_t bias;
};

static int range_cmp(const void *a, const void *b)
{
    const struct cu_range *x = a, *y = b;
    return x->low < y->low ? -1 : x->low > y->low;
}

/* Every address range of every compile unit of e, sorted by start. */
static void index_units(struct elf_image *e)
{
    e->cus_built = true;
    Dwarf_Die *cu = NULL;
    Dwarf_Addr bias;
    size_t cap = 0;
    while ((cu = dwfl_module_nextcu(e->mod, cu, &bias)) != NULL) {
        Dwarf_Addr base, start, end;
        for (ptrdiff_t off = 0; (off = dwarf_ranges(cu, off, &base, &start, &end)) > 0;) {
            if (end <= start)
                continue;
            e->cus = sym_grow(e->cus, &cap, e->cu_count + 1, sizeof(struct cu_range));
            ((struct cu_range *)e->cus)[e->cu_count++] =
                (struct cu_range){ start + bias, end + bias, *cu, bias };
        }
    }
    if (e->cu_count)
        qsort(e->cus, e->cu_count, sizeof(struct cu_range), range_cmp);
}

/* The compile unit holding addr (a module address), into *cu and *bias. */
static bool unit_of(struct elf_image *e, uint64_t addr, Dwarf_Die *cu, Dwarf_Addr *bias)
{
    Dwarf_Die *die = dwfl_module_addrdie(e->mod, addr, bias);
    if (die) {
        *cu = *die;
        return true;
    }
    if (!e->cus_built)
        index_units(e);
    const struct cu_range *r = e->cus;
    size_t lo = 0, hi = e->cu_count;
    while (lo < hi) {                /* the last range starting at or before addr */
        size_t mid = lo + (hi - lo) / 2;
        if (r[mid].low <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo || addr >= r[lo - 1].high)
        return false;
    *cu = r[lo - 1].die;
    *bias = r[lo - 1].bias;
    return true;
}

/* file, joined to the unit's compilation directory when it is relative. */
static const char *unit_path(Dwarf_Die *cu, const char *file, char out[SYM_PATH_MAX])
{
    Dwarf_Attribute attr;
    const char *dir = file && file[0] != '/' ? dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr))
                                             : NULL;
    if (!dir || !dir[0])
        return file;
    size_t n = strlen(dir);
    snprintf(out, SYM_PATH_MAX, "%s%s%s", dir, dir[n - 1] == '/' ? "" : "/", file);
    return out;
}

bool sym_dwarf_line(struct elf_image *e, uint64_t addr, char file[SYM_PATH_MAX], uint32_t *line)
{
    Dwarf_Die cu;
    Dwarf_Addr bias;
    Dwarf_Line *l = unit_of(e, addr, &cu, &bias) ? dwarf_getsrc_die(&cu, addr - bias) : NULL;
    int lineno = 0;
    const char *name = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
    if (!name || dwarf_lineno(l, &lineno) != 0 || lineno <= 0)
        return false;
    char joined[SYM_PATH_MAX];
    snprintf(file, SYM_PATH_MAX, "%s", unit_path(&cu, name, joined));
    *line = (uint32_t)lineno;
    return true;
}

/* The name, declaration file and line of an inlined subroutine's function. */
static bool inlined_function(Dwarf_Die *cu, Dwarf_Die *scope, const char **name, char *file,
                             uint32_t *line)
{
    Dwarf_Attribute attr;
    *name = dwarf_formstring(dwarf_attr_integrate(scope, DW_AT_name, &attr));
    const char *decl = dwarf_decl_file(scope);
    int decl_line = 0;
    char joined[SYM_PATH_MAX];
    file[0] = '\0';
    if (decl)
        snprintf(file, SYM_PATH_MAX, "%s", unit_path(cu, decl, joined));
    *line = dwarf_decl_line(scope, &decl_line) == 0 && decl_line > 0 ? (uint32_t)decl_line : 0;
    return *name != NULL;
}

#define SCOPE_DEPTH_MAX 64u          /* nested scopes followed at most */

enum scope_kind {
    SCOPE_OTHER,                 /* nothing below it holds code */
    SCOPE_CODE,                  /* may hold pc: a function, block, inlined call... */
    SCOPE_OWNER,                 /* no addresses, but may own functions (C++) */
    SCOPE_IMPORT,                /* an imported unit: its DIEs count as here */
};

/* How the scope walk treats die: as libdw's dwarf_getscopes does. */
static enum scope_kind scope_kind(Dwarf_Die *die)
{
    switch (dwarf_tag(die)) {
    case DW_TAG_compile_unit: case DW_TAG_module: case DW_TAG_lexical_block:
    case DW_TAG_with_stmt: case DW_TAG_catch_block: case DW_TAG_try_block:
    case DW_TAG_entry_point: case DW_TAG_inlined_subroutine: case DW_TAG_subprogram:
        return SCOPE_CODE;
    case DW_TAG_namespace: case DW_TAG_class_type: case DW_TAG_structure_type:
        return SCOPE_OWNER;
    case DW_TAG_imported_unit:
        return SCOPE_IMPORT;
    default:
        return SCOPE_OTHER;
    }
}

static unsigned int descend(Dwarf_Die *die, Dwarf_Addr pc, Dwarf_Die *path, unsigned int depth);

/* One child of the scope walk at depth (holds: whether a SCOPE_CODE child
 * holds pc): the depth the walk reached through it if it ends there, or
 * depth to go on with the next sibling. */
static unsigned int visit(Dwarf_Die *child, enum scope_kind kind, bool holds, Dwarf_Addr pc,
                          Dwarf_Die *path, unsigned int depth)
{
    Dwarf_Attribute attr;
    Dwarf_Die imported;
    unsigned int reached = depth;
    switch (kind) {
    case SCOPE_CODE:
        if (!holds)
            break;
        path[depth] = *child;
        return descend(child, pc, path, depth + 1);
    case SCOPE_OWNER:
        path[depth] = *child;
        reached = descend(child, pc, path, depth + 1);
        return reached > depth + 1 ? reached : depth;
    case SCOPE_IMPORT:
        if (dwarf_formref_die(dwarf_attr(child, DW_AT_import, &attr), &imported))
            reached = descend(&imported, pc, path, depth);
        break;
    case SCOPE_OTHER:
        break;
    }
    return reached;
}

/* The scopes below die that hold pc, outermost first, into path from
 * depth on; returns the depth reached (depth itself if none holds it).
 * The first child holding pc is followed, as dwarf_getscopes does, and
 * the DIEs passed through are, in order, what dwarf_getscopes_die gives
 * for the innermost: the concrete nesting, not the abstract definitions
 * an inlined subroutine refers to. */
static unsigned int descend(Dwarf_Die *die, Dwarf_Addr pc, Dwarf_Die *path, unsigned int depth)
{
    Dwarf_Die child;
    if (depth >= SCOPE_DEPTH_MAX || dwarf_child(die, &child) != 0)
        return depth;
    do {
        enum scope_kind kind = scope_kind(&child);
        bool holds = kind == SCOPE_CODE && dwarf_haspc(&child, pc) > 0;
        unsigned int reached = visit(&child, kind, holds, pc, path, depth);
        if (reached > depth)
            return reached;
    } while (dwarf_siblingof(&child, &child) == 0);
    return depth;
}

/* ---- A unit's direct children ------------------------------------------------
 * Most of a unit's functions are its direct children, and descend would
 * ask dwarf_haspc of each in turn (reading its attributes again) for
 * every chain: the kind and address ranges of each are read once per
 * unit, and the walk's first level looks there. dwarf_haspc answers
 * whether one of the ranges dwarf_ranges gives before it ends or fails
 * holds pc, which is what the ranges kept answer. */

struct unit_top {
    Dwarf_Die die;
    enum scope_kind kind;
    size_t first, count;         /* its ranges: ranges[first, first + count) */
};

struct sym_unit_tops {
    struct unit_top *tops;
    size_t count, cap;
    struct top_range { uint64_t start, end; } *ranges;
    size_t range_count, range_cap;
};

static struct sym_unit_tops *unit_tops(Dwarf_Die *cu)
{
    struct sym_unit_tops *t = calloc(1, sizeof(*t));
    Dwarf_Die child;
    if (!t)
        vertigo_out_of_memory();
    if (dwarf_child(cu, &child) != 0)
        return t;
    do {
        struct unit_top top = { child, scope_kind(&child), t->range_count, 0 };
        Dwarf_Addr base, start, end;
        for (ptrdiff_t off = 0;
             top.kind == SCOPE_CODE && (off = dwarf_ranges(&child, off, &base, &start, &end)) > 0;) {
            t->ranges = sym_grow(t->ranges, &t->range_cap, t->range_count + 1, sizeof(*t->ranges));
            t->ranges[t->range_count++] = (struct top_range){ start, end };
            top.count++;
        }
        t->tops = sym_grow(t->tops, &t->cap, t->count + 1, sizeof(*t->tops));
        t->tops[t->count++] = top;
    } while (dwarf_siblingof(&child, &child) == 0);
    return t;
}

static bool top_holds(const struct sym_unit_tops *t, const struct unit_top *top, Dwarf_Addr pc)
{
    for (size_t i = top->first; i < top->first + top->count; i++)
        if (pc >= t->ranges[i].start && pc < t->ranges[i].end)
            return true;
    return false;
}

/* descend(cu, pc, path, 0) through the unit's children read once. */
static unsigned int descend_unit(const struct sym_unit_tops *t, Dwarf_Addr pc, Dwarf_Die *path)
{
    for (size_t i = 0; i < t->count; i++) {
        Dwarf_Die child = t->tops[i].die;
        bool holds = t->tops[i].kind == SCOPE_CODE && top_holds(t, &t->tops[i], pc);
        unsigned int reached = visit(&child, t->tops[i].kind, holds, pc, path, 0);
        if (reached > 0)
            return reached;
    }
    return 0;
}

static void unit_tops_free(struct sym_unit_tops *t)
{
    if (!t)
        return;
    free(t->tops);
    free(t->ranges);
    free(t);
}

/* The inline chain of pc (a unit address), innermost first, as links. */
static size_t find_chain(struct symbolizer *s, struct elf_image *e, Dwarf_Die *cu,
                         const struct sym_unit_tops *tops, Dwarf_Addr pc, struct sym_chain_link *out,
                         size_t max)
{
    Dwarf_Die scopes[SCOPE_DEPTH_MAX];
    unsigned int depth = descend_unit(tops, pc, scopes);
    size_t count = 0;
    for (unsigned int k = depth; k-- > 0 && count < max;) {    /* innermost first */
        Dwarf_Die *scope = &scopes[k];
        if (dwarf_tag(scope) != DW_TAG_inlined_subroutine)
            continue;
        const char *name;
        char file[SYM_PATH_MAX], clean_name[SYM_NAME_MAX], clean_file[SYM_NAME_MAX];
        uint32_t decl_line;
        if (!inlined_function(cu, scope, &name, file, &decl_line))
            break;
        snprintf(clean_name, sizeof(clean_name), "%.*s", (int)SYM_NAME_MAX - 1, name);
        snprintf(clean_file, sizeof(clean_file), "%.*s", (int)SYM_NAME_MAX - 1, file);
        sym_clean(clean_name);
        sym_clean(clean_file);
        out[count].function = sym_function_get(s, e->image, clean_name,
                                               clean_file[0] ? clean_file : NULL, decl_line, true);
        Dwarf_Attribute attr;
        Dwarf_Word call = 0;
        dwarf_formudata(dwarf_attr(scope, DW_AT_call_line, &attr), &call);
        out[count++].call_line = (uint32_t)call;   /* the line in the function it was inlined into */
    }
    return count;
}

/* ---- Inline chains by interval ----------------------------------------------
 * dwarf_getscopes reads a whole compile unit's DIEs for each address; which
 * scopes hold an address changes only at the ends of the unit's DIEs'
 * address ranges, so a chain is found once per interval between them. */

#define UNIT_NESTING_MAX 64u         /* imported units followed at most this deep */

/* The ends of the address ranges of every DIE below die (imported units
 * followed, as dwarf_getscopes follows them). */
static void range_bounds(Dwarf_Die *die, unsigned int depth, uint64_t **b, size_t *n, size_t *cap)
{
    Dwarf_Die child;
    if (depth > UNIT_NESTING_MAX || dwarf_child(die, &child) != 0)
        return;
    do {
        Dwarf_Addr base, start, end;
        for (ptrdiff_t off = 0; (off = dwarf_ranges(&child, off, &base, &start, &end)) > 0;) {
            sym_bounds_push(b, n, cap, start);
            sym_bounds_push(b, n, cap, end);
        }
        Dwarf_Attribute attr;
        Dwarf_Die imported;
        if (dwarf_tag(&child) == DW_TAG_imported_unit &&
            dwarf_formref_die(dwarf_attr(&child, DW_AT_import, &attr), &imported))
            range_bounds(&imported, depth + 1, b, n, cap);
        range_bounds(&child, depth + 1, b, n, cap);
    } while (dwarf_siblingof(&child, &child) == 0);
}

static struct sym_unit_chains *unit_chains(struct elf_image *e, Dwarf_Die *cu)
{
    uint32_t i = keymap_get(&e->unit_chains, dwarf_dieoffset(cu), 0, 0, (uint32_t)e->unit_count);
    if (i < e->unit_count)
        return &e->units[i];
    e->units = sym_grow(e->units, &e->unit_cap, e->unit_count + 1, sizeof(*e->units));
    struct sym_unit_chains *u = &e->units[e->unit_count++];
    *u = (struct sym_unit_chains){ 0 };
    uint64_t *b = NULL;
    size_t n = 0, cap = 0;
    range_bounds(cu, 0, &b, &n, &cap);
    sym_intervals_build(&u->intervals, b, n);
    u->tops = unit_tops(cu);
    return u;
}

size_t sym_dwarf_inlines(struct symbolizer *s, struct elf_image *e, uint64_t addr, uint32_t leaf_line,
                         struct sym_inline *out, size_t max, uint32_t *call_line)
{
    Dwarf_Die cu;
    Dwarf_Addr bias;
    *call_line = 0;
    if (!unit_of(e, addr, &cu, &bias))
        return 0;
    struct sym_unit_chains *u = unit_chains(e, &cu);
    uint32_t *slot = sym_intervals_slot(&u->intervals, addr - bias);
    if (!*slot) {
        u->links = sym_grow(u->links, &u->link_cap, u->link_count + SYM_INLINE_MAX,
                            sizeof(*u->links));
        size_t count = find_chain(s, e, &cu, u->tops, addr - bias, &u->links[u->link_count],
                                  SYM_INLINE_MAX);
        u->answers = sym_grow(u->answers, &u->answer_cap, u->answer_count + 1, sizeof(*u->answers));
        u->answers[u->answer_count++] = (struct sym_chain_answer){ (uint32_t)u->link_count,
                                                                   (uint32_t)count };
        u->link_count += count;
        *slot = (uint32_t)u->answer_count;
    }
    const struct sym_chain_answer *a = &u->answers[*slot - 1];
    size_t count = a->count < max ? a->count : max;
    uint32_t line = leaf_line;
    for (size_t i = 0; i < count; i++) {
        out[i] = (struct sym_inline){ u->links[a->first + i].function, line };
        line = u->links[a->first + i].call_line;
    }
    *call_line = count ? line : 0;
    return count;
}

void sym_dwarf_free(struct elf_image *e)
{
    for (size_t i = 0; i < e->unit_count; i++) {
        sym_intervals_free(&e->units[i].intervals);
        free(e->units[i].answers);
        free(e->units[i].links);
        unit_tops_free(e->units[i].tops);
    }
    free(e->units);
    keymap_free(&e->unit_chains);
}
