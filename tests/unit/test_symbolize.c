/* Symbolizer tests: kallsyms and JIT map searches at symbol boundaries, chunk
 * reassembly (lines split across chunks, sets broken, restarted or never
 * finished), ELF lookups with file:line through the guest root, JIT map
 * epochs with moved code, [unknown] forms and the frame cache; hostile
 * symbol data: identities naming another process, paths that try to leave
 * the guest root or name a FIFO, link loops and malformed ELF files (one
 * warning each), control bytes in names. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host-tools/symbolize.h"
#include "tests/fixtures/profile/gen_profile.h"
#include "tests/fuzz/hostile_logs.h"
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
    struct sym_problems sp;
    sym_get_problems(s, &sp);
    CHECK_EQ(sp.bad_lines + sp.broken_sets + sp.restarted_sets + sp.unfinished_sets, 0);
    sym_destroy(s);
}

/* One chunk of a set: kallsyms of domain 0, "x" as its text. */
static bool chunk(struct symbolizer *s, uint8_t kind, uint32_t pid, uint32_t n, bool last)
{
    struct log_symbols r = { .kind = kind, .pid = pid, .chunk = n, .last = last,
                             .data = (const uint8_t *)"x", .len = 1 };
    return sym_add_record(s, &r, 1);
}

static struct sym_problems problems(const struct symbolizer *s)
{
    struct sym_problems sp;
    sym_get_problems(s, &sp);
    return sp;
}

TEST(sets_that_do_not_take_effect_are_counted_once_each)
{
    char err[128];
    struct symbolizer *s = sym_create(&(struct sym_options){ 0 }, err, sizeof(err));
    /* A set whose chunk 0 was lost: its chunks count as one broken set. */
    CHECK(!chunk(s, LOG_SYM_KALLSYMS, 0, 1, false));
    CHECK(!chunk(s, LOG_SYM_KALLSYMS, 0, 2, false));
    CHECK(!chunk(s, LOG_SYM_KALLSYMS, 0, 3, true));
    CHECK_EQ(problems(s).broken_sets, 1);
    /* A gap in the middle of a set: broken once. */
    CHECK(chunk(s, LOG_SYM_PROC_MAPS, 7, 0, false));
    CHECK(!chunk(s, LOG_SYM_PROC_MAPS, 7, 2, false));
    CHECK(!chunk(s, LOG_SYM_PROC_MAPS, 7, 3, true));
    CHECK_EQ(problems(s).broken_sets, 2);
    /* Chunk 0 again before the last chunk: the first attempt is dropped,
     * the second one takes effect. */
    CHECK(chunk(s, LOG_SYM_JIT_MAP, 8, 0, false));
    CHECK(!chunk(s, LOG_SYM_JIT_MAP, 8, 0, false));
    CHECK_EQ(problems(s).restarted_sets, 1);
    CHECK_EQ(problems(s).unfinished_sets, 1);
    CHECK(!chunk(s, LOG_SYM_JIT_MAP, 8, 1, true));            /* "xx" is no JIT line */
    CHECK_EQ(problems(s).bad_lines, 1);
    CHECK_EQ(problems(s).unfinished_sets, 0);
    /* Sets the log ends before finishing (e.g. evicted in Vertigo). */
    CHECK(chunk(s, LOG_SYM_PROC_MAPS, 9, 0, false));
    CHECK(chunk(s, LOG_SYM_PROC_MAPS, 10, 0, false));
    CHECK_EQ(problems(s).unfinished_sets, 2);
    CHECK(!add_text(s, LOG_SYM_PROC_MAPS, 11, 0, 2, "not a maps line\n", 100));
    CHECK_EQ(problems(s).bad_lines, 2);
    CHECK_EQ(problems(s).broken_sets, 2);
    /* Vertigo says it gave set 9 up: no longer open, counted as abandoned,
     * and its chunk 1 is out of sequence now. */
    struct log_symbols gone = { .kind = LOG_SYM_PROC_MAPS, .pid = 9, .chunk = 1,
                                .abandoned = true };
    CHECK(!sym_add_record(s, &gone, 0));
    CHECK_EQ(problems(s).abandoned_sets, 1);
    CHECK_EQ(problems(s).unfinished_sets, 1);
    CHECK(!chunk(s, LOG_SYM_PROC_MAPS, 9, 1, true));
    CHECK_EQ(problems(s).broken_sets, 3);
    sym_destroy(s);
}

