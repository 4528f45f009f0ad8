/* The frame checker (host-tools/frame_check.c) on profiles of the
 * workload fixture built from records: samples whose frames are real (a
 * leaf at a function's entry, callers' return addresses after the call
 * instructions that objdump-exact decoding finds in the binary, a user RIP
 * after the syscall instruction of write()) are all valid; the same
 * samples with a planted wrong mapping (the process's maps name another
 * static binary at the same addresses) are caught, per binary and cause;
 * an address no mapping covers is invalid where it is a register (a
 * sample's leaf, the user RIP a system call saved) and, as a caller the
 * frame-pointer walk found, ends the stack (profile.c: the walk had left
 * frame-pointer code); frames of a binary that is not at hand are
 * unchecked, never valid. */
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host-tools/frame_check.h"
#include "tests/fixtures/profile/gen_profile.h"
#include "tests/unit/unit.h"

#define PID 42u
#define CR3 0x12345000ull
#define PATH_LEN 512u
#define KERNEL_ENTRY 0xffffffff81001105ull   /* entry_SYSCALL_64_after_hwframe in the fixture */
#define KERNEL_LEAF 0xffffffff81002010ull    /* do_syscall_64 */
#define K_SYS_WRITE 0xffffffff81008010ull    /* __x64_sys_write, a system call's own code */

/* The system call path every fixture's kallsyms starts with: the entry
 * (KERNEL_ENTRY is in its second symbol), do_syscall_64 (KERNEL_LEAF). */
#define SYSCALL_PATH_KALLSYMS "ffffffff81001000 T entry_SYSCALL_64\n"                 \
                              "ffffffff81001100 t entry_SYSCALL_64_after_hwframe\n"   \
                              "ffffffff81002000 T do_syscall_64\n"
#define STRAY 0x7e0000001000ull              /* a user address no mapping covers */

struct fixture {
    char build[256], root[PATH_LEN], workload[PATH_LEN], hvmini[PATH_LEN];
    uint64_t text_start, text_end, text_offset;
    uint64_t g, f_after_g, main_after_f, after_syscall;
};

static bool read_file(const char *path, uint8_t **data, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    *data = malloc(*len);
    bool ok = *data && fread(*data, 1, *len, f) == *len;
    fclose(f);
    return ok;
}

/* The address just after the first instruction in [from, from + size)
 * of the workload's bytes that is E8 rel32 calling target (or, target 0,
 * the first syscall 0F 05). */
static uint64_t after(const struct fixture *fx, const uint8_t *file, size_t len, uint64_t from,
                      uint64_t size, uint64_t target)
{
    for (uint64_t a = from; a + 5 <= from + size; a++) {
        uint64_t off = a - fx->text_start + fx->text_offset;
        if (off + 5 > len)
            return 0;
        const uint8_t *p = file + off;
        if (!target && p[0] == 0x0f && p[1] == 0x05)
            return a + 2;
        int32_t rel;
        memcpy(&rel, p + 1, sizeof(rel));
        if (target && p[0] == 0xe8 && a + 5 + (uint64_t)(int64_t)rel == target)
            return a + 5;
    }
    return 0;
}

static bool fixture_make(struct fixture *fx)
{
    memset(fx, 0, sizeof(*fx));
    if (!gen_build_dir(fx->build, sizeof(fx->build)))
        return false;
    snprintf(fx->workload, sizeof(fx->workload), "%s/profile/root/bin/workload", fx->build);
    snprintf(fx->hvmini, sizeof(fx->hvmini), "%s/profile/hvmini", fx->build);
    snprintf(fx->root, sizeof(fx->root), "/tmp/vertigo-frame-check-XXXXXX");
    if (!mkdtemp(fx->root))
        return false;
    char cmd[6 * PATH_LEN];
    snprintf(cmd, sizeof(cmd), "mkdir -p '%s/bin' && cp '%s' '%s/bin/workload' && cp '%s' '%s/bin/hvmini'",
             fx->root, fx->workload, fx->root, fx->hvmini, fx->root);
    uint64_t f, f_size, m, m_size, w, w_size, g_size;
    uint8_t *file;
    size_t len;
    if (system(cmd) != 0 || !gen_elf_text(fx->workload, &fx->text_start, &fx->text_end, &fx->text_offset) ||
        !gen_elf_symbol(fx->workload, "g", &fx->g, &g_size) ||
        !gen_elf_symbol(fx->workload, "f", &f, &f_size) ||
        !gen_elf_symbol(fx->workload, "main", &m, &m_size) ||
        !gen_elf_symbol(fx->workload, "__libc_write", &w, &w_size) || !read_file(fx->workload, &file, &len))
        return false;
    fx->f_after_g = after(fx, file, len, f, f_size, fx->g);
    fx->main_after_f = after(fx, file, len, m, m_size, f);
    fx->after_syscall = after(fx, file, len, w, w_size, 0);
    free(file);
    return fx->f_after_g && fx->main_after_f && fx->after_syscall;
}

static void fixture_free(const struct fixture *fx)
{
    char cmd[PATH_LEN + 16];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx->root);
    if (system(cmd) != 0)
        unit_fail(__FILE__, __LINE__, "could not remove %s", fx->root);
}

