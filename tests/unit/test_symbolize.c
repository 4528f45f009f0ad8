/* Symbolizer tests: kallsyms and JIT map searches at symbol boundaries, chunk
 * reassembly (lines split across chunks, chunks out of sequence), ELF
 * lookups with file:line through the guest root, JIT map epochs with
 * moved code, [unknown] forms and the frame cache. */
#include <stdlib.h>
#include <string.h>

#include "host-tools/symbolize.h"
#include "tests/fixtures/profile/gen_profile.h"
#include "tests/unit/unit.h"

#define PATH_LEN 512u
#define BUILD_LEN 256u

static const char *name_of(struct symbolizer *s, uint32_t frame)
{
    return sym_function(s, sym_frame(s, frame)->function)->name;
}

static const char *image_of(struct symbolizer *s, uint32_t frame)
{
    return sym_image(s, sym_frame(s, frame)->image)->name;
}

static bool add_text(struct symbolizer *s, uint8_t kind, uint32_t pid, uint64_t epoch, uint64_t tsc,
                     const char *text, size_t chunk_len)
{
    size_t len = strlen(text);
    bool ok = true;
    uint32_t chunk = 0;
    for (size_t off = 0; off < len; off += chunk_len, chunk++) {
        size_t n = len - off < chunk_len ? len - off : chunk_len;
        struct log_symbols r = { .domain = 0, .kind = kind, .pid = pid, .epoch = epoch, .chunk = chunk,
                                 .last = off + n == len, .data = (const uint8_t *)text + off,
                                 .len = (uint32_t)n };
        ok &= sym_add_record(s, &r, tsc);
    }
    return ok;
}

static const char kallsyms[] =
    "ffffffff81000000 T _text\n"
    "ffffffff81001000 T entry_SYSCALL_64\n"
    "ffffffff81002000 T do_syscall_64\n"
    "ffffffff81002400 t clear_page_erms\n"
    "ffffffff81004000 D jiffies\n"
    "ffffffffc0001000 t testmod_work\t[testmod]\n";

TEST(kallsyms_lookup_at_boundaries_and_split_chunks)
{
    char err[128];
    struct symbolizer *s = sym_create(&(struct sym_options){ 0 }, err, sizeof(err));
    CHECK(add_text(s, LOG_SYM_KALLSYMS, 0, 0, 10, kallsyms, 7));   /* lines cut mid-way */
    struct sym_where k = { .mode = LOG_MODE_GUEST_KERNEL };
    CHECK_STR(name_of(s, sym_resolve(s, &k, 0xffffffff81002000ull)), "do_syscall_64");
    CHECK_STR(name_of(s, sym_resolve(s, &k, 0xffffffff810023ffull)), "do_syscall_64");
    CHECK_STR(name_of(s, sym_resolve(s, &k, 0xffffffff81002400ull)), "clear_page_erms");
    /* jiffies is data: addresses past clear_page_erms stay in it. */
    CHECK_STR(name_of(s, sym_resolve(s, &k, 0xffffffff81004010ull)), "clear_page_erms");
    CHECK_STR(name_of(s, sym_resolve(s, &k, 0xffffffff80000010ull)), "[unknown] 0xffffffff80000010");
    uint32_t mod = sym_resolve(s, &k, 0xffffffffc0001020ull);
    CHECK_STR(name_of(s, mod), "testmod_work");
    CHECK_STR(image_of(s, mod), "[testmod]");
    CHECK_STR(image_of(s, sym_resolve(s, &k, 0xffffffff81001010ull)), "[kernel.kallsyms]");
    CHECK_EQ(sym_resolve(s, &k, 0xffffffff81002000ull), sym_resolve(s, &k, 0xffffffff81002000ull));
    CHECK_EQ(sym_bad_records(s), 0);
    sym_destroy(s);
}

