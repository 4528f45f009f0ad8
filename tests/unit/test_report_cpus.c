/* A log of two CPUs, each CPU's records reaching the stream on their own
 * (host-tools/profile.c: profile_read_log): a process (pid 98,
 * "agent") is shipped from CPU 0 and exits; a new process (pid 101,
 * "busybox") gets its page-table root and is shipped from CPU 0 too; CPU
 * 1 samples the new process after that identity in TSC time, but CPU 1's
 * block reaches the stream before CPU 0's block with the identity. The
 * sample is the new process's, named by time and not by arrival: loaded
 * from a file and from standard input, and through `vertigo top`'s
 * reading of a file, and from a pipe named by path. When the blocks
 * arrive in TSC order the log is read once. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host-tools/profile.h"
#include "host-tools/vertigo.h"
#include "tests/fixtures/profile/gen_profile.h"
#include "tests/unit/test_log_util.h"
#include "tests/unit/unit.h"
#include "vmm/log/log_emit.h"

#define CR3        0x5000ull        /* the root both processes had, one after the other */
#define OLD_PID    98u
#define NEW_PID    101u
#define RING_BYTES (64u * 1024u)
#define PATH_LEN   512u
#define ERR_LEN    256u

static bool ship(struct log_ring *ring, uint64_t tsc, uint8_t kind, uint32_t pid, const char *text)
{
    struct log_symbols s = { .domain = 0, .kind = kind, .pid = pid, .last = true,
                             .data = (const uint8_t *)text, .len = (uint32_t)strlen(text) };
    return CHECK(log_emit_symbols(ring, tsc, &s));
}

/* A process's maps (the workload's text, as the module's watch ships them
 * at an exec) and its identity, at tsc. */
static bool ship_process(struct log_ring *ring, uint64_t tsc, uint32_t pid, const char *comm,
                         const char *workload)
{
    uint64_t start, end, offset;
    if (!CHECK(gen_elf_text(workload, &start, &end, &offset)))
        return false;
    char maps[256], identity[64];
    snprintf(maps, sizeof(maps), "%08llx-%08llx r-xp %08llx 00:02 1001 /bin/workload\n",
             (unsigned long long)start, (unsigned long long)end, (unsigned long long)offset);
    snprintf(identity, sizeof(identity), "%u %llx %s\n", pid, (unsigned long long)CR3, comm);
    return ship(ring, tsc, LOG_SYM_PROC_MAPS, pid, maps) &&
           ship(ring, tsc + 1, LOG_SYM_PROCESS, pid, identity);
}

/* The stream: CPU 0's first block (the old process), CPU 1's block (the
 * sample at TSC 3000), CPU 0's second block (the new process at 2000);
 * in_order: the last two the other way round. */
static bool stream_make(struct log_test_stream *st, const char *workload, bool in_order)
{
    static uint8_t storage[2][RING_BYTES];
    struct log_ring cpu0, cpu1;
    uint64_t g, size;
    if (!CHECK(log_ring_init(&cpu0, 0, storage[0], RING_BYTES)) ||
        !CHECK(log_ring_init(&cpu1, 1, storage[1], RING_BYTES)) ||
        !CHECK(gen_elf_symbol(workload, "g", &g, &size)))
        return false;
    log_test_stream_header(st, 2);
    if (!ship_process(&cpu0, 1000, OLD_PID, "agent", workload))
        return false;
    log_test_drain(st, &cpu0, 4096);
    struct log_sample s = { .domain = 0, .vcpu = 1, .mode = LOG_MODE_GUEST_USER, .rip = g,
                            .has_cr3 = true, .cr3 = CR3 };
    if (!CHECK(log_emit_sample(&cpu1, 3000, &s)) ||
        !ship_process(&cpu0, 2000, NEW_PID, "busybox", workload))
        return false;
    log_test_drain(st, in_order ? &cpu0 : &cpu1, 4096);
    log_test_drain(st, in_order ? &cpu1 : &cpu0, 4096);
    return true;
}

static void expect_new_process(const struct profile *p)
{
    if (!CHECK_EQ(p->sample_count, 1))
        return;
    CHECK_EQ(p->samples[0].process.pid, NEW_PID);
    CHECK_STR(p->samples[0].process.comm, "busybox");
}