static void symbols(struct profile *p, uint8_t kind, const char *text, uint64_t tsc)
{
    struct logdec_record r = { .type = LOG_REC_SYMBOLS, .tsc = tsc };
    r.u.symbols = (struct log_symbols){ .domain = 0, .kind = kind, .pid = kind == LOG_SYM_KALLSYMS ? 0 : PID,
                                        .last = true, .data = (const uint8_t *)text,
                                        .len = (uint32_t)strlen(text) };
    profile_record(p, &r);
}

static void sample(struct profile *p, uint8_t mode, uint64_t rip, const uint64_t *stack,
                   uint32_t depth, uint64_t tsc)
{
    struct logdec_record r = { .type = LOG_REC_SAMPLE, .tsc = tsc };
    r.u.sample = (struct log_sample){ .mode = mode, .rip = rip, .has_cr3 = true, .cr3 = CR3,
                                      .depth = depth };
    if (depth)
        memcpy(r.u.sample.stack, stack, depth * sizeof(*stack));
    profile_record(p, &r);
}

/* Loads the samples with the maps naming `image` at the workload's text,
 * plus one user address nothing maps; returns the checker's counts. */
struct counts {
    uint64_t valid, invalid, unchecked;
    uint64_t by_cause[FRAME_CAUSE_COUNT];
    const char *invalid_binary;
    char image[64];              /* the image the last frame checked is named in */
    uint64_t cut;                /* the profile's frames_cut */
};

/* Adds the verdicts of one sample's frames to out. */
static void tally(struct counts *out, const struct frame_result *res, uint32_t depth)
{
    for (uint32_t i = 0; i < depth; i++) {
        out->valid += res[i].verdict == FRAME_VALID;
        out->invalid += res[i].verdict == FRAME_INVALID;
        out->unchecked += res[i].verdict == FRAME_UNCHECKED;
        out->by_cause[res[i].cause]++;
    }
}

static bool run(const struct fixture *fx, const char *image, struct counts *out)
{
    struct profile p;
    char err[256];
    struct profile_options o = { .sym = { .guest_root = fx->root } };
    if (!CHECK(profile_init(&p, &o, err, sizeof(err))))
        return false;
    char maps[PATH_LEN], ident[64];
    static const char kallsyms[] = SYSCALL_PATH_KALLSYMS
                                   "ffffffff81008000 T __x64_sys_write\n";
    snprintf(maps, sizeof(maps), "%08lx-%08lx r-xp %08lx 00:00 1 %s\n",
             (unsigned long)fx->text_start, (unsigned long)fx->text_end,
             (unsigned long)fx->text_offset, image);
    snprintf(ident, sizeof(ident), "%u %llx workload\n", PID, (unsigned long long)CR3);
    symbols(&p, LOG_SYM_KALLSYMS, kallsyms, 1);
    symbols(&p, LOG_SYM_PROC_MAPS, maps, 2);
    symbols(&p, LOG_SYM_PROCESS, ident, 3);
    uint64_t user_stack[] = { fx->f_after_g, fx->main_after_f };
    uint64_t kernel_stack[] = { KERNEL_ENTRY, fx->after_syscall, fx->main_after_f };
    uint64_t stray[] = { STRAY, fx->main_after_f };
    uint64_t kernel_stray[] = { KERNEL_ENTRY, STRAY + 0x1000 };
    sample(&p, LOG_MODE_GUEST_USER, fx->g, user_stack, 2, 10);
    sample(&p, LOG_MODE_GUEST_KERNEL, K_SYS_WRITE, kernel_stack, 3, 11);     /* in the call */
    sample(&p, LOG_MODE_GUEST_USER, fx->g, stray, 2, 12);          /* cut at the stray caller */
    sample(&p, LOG_MODE_GUEST_USER, STRAY, NULL, 0, 13);           /* an unmapped leaf */
    sample(&p, LOG_MODE_GUEST_KERNEL, KERNEL_LEAF, kernel_stray, 2, 14);   /* an unmapped user RIP */
    bool ok = CHECK(profile_finish(&p, NULL, err, sizeof(err)));
    struct frame_checker *c = frame_checker_new(p.sym);
    struct frame_result res[LOG_STACK_MAX + 1];
    memset(out, 0, sizeof(*out));
    out->cut = p.frames_cut;
    for (uint64_t k = 0; ok && c && k < p.sample_count; k++) {
        const struct profile_sample *s = &p.samples[k];
        frame_check_sample(c, s, res);
        tally(out, res, s->depth);
        for (uint32_t i = 0; i < s->depth; i++)
            if (res[i].verdict == FRAME_INVALID && res[i].cause != FRAME_NO_MAPPING)
                out->invalid_binary = strcmp(res[i].binary, image) ? "other" : image;
    }
    frame_checker_free(c);
    profile_free(&p);
    return ok && c;
}

TEST(real_frames_are_valid_and_a_wrong_mapping_is_caught)
{
    struct fixture fx;
    if (!CHECK(fixture_make(&fx))) {
        fixture_free(&fx);
        return;
    }
    struct counts right, wrong;
    if (run(&fx, "/bin/workload", &right)) {
        /* g, f, main; do_syscall_64 and the entry (no kernel image:
         * unchecked), write's syscall, main; g, whose stray caller and
         * its caller are left out; the stray leaf; do_syscall_64 and the
         * entry again, then the stray user RIP. */
        CHECK_EQ(right.valid, 6);
        CHECK_EQ(right.unchecked, 4);
        CHECK_EQ(right.by_cause[FRAME_NO_BINARY], 4);
        CHECK_EQ(right.invalid, 2);
        CHECK_EQ(right.by_cause[FRAME_NO_MAPPING], 2);
        CHECK_EQ(right.cut, 2);
    }
    if (run(&fx, "/bin/hvmini", &wrong)) {
        /* The same addresses named in another static program: its bytes
         * there are no call before the return addresses, no syscall
         * before the user RIP, or no instruction start at the leaf. */
        CHECK(wrong.invalid >= 4);
        CHECK(wrong.by_cause[FRAME_NOT_AFTER_CALL] + wrong.by_cause[FRAME_OUTSIDE_TEXT] >= 2);
        CHECK(wrong.by_cause[FRAME_NOT_AFTER_SYSCALL] + wrong.by_cause[FRAME_OUTSIDE_TEXT] >= 1);
        CHECK_STR(wrong.invalid_binary, "/bin/hvmini");
    }
    fixture_free(&fx);
}