TEST(chunks_out_of_sequence_and_bad_lines_are_counted)
{
    char err[128];
    struct symbolizer *s = sym_create(&(struct sym_options){ 0 }, err, sizeof(err));
    struct log_symbols r = { .kind = LOG_SYM_KALLSYMS, .chunk = 1, .last = true,
                             .data = (const uint8_t *)"x", .len = 1 };
    CHECK(!sym_add_record(s, &r, 1));
    CHECK_EQ(sym_bad_records(s), 1);
    CHECK(!add_text(s, LOG_SYM_PROC_MAPS, 7, 0, 2, "not a maps line\n", 100));
    CHECK_EQ(sym_bad_records(s), 2);
    r.kind = 9;
    CHECK(!sym_add_record(s, &r, 3));
    CHECK_EQ(sym_bad_records(s), 3);
    sym_destroy(s);
}

struct elf_fixture {
    char root[PATH_LEN], workload[PATH_LEN];
    uint64_t g, g_size, text_start;
};

static bool elf_fixture(struct elf_fixture *e)
{
    char build[BUILD_LEN];
    if (!CHECK(gen_build_dir(build, sizeof(build))))
        return false;
    snprintf(e->root, sizeof(e->root), "%s/profile/root", build);
    snprintf(e->workload, sizeof(e->workload), "%s/profile/root/bin/workload", build);
    return CHECK(gen_elf_symbol(e->workload, "g", &e->g, &e->g_size));
}

TEST(user_addresses_resolve_through_maps_and_the_guest_root)
{
    struct elf_fixture e;
    if (!elf_fixture(&e))
        return;
    char err[128], maps[256];
    struct symbolizer *s = sym_create(&(struct sym_options){ .guest_root = e.root }, err, sizeof(err));
    uint64_t start = e.g & ~0xfffull;
    snprintf(maps, sizeof(maps), "%llx-%llx r-xp %llx 00:02 5 /bin/workload\n"
             "7f2000000000-7f2000001000 r-xp 00000000 00:02 6 /bin/absent\n",
             (unsigned long long)start, (unsigned long long)start + 0x10000,
             (unsigned long long)(start - 0x400000));
    CHECK(add_text(s, LOG_SYM_PROC_MAPS, 9, 0, 5, maps, 1000));
    struct sym_where u = { .mode = LOG_MODE_GUEST_USER, .has_cr3 = true, .cr3 = 0x5000 };
    uint32_t f = sym_resolve(s, &u, e.g + 1);
    const struct sym_function *fn = sym_function(s, sym_frame(s, f)->function);
    CHECK_STR(fn->name, "g");
    CHECK_STR(image_of(s, f), "/bin/workload");
    CHECK(fn->file && strstr(fn->file, "workload.c"));
    CHECK_EQ(fn->line, gen_source_line("tests/fixtures/profile/workload.c", "void g(void)"));
    CHECK(sym_frame(s, f)->line >= fn->line);
    CHECK_STR(name_of(s, sym_resolve(s, &u, 0x7f2000000123ull)), "[unknown] /bin/absent+0x123");
    CHECK_STR(name_of(s, sym_resolve(s, &u, 0x7f3000000000ull)), "[unknown] 0x7f3000000000");
    sym_destroy(s);
}