/* An identity line speaks for the set's own process only: a process
 * name carrying a newline cannot bind a CR3 to another PID. */
TEST(identity_lines_name_their_own_process_only)
{
    char err[128];
    struct symbolizer *s = sym_create(&(struct sym_options){ 0 }, err, sizeof(err));
    CHECK(add_text(s, LOG_SYM_PROC_MAPS, 5, 0, 1, "400000-401000 r-xp 00000000 00:00 0 /five\n", 99));
    CHECK(add_text(s, LOG_SYM_PROC_MAPS, 6, 0, 1, "400000-401000 r-xp 00000000 00:00 0 /six\n", 99));
    CHECK(add_text(s, LOG_SYM_PROCESS, 5, 0, 2, "5 4000 five\n", 99));
    CHECK(!add_text(s, LOG_SYM_PROCESS, 6, 0, 2, "6 8000 x\n5 c000 forged\n", 99));
    CHECK_EQ(problems(s).bad_lines, 1);
    struct sym_where w = { .mode = LOG_MODE_GUEST_USER, .has_cr3 = true, .cr3 = 0xc000,
                           .identity_seq = sym_identity_seq_at(s, 3) };
    /* 0xc000 is nobody's, and two processes map the address: no guess
     * (/six, described last, is not the forged line's /five either). */
    CHECK_STR(image_of(s, sym_resolve(s, &w, 0x400010)), "[anon]");
    w.cr3 = 0x4000;
    CHECK_STR(image_of(s, sym_resolve(s, &w, 0x400010)), "/five");
    sym_destroy(s);
}

/* Each CPU's log is drained on its own: the identity of a process that
 * exited on one CPU can arrive after the identity of the process that
 * exec'd onto its freed page-table root on another. Samples are named by
 * the identity shipped last before them (TSC), not the one arrived last. */
TEST(an_identity_arriving_late_does_not_hide_a_newer_one)
{
    char err[128];
    struct symbolizer *s = sym_create(&(struct sym_options){ 0 }, err, sizeof(err));
    CHECK(add_text(s, LOG_SYM_PROC_MAPS, 103, 0, 5, "400000-401000 r-xp 00000000 00:00 0 /old\n", 99));
    CHECK(add_text(s, LOG_SYM_PROC_MAPS, 104, SYM_EPOCH_WATCH, 20,
                   "400000-401000 r-xp 00000000 00:00 0 /new\n", 99));
    CHECK(add_text(s, LOG_SYM_PROCESS, 104, SYM_EPOCH_WATCH, 20, "104 4000 new\n", 99));
    uint32_t early_seq = sym_identity_seq_at(s, 30);   /* a sample read before 103's arrived */
    CHECK(add_text(s, LOG_SYM_PROCESS, 103, 0, 10, "103 4000 old\n", 99));   /* late */
    struct sym_where w = { .mode = LOG_MODE_GUEST_USER, .has_cr3 = true, .cr3 = 0x4000 };
    w.identity_seq = sym_identity_seq_at(s, 30);
    w.maps_seq = sym_maps_seq_at(s, 30);
    CHECK_EQ(sym_process_of(s, &w).pid, 104);
    CHECK_STR(image_of(s, sym_resolve(s, &w, 0x400010)), "/new");
    w.identity_seq = early_seq;
    CHECK_EQ(sym_process_of(s, &w).pid, 104);
    w.identity_seq = sym_identity_seq_at(s, 15);       /* between the two: the old process */
    w.maps_seq = sym_maps_seq_at(s, 15);
    CHECK_EQ(sym_process_of(s, &w).pid, 103);
    CHECK_STR(image_of(s, sym_resolve(s, &w, 0x400010)), "/old");
    w.identity_seq = sym_identity_seq_at(s, 7);        /* before both: 103's, a guess */
    CHECK_EQ(sym_process_of(s, &w).pid, 0);            /* none before the domain's first */
    sym_destroy(s);
}