TEST(a_binary_not_at_hand_leaves_its_frames_unchecked)
{
    struct fixture fx;
    if (!CHECK(fixture_make(&fx))) {
        fixture_free(&fx);
        return;
    }
    struct counts missing;
    if (run(&fx, "/bin/not-in-the-root", &missing)) {
        CHECK_EQ(missing.valid, 0);
        CHECK_EQ(missing.invalid, 2);            /* the stray leaf and user RIP */
        CHECK_EQ(missing.by_cause[FRAME_NO_BINARY], 10);
    }
    fixture_free(&fx);
}

/* A profile of the fixture's process (its maps naming /bin/workload at
 * the workload's text, its identity) with the kernel symbols ksyms; false,
 * the fixture removed, when it cannot be started. */
static bool process_profile(struct fixture *fx, struct profile *p, const char *ksyms)
{
    char err[256], maps[PATH_LEN], ident[64];
    struct profile_options o = { .sym = { .guest_root = fx->root } };
    if (!CHECK(fixture_make(fx)) || !CHECK(profile_init(p, &o, err, sizeof(err)))) {
        fixture_free(fx);
        return false;
    }
    snprintf(maps, sizeof(maps), "%08lx-%08lx r-xp %08lx 00:00 1 /bin/workload\n",
             (unsigned long)fx->text_start, (unsigned long)fx->text_end, (unsigned long)fx->text_offset);
    snprintf(ident, sizeof(ident), "%u %llx workload\n", PID, (unsigned long long)CR3);
    symbols(p, LOG_SYM_KALLSYMS, ksyms, 1);
    symbols(p, LOG_SYM_PROC_MAPS, maps, 2);
    symbols(p, LOG_SYM_PROCESS, ident, 3);
    return true;
}

/* The kernel's own rules (profile.c), on kernel samples of a known
 * process: a stack that returns into an entry stub's first call ends
 * after the stub, and so does a sample in the stub just after that call
 * (the context a walk reads there is the saved registers);
 * a sample in switch_ldt, where switch_mm_irqs_off jumped with the next
 * task's CR3 loaded, names its user frames [gone], and so does one in a
 * return thunk returning into __schedule (where switch_ldt returns, with
 * that CR3 still on the last task's stack); the entry of
 * ret_from_fork that a task switch returns to is named ret_from_fork,
 * not the function before it, and is checked as a function's entry. */
#define K_STUB      0xffffffff81003000ull    /* asm_exc_page_fault */
#define K_SWITCHES  0xffffffff81004000ull    /* __switch_to_asm, then ret_from_fork */
#define K_FORK      0xffffffff81004060ull
#define K_LDT       0xffffffff81005000ull    /* switch_ldt */
#define K_THUNK     0xffffffff81008000ull    /* its_return_thunk */

TEST(the_kernels_entry_stubs_and_task_switches)
{
    static const char kallsyms[] = SYSCALL_PATH_KALLSYMS
                                   "ffffffff81003000 T asm_exc_page_fault\n"
                                   "ffffffff81003040 T exc_page_fault\n"
                                   "ffffffff81004000 T __switch_to_asm\n"
                                   "ffffffff81004060 T ret_from_fork\n"
                                   "ffffffff81005000 T switch_ldt\n"
                                   "ffffffff81006000 t __schedule\n"
                                   "ffffffff81008000 T its_return_thunk\n";
    struct fixture fx;
    struct profile p;
    char err[256];
    if (!process_profile(&fx, &p, kallsyms))
        return;
    uint64_t stub[] = { K_STUB + 9, STRAY + 0x40, fx.main_after_f };  /* saved registers read as a context */
    uint64_t ldt[] = { 0xffffffff81006100ull, KERNEL_ENTRY, fx.g };
    uint64_t fork[] = { K_FORK };
    uint64_t in_stub[] = { STRAY + 0x40, fx.main_after_f };  /* the leaf just after the call */
    sample(&p, LOG_MODE_GUEST_KERNEL, K_STUB + 0x50, stub, 3, 10);
    sample(&p, LOG_MODE_GUEST_KERNEL, K_LDT + 4, ldt, 3, 11);
    sample(&p, LOG_MODE_GUEST_KERNEL, K_SWITCHES + 0x20, fork, 1, 12);
    sample(&p, LOG_MODE_GUEST_KERNEL, K_STUB + 9, in_stub, 2, 13);
    sample(&p, LOG_MODE_GUEST_KERNEL, K_THUNK, ldt, 3, 14);
    if (CHECK(profile_finish(&p, NULL, err, sizeof(err))) && CHECK_EQ(p.sample_count, 5)) {
        CHECK_EQ(p.frames_cut, 4);
        for (uint64_t k = 0; k < p.sample_count; k++) {
            const struct profile_sample *s = &p.samples[k];
            const struct sym_frame *last = sym_frame(p.sym, s->frames[s->depth - 1]);
            const char *name = sym_function(p.sym, last->function)->name;
            const char *image = sym_image(p.sym, last->image)->name;
            if ((s->depth == 2 || s->depth == 1) && !strcmp(name, "asm_exc_page_fault"))
                continue;                                  /* the stub, nothing under it */
            if (s->depth == 4) {
                CHECK_STR(image, SYM_GONE_IMAGE);          /* switch_ldt's, the thunk's user frame */
                continue;
            }
            CHECK_EQ(s->depth, 2);
            CHECK_STR(name, "ret_from_fork");
            CHECK_EQ(last->offset, 0);
        }
        struct frame_checker *c = frame_checker_new(p.sym);
        struct frame_result res[LOG_STACK_MAX + 1];
        for (uint64_t k = 0; c && k < p.sample_count; k++) {
            frame_check_sample(c, &p.samples[k], res);
            for (uint32_t i = 0; i < p.samples[k].depth; i++)
                CHECK(res[i].verdict != FRAME_INVALID);     /* (no kernel image: unchecked) */
        }
        frame_checker_free(c);
    }
    profile_free(&p);
    fixture_free(&fx);
}