TEST(jit_maps_resolve_by_epoch)
{
    char err[128];
    struct symbolizer *s = sym_create(&(struct sym_options){ 0 }, err, sizeof(err));
    CHECK(add_text(s, LOG_SYM_PROC_MAPS, 5, 0, 100, "7f0000000000-7f0000010000 rwxp 00000000 00:00 0\n", 99));
    CHECK(add_text(s, LOG_SYM_JIT_MAP, 5, 1, 1000, "7f0000001000 40 jit_add\n7f0000001040 40 jit_sub\n", 10));
    CHECK(add_text(s, LOG_SYM_JIT_MAP, 5, 2, 2000, "7f0000002000 40 jit_add\n7f0000001000 40 jit_mul\n", 10));
    CHECK_EQ(sym_jit_seq_at(s, 0, 999), 0);
    CHECK_EQ(sym_jit_seq_at(s, 0, 1500), 1);
    CHECK_EQ(sym_jit_seq_at(s, 0, 2000), 2);
    CHECK_EQ(sym_jit_seq_at(s, 1, 2000), 0);   /* another domain has no JIT maps */
    struct sym_where w = { .mode = LOG_MODE_GUEST_USER, .jit_seq = 1 };
    uint32_t early = sym_resolve(s, &w, 0x7f0000001010ull);
    CHECK_STR(name_of(s, early), "jit_add");
    CHECK_STR(image_of(s, early), "perf-5.map");
    CHECK_STR(name_of(s, sym_resolve(s, &w, 0x7f0000001050ull)), "jit_sub");
    CHECK_STR(name_of(s, sym_resolve(s, &w, 0x7f0000002010ull)), "[unknown] [anon]+0x2010");
    /* Below the first JIT entry: no JIT symbol, the mapping names it. */
    CHECK_STR(name_of(s, sym_resolve(s, &w, 0x7f0000000ff0ull)), "[unknown] [anon]+0xff0");
    w.jit_seq = 2;
    CHECK_STR(name_of(s, sym_resolve(s, &w, 0x7f0000001010ull)), "jit_mul");
    CHECK_STR(name_of(s, sym_resolve(s, &w, 0x7f0000002010ull)), "jit_add");
    /* Not re-registered in epoch 2: the newest set naming it still does. */
    CHECK_STR(name_of(s, sym_resolve(s, &w, 0x7f0000001050ull)), "jit_sub");
    /* Both jit_add frames share one function. */
    CHECK_EQ(sym_frame(s, early)->function, sym_frame(s, sym_resolve(s, &w, 0x7f0000002010ull))->function);
    sym_destroy(s);
}

TEST(hypervisor_addresses_use_the_vertigo_elf)
{
    char build[BUILD_LEN], hv[PATH_LEN], err[256];
    if (!CHECK(gen_build_dir(build, sizeof(build))))
        return;
    snprintf(hv, sizeof(hv), "%s/profile/hvmini", build);
    uint64_t addr, size;
    CHECK(gen_elf_symbol(hv, "hv_pmu_nmi", &addr, &size));
    struct symbolizer *s = sym_create(&(struct sym_options){ .vertigo_elf = hv }, err, sizeof(err));
    if (!CHECK(s != NULL))
        return;
    struct sym_where h = { .mode = LOG_MODE_HYPERVISOR };
    uint32_t f = sym_resolve(s, &h, addr + size - 1);
    CHECK_STR(name_of(s, f), "hv_pmu_nmi");
    CHECK_STR(image_of(s, f), "hvmini");
    CHECK_EQ(sym_function(s, sym_frame(s, f)->function)->line,
             gen_source_line("tests/fixtures/profile/hvmini.c", "void hv_pmu_nmi(void)"));
    sym_destroy(s);
    CHECK(sym_create(&(struct sym_options){ .vertigo_elf = "tests/fixtures/profile/kallsyms.txt" },
                     err, sizeof(err)) == NULL);
    CHECK_STR(err, "--vertigo-elf tests/fixtures/profile/kallsyms.txt: not a readable ELF file");
    CHECK(sym_create(&(struct sym_options){ .kallsyms_path = "/nonexistent" }, err, sizeof(err)) == NULL);
    CHECK_STR(err, "--kallsyms /nonexistent: No such file or directory");
}

/* An append-only perf-PID.map shipped whole at each epoch: code freed and
 * rewritten at the same address under a new name; the later line wins. */
TEST(jit_map_appended_at_the_same_address)
{
    char err[128];
    struct symbolizer *s = sym_create(&(struct sym_options){ 0 }, err, sizeof(err));
    CHECK(add_text(s, LOG_SYM_JIT_MAP, 8, 1, 100, "7f0000001000 80 jit_loop_epoch1\n", 50));
    CHECK(add_text(s, LOG_SYM_JIT_MAP, 8, 2, 200,
                   "7f0000001000 80 jit_loop_epoch1\n7f0000001000 80 jit_loop_epoch2\n", 50));
    struct sym_where w = { .mode = LOG_MODE_GUEST_USER, .jit_seq = sym_jit_seq_at(s, 0, 150) };
    CHECK_STR(name_of(s, sym_resolve(s, &w, 0x7f0000001020ull)), "jit_loop_epoch1");
    w.jit_seq = sym_jit_seq_at(s, 0, 250);
    CHECK_STR(name_of(s, sym_resolve(s, &w, 0x7f0000001020ull)), "jit_loop_epoch2");
    sym_destroy(s);
}