struct capture {
    char root[PATH_LEN], workload[PATH_LEN], path[PATH_LEN];
};

static bool capture_make_as(struct capture *c, bool in_order)
{
    char build[PATH_LEN / 2];
    if (!CHECK(gen_build_dir(build, sizeof(build))))
        return false;
    snprintf(c->root, sizeof(c->root), "%s/profile/root", build);
    snprintf(c->workload, sizeof(c->workload), "%s/profile/root/bin/workload", build);
    snprintf(c->path, sizeof(c->path), "%s/unit/two-cpus%s.bin", build, in_order ? "-in-order" : "");
    struct log_test_stream st = { 0 };
    bool ok = stream_make(&st, c->workload, in_order);
    FILE *f = fopen(c->path, "wb");
    ok = ok && CHECK(f) && CHECK(fwrite(st.data, 1, st.len, f) == st.len);
    if (f)
        ok = CHECK(fclose(f) == 0) && ok;
    log_test_stream_free(&st);
    return ok;
}

static bool capture_make(struct capture *c)
{
    return capture_make_as(c, false);
}

/* c's log loaded from path as `vertigo report` loads it: read again or
 * not as reread says, its sample the new process's. */
static void expect_loaded(const struct capture *c, const char *path, bool reread)
{
    struct profile_options o = { .sym = { .guest_root = c->root } };
    struct profile p;
    if (CHECK_EQ(profile_load(&p, "report", path, &o), VERTIGO_EXIT_OK)) {
        CHECK_EQ(p.rereading, reread);
        expect_new_process(&p);
    }
    profile_free(&p);
}

TEST(a_sample_is_named_by_time_across_cpus)
{
    struct capture c;
    if (!capture_make(&c))
        return;
    expect_loaded(&c, c.path, true);
    FILE *saved = stdin;            /* the same stream through standard input */
    stdin = fopen(c.path, "rb");
    if (CHECK(stdin))
        expect_loaded(&c, "-", true);
    if (stdin)
        fclose(stdin);
    stdin = saved;
}

/* A pipe named by path (as a shell's `<(...)` names one) is copied as
 * standard input is: read again, it gives the same naming. */
TEST(a_log_from_a_pipe_is_read_again_too)
{
    struct capture c;
    if (!capture_make(&c))
        return;
    FILE *f = fopen(c.path, "rb");
    char bytes[8192], path[64];
    size_t len = f ? fread(bytes, 1, sizeof(bytes), f) : 0;
    if (f)
        fclose(f);
    int fds[2];
    if (!CHECK(len > 0 && len < sizeof(bytes)) || !CHECK(pipe(fds) == 0))
        return;
    bool written = CHECK(write(fds[1], bytes, len) == (ssize_t)len);   /* fits the pipe */
    close(fds[1]);
    snprintf(path, sizeof(path), "/dev/fd/%d", fds[0]);
    if (written)
        expect_loaded(&c, path, true);
    close(fds[0]);
}

/* `vertigo top` reads the file itself (profile_read_log on an open
 * file): it reads the log again once CPU 0's late identity shows that the
 * sample was named without it. */
TEST(a_sample_is_named_by_time_across_cpus_in_top)
{
    struct capture c;
    if (!capture_make(&c))
        return;
    struct profile_options o = { .sym = { .guest_root = c.root } };
    struct profile p;
    char err[ERR_LEN];
    if (!CHECK(profile_init(&p, &o, err, sizeof(err))))
        return;
    FILE *in = fopen(c.path, "rb");
    struct logdec *dec = malloc(sizeof(*dec));
    if (CHECK(in) && CHECK(dec) && CHECK_EQ(profile_read_log(&p, "top", c.path, in, dec), 0)) {
        CHECK(p.rereading);
        CHECK_EQ(p.raw_samples, 1);
        CHECK_EQ(p.symbol_records, 4);
        CHECK_EQ(p.symbol_records_again, 4);
        if (CHECK(profile_finish(&p, NULL, err, sizeof(err))))
            expect_new_process(&p);
    }
    free(dec);
    if (in)
        fclose(in);
    profile_free(&p);
}

/* Blocks in TSC order: read once, the same naming. */
TEST(a_log_in_time_order_is_read_once)
{
    struct capture c;
    if (capture_make_as(&c, true))
        expect_loaded(&c, c.path, false);
}
