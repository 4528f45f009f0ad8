/* The symbolizer's symbol table (host-tools/sym_table.c) against its
 * referee, libdwfl's dwfl_module_addrinfo: the same name, start and size
 * at the addresses where an answer can change (every symbol's start,
 * start + 1 and end, every section's start, end and end + 1, one below
 * each) and at every sizeless or absolute symbol, in binaries of several
 * kinds: static programs by gcc and clang, the hypervisor stand-in, the
 * hypervisor itself (assembly labels without sizes), the host's vertigo
 * (position independent) and the C library (a dynamic symbol table only),
 * also loaded at a process's address. */
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <unistd.h>

#include "host-tools/sym_internal.h"
#include "tests/fixtures/profile/gen_profile.h"
#include "tests/unit/unit.h"

#define PATH_LEN 512u
#define CHECKED_MAX 1500u        /* addresses asked of libdwfl per file (it walks every symbol) */

static const Dwfl_Callbacks offline = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

struct addrs {
    uint64_t *a;
    size_t n, cap;
};

static void push(struct addrs *s, uint64_t v)
{
    s->a = sym_grow(s->a, &s->cap, s->n + 1, sizeof(*s->a));
    s->a[s->n++] = v;
}

static void push_around(struct addrs *s, uint64_t v)
{
    push(s, v - 1);
    push(s, v);
    push(s, v + 1);
}

/* Every address where an answer can change, and every special symbol's. */
static void boundaries(Dwfl_Module *mod, struct addrs *all, struct addrs *special)
{
    Dwarf_Addr bias;
    Elf *elf = dwfl_module_getelf(mod, &bias);
    Elf_Scn *scn = NULL;
    while (elf && (scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            continue;
        push_around(all, sh.sh_addr + bias);
        push_around(all, sh.sh_addr + sh.sh_size + bias);
    }
    int count = dwfl_module_getsymtab(mod);
    for (int i = 1; i < count; i++) {
        GElf_Sym sym;
        GElf_Addr value;
        GElf_Word shndx;
        if (!dwfl_module_getsym_info(mod, i, &sym, &value, &shndx, NULL, NULL))
            continue;
        push_around(all, value);
        push_around(all, value + sym.st_size);
        if (!sym.st_size || shndx >= SHN_LORESERVE)
            push_around(special, value);
    }
}

/* Mismatches between the table and libdwfl at addr (printed). */
static unsigned compare_at(struct sym_table *t, Dwfl_Module *mod, const char *path, uint64_t addr)
{
    uint64_t start = 0, size = 0;
    const char *mine = sym_table_lookup(t, mod, addr, &start, &size);
    GElf_Off off = 0;
    GElf_Sym sym;
    const char *theirs = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
    bool same = mine == theirs && (!theirs || (start == addr - off && size == sym.st_size));
    if (!same)
        printf("  %s at 0x%" PRIx64 ": table %s+0x%" PRIx64 " (size %" PRIu64 "), libdwfl %s+0x%" PRIx64 "\n",
               path, addr, mine ? mine : "(none)", addr - start, size, theirs ? theirs : "(none)",
               (uint64_t)off);
    return !same;
}

/* Compares every special address and up to CHECKED_MAX others, spread
 * evenly, in path reported offline or (base != 0) loaded at base as a
 * process's library is; returns the number of addresses compared (0: the
 * file did not open). */
static size_t compare_file(const char *path, uint64_t base, unsigned *mismatches)
{
    Dwfl *dwfl = dwfl_begin(&offline);
    Dwfl_Module *mod = !dwfl ? NULL
                       : base ? dwfl_report_elf(dwfl, path, path, -1, base, false)
                              : dwfl_report_offline(dwfl, path, path, -1);
    if (!mod) {
        if (dwfl)
            dwfl_end(dwfl);
        return 0;
    }
    dwfl_report_end(dwfl, NULL, NULL);
    struct addrs all = { 0 }, special = { 0 };
    boundaries(mod, &all, &special);
    struct sym_table t = { 0 };
    size_t compared = 0, stride = all.n / CHECKED_MAX + 1;
    for (size_t i = 0; i < special.n; i++, compared++)
        *mismatches += compare_at(&t, mod, path, special.a[i]);
    for (size_t i = 0; i < all.n; i += stride, compared++)
        *mismatches += compare_at(&t, mod, path, all.a[i]);
    sym_table_free(&t);
    free(all.a);
    free(special.a);
    dwfl_end(dwfl);
    return compared;
}

TEST(symbol_table_answers_as_libdwfl_does)
{
    char build[PATH_LEN], path[PATH_LEN * 2];
    if (!CHECK(gen_build_dir(build, sizeof(build))))
        return;
    static const char *const in_build[] = {
        "profile/root/bin/workload", "profile/workload-clang", "profile/inlined",
        "profile/hvmini", "profile/minikernel", "vertigo.elf", "vertigo",
    };
    unsigned mismatches = 0;
    for (size_t i = 0; i < sizeof(in_build) / sizeof(in_build[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", build, in_build[i]);
        size_t n = compare_file(path, 0, &mismatches);
        if (!CHECK(n > 100))
            printf("  %s: %zu addresses compared\n", path, n);
    }
    /* The C library (present on every machine that runs these tests),
     * also where a process would map it (symbols and sections biased). */
    CHECK(compare_file("/lib/x86_64-linux-gnu/libc.so.6", 0, &mismatches) > 100);
    CHECK(compare_file("/lib/x86_64-linux-gnu/libc.so.6", 0x7f3a12345000ull, &mismatches) > 100);
    CHECK_EQ(mismatches, 0);
}

TEST(symbol_table_prefers_what_libdwfl_prefers)
{
    char build[PATH_LEN], path[PATH_LEN * 2];
    if (!CHECK(gen_build_dir(build, sizeof(build))))
        return;
    snprintf(path, sizeof(path), "%s/profile/root/bin/workload", build);
    uint64_t g = 0, g_size = 0;
    if (!CHECK(gen_elf_symbol(path, "g", &g, &g_size)))
        return;
    Dwfl *dwfl = dwfl_begin(&offline);
    Dwfl_Module *mod = dwfl_report_offline(dwfl, path, path, -1);
    if (!CHECK(mod)) {
        dwfl_end(dwfl);
        return;
    }
    dwfl_report_end(dwfl, NULL, NULL);
    struct sym_table t = { 0 };
    uint64_t start, size;
    CHECK_STR(sym_table_lookup(&t, mod, g + g_size - 1, &start, &size), "g");
    CHECK_EQ(start, g);
    CHECK_EQ(size, g_size);
    CHECK(t.own && t.count > 100 && t.sized_count > 100);
    const char *after = sym_table_lookup(&t, mod, g + g_size, &start, &size);
    CHECK(!after || strcmp(after, "g") != 0);
    sym_table_free(&t);
    dwfl_end(dwfl);
}