/* The user RIP under a system call's entry in an execve: once the new
 * program is loaded it is that program's ELF entry point (start_thread
 * set it), valid in the binary it is named in; after a failed execve it
 * follows the syscall. Any other address there is invalid, and the entry
 * point under another system call is no syscall's return. */
#define K_EXECVE 0xffffffff81007000ull       /* __x64_sys_execve */

/* The workload's ELF entry point (e_entry). */
static uint64_t workload_entry(const struct fixture *fx)
{
    uint8_t *file;
    size_t len;
    Elf64_Ehdr eh = { 0 };
    if (read_file(fx->workload, &file, &len) && len >= sizeof(eh))
        memcpy(&eh, file, sizeof(eh));
    free(file);
    return eh.e_entry;
}

TEST(the_user_rip_after_an_execve_is_the_new_programs_entry_point)
{
    static const char kallsyms[] = SYSCALL_PATH_KALLSYMS
                                   "ffffffff81007000 T __x64_sys_execve\n";
    struct fixture fx;
    struct profile p;
    char err[256];
    if (!process_profile(&fx, &p, kallsyms))
        return;
    uint64_t entry = workload_entry(&fx);
    CHECK(entry > fx.text_start && entry < fx.text_end);
    /* leaf in __x64_sys_execve or do_syscall_64, do_syscall_64's return,
     * the entry, the user RIP */
    uint64_t at_entry[] = { KERNEL_LEAF, KERNEL_ENTRY, entry };
    uint64_t failed[] = { KERNEL_LEAF, KERNEL_ENTRY, fx.after_syscall };
    uint64_t elsewhere[] = { KERNEL_LEAF, KERNEL_ENTRY, fx.g };
    uint64_t not_execve[] = { KERNEL_ENTRY, entry };
    sample(&p, LOG_MODE_GUEST_KERNEL, K_EXECVE + 0x10, at_entry, 3, 10);
    sample(&p, LOG_MODE_GUEST_KERNEL, K_EXECVE + 0x10, failed, 3, 11);
    sample(&p, LOG_MODE_GUEST_KERNEL, K_EXECVE + 0x10, elsewhere, 3, 12);
    sample(&p, LOG_MODE_GUEST_KERNEL, KERNEL_LEAF, not_execve, 2, 13);
    /* the entry point without execve on the kernel stack: the syscall
     * returned already (a sample in do_syscall_64 on the way out), still
     * start_thread's RIP (agent.sh's capture had one) */
    static const enum frame_cause user_rip[] = { FRAME_OK, FRAME_OK, FRAME_NOT_AFTER_SYSCALL,
                                                 FRAME_OK };
    if (CHECK(profile_finish(&p, NULL, err, sizeof(err))) && CHECK_EQ(p.sample_count, 4)) {
        struct frame_checker *c = frame_checker_new(p.sym);
        struct frame_result res[LOG_STACK_MAX + 1];
        for (uint64_t k = 0; c && k < p.sample_count; k++) {
            const struct profile_sample *s = &p.samples[k];
            frame_check_sample(c, s, res);
            const struct frame_result *r = &res[s->depth - 1];
            const struct sym_frame *u = sym_frame(p.sym, s->frames[s->depth - 1]);
            /* the entry point after an execve named at itself (_start),
             * every other user RIP there at the syscall's last byte */
            CHECK_EQ(profile_frame_address(s, s->depth - 1, u), r->addr);
            if (k == 0)
                CHECK_STR(sym_function(p.sym, u->function)->name, "_start");
            CHECK_EQ(u->offset == 0, k == 0);
            CHECK_EQ(r->addr, k == 0 || k == 3 ? entry : k == 1 ? fx.after_syscall : fx.g);
            CHECK_EQ(r->cause, user_rip[k]);
            CHECK_EQ(r->verdict, user_rip[k] == FRAME_OK ? FRAME_VALID : FRAME_INVALID);
        }
        frame_checker_free(c);
    }
    profile_free(&p);
    fixture_free(&fx);
}