/* The same for maps sets: the maps pid 104 had before its exec (shipped
 * first, arriving last) never name its samples after the exec. */
TEST(a_maps_set_arriving_late_does_not_hide_a_newer_one)
{
    char err[128];
    struct symbolizer *s = sym_create(&(struct sym_options){ 0 }, err, sizeof(err));
    CHECK(add_text(s, LOG_SYM_PROCESS, 104, 0, 5, "104 4000 sh\n", 99));
    CHECK(add_text(s, LOG_SYM_PROC_MAPS, 104, SYM_EPOCH_WATCH, 20,
                   "400000-401000 r-xp 00000000 00:00 0 /new\n", 99));
    CHECK(add_text(s, LOG_SYM_PROC_MAPS, 104, SYM_EPOCH_WATCH, 10,   /* late */
                   "400000-401000 r-xp 00000000 00:00 0 /old\n", 99));
    struct sym_where w = { .mode = LOG_MODE_GUEST_USER, .has_cr3 = true, .cr3 = 0x4000,
                           .identity_seq = sym_identity_seq_at(s, 30), .maps_seq = sym_maps_seq_at(s, 30) };
    CHECK_STR(image_of(s, sym_resolve(s, &w, 0x400010)), "/new");
    w.identity_seq = sym_identity_seq_at(s, 15);
    w.maps_seq = sym_maps_seq_at(s, 15);
    CHECK_STR(image_of(s, sym_resolve(s, &w, 0x400010)), "/old");
    w.identity_seq = sym_identity_seq_at(s, 7);       /* before both sets: the first */
    w.maps_seq = sym_maps_seq_at(s, 7);
    CHECK_STR(image_of(s, sym_resolve(s, &w, 0x400010)), "/old");
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

/* C++ and legacy Rust names are demangled (the hash of a Rust name
 * dropped), anything else is kept, and --no-demangle keeps them all. */
static void check_names(bool demangle)
{
    char err[128];
    struct symbolizer *s = sym_create(&(struct sym_options){ .no_demangle = !demangle }, err,
                                      sizeof(err));
    CHECK(add_text(s, LOG_SYM_PROC_MAPS, 5, 0, 100, "7f0000000000-7f0000010000 rwxp 00000000 00:00 0\n", 99));
    CHECK(add_text(s, LOG_SYM_JIT_MAP, 5, 1, 1000,
                   "7f0000001000 40 _ZN3foo3barEi\n"
                   "7f0000001040 40 _ZN4core3fmt5write17h0123456789abcdefE\n"
                   "7f0000001080 40 _ZZZZ\n"
                   "7f00000010c0 40 _Z1fv extra\n", 40));
    struct sym_where w = { .mode = LOG_MODE_GUEST_USER, .jit_seq = 1 };
    CHECK_STR(name_of(s, sym_resolve(s, &w, 0x7f0000001010ull)),
              demangle ? "foo::bar(int)" : "_ZN3foo3barEi");
    CHECK_STR(name_of(s, sym_resolve(s, &w, 0x7f0000001050ull)),
              demangle ? "core::fmt::write" : "_ZN4core3fmt5write17h0123456789abcdefE");
    CHECK_STR(name_of(s, sym_resolve(s, &w, 0x7f0000001090ull)), "_ZZZZ");     /* not a name */
    CHECK_STR(name_of(s, sym_resolve(s, &w, 0x7f00000010d0ull)), "_Z1fv extra");
    sym_destroy(s);
}

TEST(cplusplus_and_rust_names_are_demangled)
{
    check_names(true);
    check_names(false);
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

/* A temporary directory holding the hostile guest root (hostile_root_make). */
struct hostile_root {
    char top[PATH_LEN], root[PATH_LEN + 8];
};

static bool make_hostile_root(struct hostile_root *h, const char *workload)
{
    snprintf(h->top, sizeof(h->top), "/tmp/vertigo-sym-root.XXXXXX");
    if (!CHECK(mkdtemp(h->top) != NULL))
        return false;
    snprintf(h->root, sizeof(h->root), "%s/root", h->top);
    mkdir(h->root, 0755);
    return CHECK(hostile_root_make(h->root, workload));
}

static void remove_root(const struct hostile_root *h)
{
    char cmd[2 * PATH_LEN];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", h->top);
    CHECK(system(cmd) == 0);
}

TEST(guest_paths_stay_in_the_root_and_bad_files_are_named_once)
{
    struct elf_fixture e;
    struct hostile_root h;
    if (!elf_fixture(&e) || !make_hostile_root(&h, e.workload))
        return;
    char err[128], maps[2048];
    struct symbolizer *s = sym_create(&(struct sym_options){ .guest_root = h.root }, err, sizeof(err));
    /* The workload's g, mapped under each path twice at bases of their
     * own (two loads of one file: warned once). Read outside the root,
     * /etc/passwd or /dev/zero would draw warnings of their own. */
    static const char *const paths[] = { "/../../../etc/passwd", "/lib/escape.so", "/lib/abs.so",
                                         "/lib/trunc.so", "/lib/text.so", "/lib/fifo.so",
                                         "/lib/loop.so", "/lib/absent.so", "/lib/dir.so" };
    size_t n = 0, count = sizeof(paths) / sizeof(paths[0]);
    uint64_t start = e.g & ~0xfffull, base = 0x10000000000ull;
    for (size_t i = 0; i < 2 * count; i++)
        n += (size_t)snprintf(maps + n, sizeof(maps) - n, "%llx-%llx r-xp %llx 00:02 5 %s\n",
                              (unsigned long long)(base * (i + 1) + start),
                              (unsigned long long)(base * (i + 1) + start + 0x10000),
                              (unsigned long long)(start - 0x400000), paths[i % count]);
    CHECK(add_text(s, LOG_SYM_PROC_MAPS, 9, 0, 5, maps, 1000));
    struct sym_where u = { .mode = LOG_MODE_GUEST_USER };
    for (size_t i = 0; i < 2 * count; i++) {
        const char *name = name_of(s, sym_resolve(s, &u, base * (i + 1) + e.g));
        if (strncmp(name, "[unknown] ", 10))
            unit_fail(__FILE__, __LINE__, "%s resolved to %s", paths[i % count], name);
    }
    static const char *const warnings[][2] = {
        { "/lib/trunc.so: ", "reaches past the end of the file (truncated?)" },
        { "/lib/text.so: not an ELF file", "" },
        { "/lib/fifo.so: not a regular file", "" },
        { "/lib/loop.so: too many symbolic links", "" },
        { "/lib/dir.so: not a regular file", "" },
    };
    CHECK_EQ(sym_warning_count(s), 5);
    for (size_t i = 0; i < sym_warning_count(s) && i < 5; i++) {
        const char *w = sym_warning(s, i);
        if (strncmp(w, warnings[i][0], strlen(warnings[i][0])) || !strstr(w, warnings[i][1]))
            unit_fail(__FILE__, __LINE__, "warning %zu: %s", i, w);
    }
    /* An absolute link inside the root leads to the root's own file. */
    snprintf(maps, sizeof(maps), "%llx-%llx r-xp %llx 00:02 5 /lib/good.so\n",
             (unsigned long long)start, (unsigned long long)start + 0x10000,
             (unsigned long long)(start - 0x400000));
    CHECK(add_text(s, LOG_SYM_PROC_MAPS, 10, 0, 5, maps, 1000));
    CHECK_STR(name_of(s, sym_resolve(s, &u, e.g + 1)), "g");
    sym_destroy(s);
    remove_root(&h);
}

TEST(names_from_the_guest_lose_their_control_bytes)
{
    char err[128];
    struct symbolizer *s = sym_create(&(struct sym_options){ 0 }, err, sizeof(err));
    CHECK(add_text(s, LOG_SYM_KALLSYMS, 0, 0, 1, "ffffffff81000000 T evil\033[2J\n", 100));
    CHECK(add_text(s, LOG_SYM_JIT_MAP, 3, 1, 1, "7f0000001000 40 jit\rname\n", 100));
    struct sym_where k = { .mode = LOG_MODE_GUEST_KERNEL };
    CHECK_STR(name_of(s, sym_resolve(s, &k, 0xffffffff81000010ull)), "evil?[2J");
    struct sym_where u = { .mode = LOG_MODE_GUEST_USER, .jit_seq = sym_jit_seq_at(s, 0, 5) };
    CHECK_STR(name_of(s, sym_resolve(s, &u, 0x7f0000001010ull)), "jit?name");
    sym_destroy(s);
}

/* A JIT entry holds [start, start + size): a shorter entry starting
 * after a longer one does not hide it beyond its own end. */
TEST(jit_entries_hold_their_whole_range)
{
    char err[128];
    struct symbolizer *s = sym_create(&(struct sym_options){ 0 }, err, sizeof(err));
    CHECK(add_text(s, LOG_SYM_JIT_MAP, 4, 1, 1, "7f0000001000 100 outer\n7f0000001050 10 inner\n", 100));
    struct sym_where u = { .mode = LOG_MODE_GUEST_USER, .jit_seq = sym_jit_seq_at(s, 0, 5) };
    CHECK_STR(name_of(s, sym_resolve(s, &u, 0x7f0000001055ull)), "inner");
    CHECK_STR(name_of(s, sym_resolve(s, &u, 0x7f0000001080ull)), "outer");
    CHECK_STR(name_of(s, sym_resolve(s, &u, 0x7f0000001100ull)), "[unknown] 0x7f0000001100");
    sym_destroy(s);
}

/* A module's symbols name addresses inside its text only: past the last
 * one, the page it starts in bounds it (kallsyms gives no sizes), so a
 * garbage address above every module is no module function. */
TEST(module_symbols_end_with_the_module_text)
{
    static const char mods[] =
        "ffffffff81000000 T _text\n"
        "ffffffff81002400 t clear_page_erms\n"
        "ffffffffc0001000 t testmod_work\t[testmod]\n"
        "ffffffffc0001100 t testmod_exit\t[testmod]\n"
        "ffffffffc0004000 t vertigo_ioctl.cold\t[vertigo]\n";
    static const struct { uint64_t addr; const char *name; } at[] = {
        { 0xffffffffc0001080ull, "testmod_work" },
        { 0xffffffffc0001fffull, "testmod_exit" },
        { 0xffffffffc0002000ull, "[unknown] 0xffffffffc0002000" },   /* past testmod's page */
        { 0xffffffffc0004010ull, "vertigo_ioctl.cold" },
        { 0xfffffffffffffecbull, "[unknown] 0xfffffffffffffecb" },   /* above every module */
        { 0xffffffff81004000ull, "clear_page_erms" },   /* the kernel's: up to the next symbol */
    };
    char err[128];
    struct symbolizer *s = sym_create(&(struct sym_options){ 0 }, err, sizeof(err));
    CHECK(add_text(s, LOG_SYM_KALLSYMS, 0, 0, 10, mods, 64));
    struct sym_where k = { .mode = LOG_MODE_GUEST_KERNEL };
    for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
        CHECK_STR(name_of(s, sym_resolve(s, &k, at[i].addr)), at[i].name);
    CHECK_STR(image_of(s, sym_resolve(s, &k, 0xfffffffffffffecbull)), "[kernel.kallsyms]");
    sym_destroy(s);
}

/* A hypervisor-mode symbolizer on the fixture ELF NAME of the build, and
 * the address and size of its function symbol; NULL after a failure. */
static struct symbolizer *on_fixture(const char *name, const char *symbol, uint64_t *addr,
                                     uint64_t *size)
{
    char build[BUILD_LEN], path[PATH_LEN], err[128];
    if (!CHECK(gen_build_dir(build, sizeof(build))))
        return NULL;
    snprintf(path, sizeof(path), "%s/profile/%s", build, name);
    struct symbolizer *s = sym_create(&(struct sym_options){ .vertigo_elf = path }, err, sizeof(err));
    if (!s)
        unit_fail(__FILE__, __LINE__, "%s: %s", path, err);
    if (s && !CHECK(gen_elf_symbol(path, symbol, addr, size))) {
        sym_destroy(s);
        return NULL;
    }
    return s;
}

/* clang emits no .debug_aranges, so libdw's address lookup fails: the
 * compile units' ranges give the lines, and the path is joined to the
 * unit's compilation directory. */
TEST(lines_of_a_clang_binary_without_aranges)
{
    uint64_t g = 0, size = 0;
    struct symbolizer *s = on_fixture("workload-clang", "g", &g, &size);
    if (!s)
        return;
    struct sym_where h = { .mode = LOG_MODE_HYPERVISOR };
    const struct sym_frame *f = sym_frame(s, sym_resolve(s, &h, g + size / 2));
    const struct sym_function *fn = sym_function(s, f->function);
    uint32_t decl = gen_source_line("tests/fixtures/profile/workload.c", "void g(void)");
    CHECK_STR(fn->name, "g");
    CHECK(fn->file && fn->file[0] == '/' &&
          strstr(fn->file, "tests/fixtures/profile/workload.c") != NULL);
    CHECK_EQ(fn->line, decl);
    CHECK(f->line >= decl && f->line <= decl + 3);
    sym_destroy(s);
}

/* An address of inlined code: the symbol is outer, the inline chain holds
 * step at the address's line, then scale at the line calling step, and
 * outer's line is where it calls scale. */
TEST(inlined_functions_at_an_address)
{
    uint64_t outer = 0, size = 0;
    struct symbolizer *s = on_fixture("inlined", "outer", &outer, &size);
    if (!s)
        return;
    const char *src = "tests/fixtures/profile/inlined.c";
    uint32_t work = gen_source_line(src, "step's work"), in_scale = gen_source_line(src, "scale calls step");
    uint32_t call = gen_source_line(src, "outer calls scale");
    struct sym_where h = { .mode = LOG_MODE_HYPERVISOR };
    bool found = false;
    for (uint64_t a = outer; a < outer + size && !found; a++) {
        const struct sym_frame *f = sym_frame(s, sym_resolve(s, &h, a));
        if (f->line != work)
            continue;
        found = true;
        CHECK_STR(sym_function(s, f->function)->name, "outer");
        if (!CHECK_EQ(f->inline_count, 2))
            break;
        const struct sym_inline *in = sym_frame_inlines(s, f);
        CHECK_STR(sym_function(s, in[0].function)->name, "step");
        CHECK_EQ(in[0].line, work);
        CHECK_STR(sym_function(s, in[1].function)->name, "scale");
        CHECK_EQ(in[1].line, in_scale);
        CHECK_EQ(f->call_line, call);
    }
    CHECK(found);
    const struct sym_frame *first = sym_frame(s, sym_resolve(s, &h, outer));
    CHECK_EQ(first->inline_count, 0);
    sym_destroy(s);
}

/* The kernel's build id the agent ships (kind 5) names the kernel image's
 * build; a line that is no even run of hex digits is malformed. */
TEST(kernel_build_id_names_the_kernel_image)
{
    char err[128], hex[41];
    struct symbolizer *s = sym_create(&(struct sym_options){ 0 }, err, sizeof(err));
    CHECK(add_text(s, LOG_SYM_KALLSYMS, 0, 0, 10, kallsyms, 4096));
    struct sym_where k = { .mode = LOG_MODE_GUEST_KERNEL };
    uint32_t kernel = sym_frame(s, sym_resolve(s, &k, 0xffffffff81002000ull))->image;
    CHECK(!sym_image_build_id(s, kernel, hex));
    CHECK(!add_text(s, LOG_SYM_KERNEL_BUILD_ID, 0, 0, 11, "xyz\n", 100));
    CHECK(!add_text(s, LOG_SYM_KERNEL_BUILD_ID, 0, 0, 12, "abc\n", 100));
    CHECK(!sym_image_build_id(s, kernel, hex));
    CHECK(add_text(s, LOG_SYM_KERNEL_BUILD_ID, 0, 0, 13, "0123456789abcdef0123456789abcdef01234567\n", 100));
    CHECK(sym_image_build_id(s, kernel, hex));
    CHECK_STR(hex, "0123456789abcdef0123456789abcdef01234567");
    uint32_t module = sym_frame(s, sym_resolve(s, &k, 0xffffffffc0001020ull))->image;
    CHECK(!sym_image_build_id(s, module, hex));
    CHECK_EQ(problems(s).bad_lines, 2);
    sym_destroy(s);
}
