/* Source lines and inlined functions of an address in an ELF file's DWARF
 * (see sym_internal.h), for any producer: libdw finds an address's
 * compile unit through .debug_aranges, which clang does not emit, so when
 * that lookup fails the compile units' own address ranges answer (indexed
 * once per file, sorted, then a binary search). Paths relative to a
 * unit's compilation directory are joined to it, and the inlined
 * subroutines around the address give the chain of functions it is in,
 * innermost first, each with its line. */
#include "host-tools/sym_internal.h"

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

/* The scopes holding addr as they nest in the code, innermost first:
 * dwarf_getscopes continues after an inlined subroutine with the scopes
 * of its abstract definition, so the concrete nesting is taken from the
 * innermost scope with dwarf_getscopes_die (as eu-addr2line -i does). */
static int concrete_scopes(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die **scopes)
{
    Dwarf_Die *found = NULL;
    int n = dwarf_getscopes(cu, pc, &found);
    Dwarf_Die innermost;
    if (n > 0)
        innermost = found[0];
    free(found);
    *scopes = NULL;
    return n > 0 ? dwarf_getscopes_die(&innermost, scopes) : 0;
}

size_t sym_dwarf_inlines(struct symbolizer *s, struct elf_image *e, uint64_t addr, uint32_t leaf_line,
                         struct sym_inline *out, size_t max, uint32_t *call_line)
{
    Dwarf_Die cu, *scopes = NULL;
    Dwarf_Addr bias;
    *call_line = 0;
    int n = unit_of(e, addr, &cu, &bias) ? concrete_scopes(&cu, addr - bias, &scopes) : 0;
    size_t count = 0;
    uint32_t line = leaf_line;
    for (int i = 0; i < n && count < max; i++) {
        if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
            continue;
        const char *name;
        char file[SYM_PATH_MAX], clean_name[SYM_NAME_MAX], clean_file[SYM_NAME_MAX];
        uint32_t decl_line;
        if (!inlined_function(&cu, &scopes[i], &name, file, &decl_line))
            break;
        snprintf(clean_name, sizeof(clean_name), "%.*s", (int)SYM_NAME_MAX - 1, name);
        snprintf(clean_file, sizeof(clean_file), "%.*s", (int)SYM_NAME_MAX - 1, file);
        sym_clean(clean_name);
        sym_clean(clean_file);
        out[count].function = sym_function_get(s, e->image, clean_name,
                                               clean_file[0] ? clean_file : NULL, decl_line, true);
        out[count++].line = line;
        Dwarf_Attribute attr;
        Dwarf_Word call = 0;
        dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &attr), &call);
        line = (uint32_t)call;       /* the line in the function it was inlined into */
    }
    free(scopes);
    *call_line = count ? line : 0;
    return count;
}