/* A user RIP an exception saved (under an asm_* entry stub) is the
 * instruction the CPU had not run yet: a page fault on the first byte of
 * a function (its page not yet mapped) names that function, at offset 0,
 * not the one before it, and is checked as an instruction start. */
TEST(an_interrupted_user_rip_is_named_at_itself)
{
    static const char kallsyms[] = "ffffffff81003000 T asm_exc_page_fault\n"
                                   "ffffffff81003040 T exc_page_fault\n";
    struct fixture fx;
    struct profile p;
    char err[256];
    if (!process_profile(&fx, &p, kallsyms))
        return;
    uint64_t fault[] = { K_STUB + 0x20, fx.g };   /* after the stub's call of exc_page_fault */
    sample(&p, LOG_MODE_GUEST_KERNEL, K_STUB + 0x50, fault, 2, 10);
    if (CHECK(profile_finish(&p, NULL, err, sizeof(err))) && CHECK_EQ(p.sample_count, 1)) {
        const struct profile_sample *s = &p.samples[0];
        const struct sym_frame *u = sym_frame(p.sym, s->frames[s->depth - 1]);
        CHECK_EQ(s->depth, 3);
        CHECK_STR(sym_function(p.sym, u->function)->name, "g");
        CHECK_EQ(u->offset, 0);
        CHECK_EQ(profile_frame_address(s, s->depth - 1, u), fx.g);
        struct frame_checker *c = frame_checker_new(p.sym);
        struct frame_result res[LOG_STACK_MAX + 1];
        if (c) {
            frame_check_sample(c, s, res);
            CHECK_EQ(res[2].verdict, FRAME_VALID);
            CHECK_EQ(res[2].addr, fx.g);
        }
        frame_checker_free(c);
    }
    profile_free(&p);
    fixture_free(&fx);
}

/* A sample taken before its CR3's first identity is named by that
 * identity only as a guess: not when the identity was shipped at its
 * process's fork or exec (the module's watch, epoch 1: that program was
 * not running there before), not when the sample's user RIP lies in none
 * of that process's mappings (another process had the page-table root
 * before), and not when the sample came before the domain's first
 * identity (the watch was not running: a program that exited since may
 * have had the root). watching: another process's identity comes first. */
static uint32_t pid_of_early_sample(struct fixture *fx, uint64_t epoch, uint64_t rip, bool watching)
{
    struct profile p;
    char err[256], maps[PATH_LEN], ident[64];
    struct profile_options o = { .sym = { .guest_root = fx->root } };
    if (!CHECK(profile_init(&p, &o, err, sizeof(err))))
        return UINT32_MAX;
    snprintf(maps, sizeof(maps), "%08lx-%08lx r-xp %08lx 00:00 1 /bin/workload\n",
             (unsigned long)fx->text_start, (unsigned long)fx->text_end, (unsigned long)fx->text_offset);
    snprintf(ident, sizeof(ident), "%u %llx workload\n", PID, (unsigned long long)CR3);
    if (watching) {
        static const char other[] = "7 7000 init\n";
        struct logdec_record first = { .type = LOG_REC_SYMBOLS, .tsc = 0 };
        first.u.symbols = (struct log_symbols){ .domain = 0, .kind = LOG_SYM_PROCESS, .pid = 7,
                                                .last = true, .data = (const uint8_t *)other,
                                                .len = (uint32_t)strlen(other) };
        profile_record(&p, &first);
    }
    sample(&p, LOG_MODE_GUEST_USER, rip, NULL, 0, 1);           /* before its CR3's identity */
    struct logdec_record r = { .type = LOG_REC_SYMBOLS, .tsc = 2 };
    r.u.symbols = (struct log_symbols){ .domain = 0, .kind = LOG_SYM_PROC_MAPS, .pid = PID, .epoch = epoch,
                                        .last = true, .data = (const uint8_t *)maps,
                                        .len = (uint32_t)strlen(maps) };
    profile_record(&p, &r);
    r.u.symbols.pid = PID + 1;     /* another static program at the same addresses: */
    r.u.symbols.epoch = 0;         /* no address is one process's alone */
    profile_record(&p, &r);
    r.tsc = 3;
    r.u.symbols.pid = PID;
    r.u.symbols.epoch = epoch;
    r.u.symbols.kind = LOG_SYM_PROCESS;
    r.u.symbols.data = (const uint8_t *)ident;
    r.u.symbols.len = (uint32_t)strlen(ident);
    profile_record(&p, &r);
    uint32_t pid = UINT32_MAX;
    if (CHECK(profile_finish(&p, NULL, err, sizeof(err))) && CHECK_EQ(p.sample_count, 1))
        pid = p.samples[0].process.pid;
    profile_free(&p);
    return pid;
}

TEST(a_later_identity_names_an_earlier_sample_only_as_a_guess)
{
    struct fixture fx;
    if (!CHECK(fixture_make(&fx))) {
        fixture_free(&fx);
        return;
    }
    CHECK_EQ(pid_of_early_sample(&fx, 0, fx.g, true), PID);               /* the agent's scan: taken */
    CHECK_EQ(pid_of_early_sample(&fx, 0, fx.g, false), 0);               /* before the watch ran */
    CHECK_EQ(pid_of_early_sample(&fx, SYM_EPOCH_WATCH, fx.g, true), 0);  /* shipped at its fork or exec */
    CHECK_EQ(pid_of_early_sample(&fx, 0, STRAY, true), 0);               /* refuted by an unmapped RIP */
    fixture_free(&fx);
}

/* An exec whose maps set was lost: the process's fork shipped the old
 * program's maps (here /bin/hvmini, another static program at the
 * workload's addresses) and identity at CR3_OLD, the exec named the new
 * address space (CR3) twice, but its own maps set never arrived. The old
 * program's set must not name the new program's frames: they are
 * [no maps], unchecked; a set of the process shipped later names them. */
#define CR3_OLD 0x7777000ull

static void process_record_of(struct profile *p, uint8_t kind, uint32_t epoch, const char *text,
                              uint64_t tsc)
{
    struct logdec_record r = { .type = LOG_REC_SYMBOLS, .tsc = tsc };
    r.u.symbols = (struct log_symbols){ .domain = 0, .kind = kind, .pid = PID,
                                        .epoch = epoch, .last = true,
                                        .data = (const uint8_t *)text, .len = (uint32_t)strlen(text) };
    profile_record(p, &r);
}

static void process_record(struct profile *p, uint8_t kind, const char *text, uint64_t tsc)
{
    process_record_of(p, kind, SYM_EPOCH_WATCH, text, tsc);
}

/* What an exec leaves in the log (exec_capture): its own maps set, an
 * agent scan read while the kernel was building the new address space
 * (only the new stack mapped: no executable line) and shipped after the
 * exec's set, an agent scan that read the old program's maps before the
 * exec and shipped them after it (the agent's identities around it name
 * the old CR3 and the new one), a set of the process shipped after the
 * sample. */
enum { EXEC_SET = 1, MID_EXEC_SCAN = 2, LATER_SET = 4, STALE_SCAN = 8 };

static void exec_records(struct profile *p, const struct fixture *fx, unsigned what)
{
    char old_maps[PATH_LEN], new_maps[PATH_LEN], before[64], exec_id[64], after[64];
    const char *fmt = "%08lx-%08lx r-xp %08lx 00:00 1 %s\n";
    snprintf(old_maps, sizeof(old_maps), fmt, (unsigned long)fx->text_start,
             (unsigned long)fx->text_end, (unsigned long)fx->text_offset, "/bin/hvmini");
    snprintf(new_maps, sizeof(new_maps), fmt, (unsigned long)fx->text_start,
             (unsigned long)fx->text_end, (unsigned long)fx->text_offset, "/bin/workload");
    snprintf(before, sizeof(before), "%u %llx sh\n", PID, (unsigned long long)CR3_OLD);
    snprintf(exec_id, sizeof(exec_id), "%u %llx sh\n", PID, (unsigned long long)CR3);
    snprintf(after, sizeof(after), "%u %llx workload\n", PID, (unsigned long long)CR3);
    process_record(p, LOG_SYM_PROC_MAPS, old_maps, 20);     /* at the fork */
    process_record(p, LOG_SYM_PROCESS, before, 30);
    if (what & STALE_SCAN)
        process_record_of(p, LOG_SYM_PROCESS, 0, before, 35);  /* the agent, before reading */
    process_record(p, LOG_SYM_PROCESS, exec_id, 40);        /* the exec's switch of CR3 */
    if (what & EXEC_SET)
        process_record(p, LOG_SYM_PROC_MAPS, new_maps, 45);
    process_record(p, LOG_SYM_PROCESS, after, 50);
    if (what & MID_EXEC_SCAN)
        process_record_of(p, LOG_SYM_PROC_MAPS, 0,
                          "7fffffffe000-7ffffffff000 rw-p 00000000 00:00 0 \n", 60);
    if (what & STALE_SCAN) {
        process_record_of(p, LOG_SYM_PROC_MAPS, 0, old_maps, 60);
        process_record_of(p, LOG_SYM_PROCESS, 0, after, 70);   /* the agent, after shipping */
    }
    uint64_t user_stack[] = { fx->f_after_g, fx->main_after_f };
    sample(p, LOG_MODE_GUEST_USER, fx->g, user_stack, 2, 100);
    if (what & LATER_SET)
        process_record(p, LOG_SYM_PROC_MAPS, new_maps, 200);
}

/* Finishes p, checks its one sample's frames into out (tallied, with
 * the image its last frame is named in) and frees p. */
static bool check_only_sample(struct profile *p, struct counts *out)
{
    char err[256];
    bool ok = CHECK(profile_finish(p, NULL, err, sizeof(err))) && CHECK_EQ(p->sample_count, 1);
    struct frame_checker *c = ok ? frame_checker_new(p->sym) : NULL;
    struct frame_result res[LOG_STACK_MAX + 1];
    memset(out, 0, sizeof(*out));
    if (c) {
        const struct profile_sample *s = &p->samples[0];
        frame_check_sample(c, s, res);
        tally(out, res, s->depth);
        snprintf(out->image, sizeof(out->image), "%s",
                 sym_image(p->sym, sym_frame(p->sym, s->frames[s->depth - 1])->image)->name);
    }
    frame_checker_free(c);
    profile_free(p);
    return ok && c;
}

/* Checks the one sample of an exec's capture (exec_records): its frames
 * tallied, its leaf's image. */
static bool exec_capture(const struct fixture *fx, unsigned what, struct counts *out)
{
    struct profile p;
    char err[256];
    struct profile_options o = { .sym = { .guest_root = fx->root } };
    if (!CHECK(profile_init(&p, &o, err, sizeof(err))))
        return false;
    exec_records(&p, fx, what);
    return check_only_sample(&p, out);
}

TEST(an_exec_whose_maps_were_lost_is_not_named_by_the_old_program)
{
    struct fixture fx;
    struct counts n;
    if (!CHECK(fixture_make(&fx))) {
        fixture_free(&fx);
        return;
    }
    if (CHECK(exec_capture(&fx, 0, &n))) {
        CHECK_EQ(n.invalid, 0);
        CHECK_EQ(n.unchecked, 3);
        CHECK_EQ(n.by_cause[FRAME_NO_MAPS], 3);
        CHECK_STR(n.image, SYM_NO_MAPS_IMAGE);
    }
    if (CHECK(exec_capture(&fx, LATER_SET, &n))) {
        CHECK_EQ(n.valid, 3);
        CHECK_EQ(n.invalid, 0);
        CHECK_STR(n.image, "/bin/workload");
    }
    fixture_free(&fx);
}

/* An agent scan read /proc/PID/maps while the kernel built an exec's new
 * address space (only its stack mapped yet) and shipped it after the
 * exec's own set: a set with no executable mapping describes no program,
 * so it neither hides the exec's set nor stands for a lost one. */
TEST(a_scan_taken_mid_exec_does_not_hide_the_programs_maps)
{
    struct fixture fx;
    struct counts n;
    if (!CHECK(fixture_make(&fx))) {
        fixture_free(&fx);
        return;
    }
    if (CHECK(exec_capture(&fx, EXEC_SET | MID_EXEC_SCAN, &n))) {
        CHECK_EQ(n.valid, 3);
        CHECK_EQ(n.invalid, 0);
        CHECK_STR(n.image, "/bin/workload");
    }
    if (CHECK(exec_capture(&fx, MID_EXEC_SCAN, &n))) {     /* the exec's set lost */
        CHECK_EQ(n.invalid, 0);
        CHECK_EQ(n.by_cause[FRAME_NO_MAPS], 3);
        CHECK_STR(n.image, SYM_NO_MAPS_IMAGE);
    }
    fixture_free(&fx);
}

/* The agent read the old program's maps just before an exec and shipped
 * them after the exec's own set; its identities before and after name
 * different CR3s (it reads the maps again then). That set names no frame
 * of the new program. */
TEST(a_scan_that_straddles_an_exec_does_not_name_the_new_program)
{
    struct fixture fx;
    struct counts n;
    if (!CHECK(fixture_make(&fx))) {
        fixture_free(&fx);
        return;
    }
    if (CHECK(exec_capture(&fx, EXEC_SET | STALE_SCAN, &n))) {
        CHECK_EQ(n.valid, 3);
        CHECK_EQ(n.invalid, 0);
        CHECK_STR(n.image, "/bin/workload");
    }
    fixture_free(&fx);
}

/* Addresses no mapping covers in processes whose maps cannot say so: the
 * module's watch shipped a dynamically linked program's maps at its exec
 * (the program and its interpreter; the interpreter maps the libraries
 * after), or the process runs JIT code. A static program's maps, shipped
 * the same way, still find the stray address invalid. */
#define STRAY_IN_LIBC 0x7f0000401000ull

enum { STRAY_DYNAMIC = 1, STRAY_JIT = 2, STRAY_THEN_EXEC = 4 };

static bool stray_leaf(const struct fixture *fx, unsigned how, struct counts *out)
{
    bool dynamic = how & STRAY_DYNAMIC, jit = how & STRAY_JIT;
    struct profile p;
    char err[256], maps[2 * PATH_LEN], ident[64];
    struct profile_options o = { .sym = { .guest_root = fx->root } };
    if (!CHECK(profile_init(&p, &o, err, sizeof(err))))
        return false;
    int n = snprintf(maps, sizeof(maps), "%08lx-%08lx r-xp %08lx 00:00 1 /bin/workload\n",
                     (unsigned long)fx->text_start, (unsigned long)fx->text_end,
                     (unsigned long)fx->text_offset);
    if (dynamic)
        snprintf(maps + n, sizeof(maps) - (size_t)n,
                 "7f0000001000-7f0000020000 r-xp 00001000 00:00 2 /lib64/ld-linux-x86-64.so.2\n");
    snprintf(ident, sizeof(ident), "%u %llx workload\n", PID, (unsigned long long)CR3);
    process_record(&p, LOG_SYM_PROC_MAPS, maps, 2);         /* the watch's, at the exec */
    process_record(&p, LOG_SYM_PROCESS, ident, 3);
    if (jit)
        process_record(&p, LOG_SYM_JIT_MAP, "7f0000900000 40 jitted\n", 4);
    sample(&p, LOG_MODE_GUEST_USER, STRAY_IN_LIBC, NULL, 0, 10);
    if (how & STRAY_THEN_EXEC) {        /* a static program's, in a new space */
        char exec_id[64], exec_maps[PATH_LEN];
        snprintf(exec_id, sizeof(exec_id), "%u %llx hvmini\n", PID, (unsigned long long)CR3_OLD);
        snprintf(exec_maps, sizeof(exec_maps), "%08lx-%08lx r-xp %08lx 00:00 1 /bin/hvmini\n",
                 (unsigned long)fx->text_start, (unsigned long)fx->text_end,
                 (unsigned long)fx->text_offset);
        process_record(&p, LOG_SYM_PROCESS, exec_id, 20);
        process_record(&p, LOG_SYM_PROC_MAPS, exec_maps, 21);
        process_record(&p, LOG_SYM_PROCESS, exec_id, 22);
    }
    return check_only_sample(&p, out);
}

TEST(a_stray_address_is_invalid_only_where_the_maps_can_tell)
{
    struct fixture fx;
    struct counts n;
    if (!CHECK(fixture_make(&fx))) {
        fixture_free(&fx);
        return;
    }
    if (CHECK(stray_leaf(&fx, 0, &n))) {        /* static: all its code mapped */
        CHECK_EQ(n.invalid, 1);
        CHECK_EQ(n.by_cause[FRAME_NO_MAPPING], 1);
    }
    if (CHECK(stray_leaf(&fx, STRAY_DYNAMIC, &n))) {         /* dynamic, libraries unshipped */
        CHECK_EQ(n.invalid, 0);
        CHECK_EQ(n.by_cause[FRAME_MAPS_PARTIAL], 1);
    }
    if (CHECK(stray_leaf(&fx, STRAY_JIT, &n))) {         /* JIT code */
        CHECK_EQ(n.invalid, 0);
        CHECK_EQ(n.by_cause[FRAME_MAPS_PARTIAL], 1);
    }
    /* The static program the process execs later has a space of its own:
     * its maps say nothing of the dynamic program's. */
    if (CHECK(stray_leaf(&fx, STRAY_DYNAMIC | STRAY_THEN_EXEC, &n))) {
        CHECK_EQ(n.invalid, 0);
        CHECK_EQ(n.by_cause[FRAME_MAPS_PARTIAL], 1);
    }
    fixture_free(&fx);
}

/* A kernel address outside the kernel image: in the module area a
 * module's code (no symbol shipped names it), unchecked; below the
 * image, invalid. */
static bool kernel_leaf(const struct fixture *fx, uint64_t rip, struct counts *out)
{
    struct profile p;
    char err[256], image[PATH_LEN];
    snprintf(image, sizeof(image), "%s/profile/minikernel", fx->build);
    struct profile_options o = { .sym = { .guest_root = fx->root, .kernel_image = image } };
    if (!CHECK(profile_init(&p, &o, err, sizeof(err))))
        return false;
    sample(&p, LOG_MODE_GUEST_KERNEL, rip, NULL, 0, 10);
    return check_only_sample(&p, out);
}

TEST(a_kernel_address_in_the_module_area_is_unchecked)
{
    struct fixture fx;
    struct counts n;
    if (!CHECK(fixture_make(&fx))) {
        fixture_free(&fx);
        return;
    }
    if (CHECK(kernel_leaf(&fx, 0xffffffffc020242full, &n))) {
        CHECK_EQ(n.invalid, 0);
        CHECK_EQ(n.by_cause[FRAME_MODULE], 1);
    }
    if (CHECK(kernel_leaf(&fx, 0xffffffff80001000ull, &n))) {
        CHECK_EQ(n.invalid, 1);
        CHECK_EQ(n.by_cause[FRAME_OUTSIDE_TEXT], 1);
    }
    fixture_free(&fx);
}

/* Under a leaf in do_syscall_64's own code the saved RIP may already be
 * the way back's (a signal handler's entry, as a busy shell's SIGCHLD
 * handler was in a Bochs capture): a user RIP there that follows no
 * syscall but starts an instruction is unchecked, not invalid; one that
 * starts no instruction is invalid, and under a system call's own code
 * the rule stays the syscall's. */
TEST(a_user_rip_the_way_back_may_have_rewritten_is_unchecked)
{
    static const char kallsyms[] = SYSCALL_PATH_KALLSYMS
                                   "ffffffff81008000 T __x64_sys_write\n";
    struct fixture fx;
    struct profile p;
    char err[256];
    if (!process_profile(&fx, &p, kallsyms))
        return;
    uint64_t handler[] = { KERNEL_ENTRY, fx.g };                 /* a function's entry */
    uint64_t mid_insn[] = { KERNEL_ENTRY, fx.after_syscall - 1 };  /* inside the syscall */
    uint64_t in_call[] = { KERNEL_LEAF + 0x20, KERNEL_ENTRY, fx.g };
    sample(&p, LOG_MODE_GUEST_KERNEL, KERNEL_LEAF + 0x40, handler, 2, 10);
    sample(&p, LOG_MODE_GUEST_KERNEL, KERNEL_LEAF + 0x40, mid_insn, 2, 11);
    sample(&p, LOG_MODE_GUEST_KERNEL, K_SYS_WRITE, in_call, 3, 12);
    static const enum frame_cause want[] = { FRAME_RETURN_PATH, FRAME_NOT_AFTER_SYSCALL,
                                             FRAME_NOT_AFTER_SYSCALL };
    static const enum frame_verdict verdict[] = { FRAME_UNCHECKED, FRAME_INVALID, FRAME_INVALID };
    if (CHECK(profile_finish(&p, NULL, err, sizeof(err))) && CHECK_EQ(p.sample_count, 3)) {
        struct frame_checker *c = frame_checker_new(p.sym);
        struct frame_result res[LOG_STACK_MAX + 1];
        for (uint64_t k = 0; c && k < p.sample_count; k++) {
            const struct profile_sample *s = &p.samples[k];
            frame_check_sample(c, s, res);
            CHECK_EQ(res[s->depth - 1].cause, want[k]);
            CHECK_EQ(res[s->depth - 1].verdict, verdict[k]);
        }
        frame_checker_free(c);
    }
    profile_free(&p);
    fixture_free(&fx);
}
