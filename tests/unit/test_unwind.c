/* DWARF unwinding of a copied user stack (host-tools/sym_unwind.c) on a
 * real one: this test copies its own registers and stack inside an lfind()
 * callback, as Vertigo copies a guest's (LOG_REC_USER_STACK), and hands
 * the symbolizer its own /proc/self/maps with "/" as the guest root. The
 * host's glibc keeps no frame pointers, nor does this file at -O1, so
 * only the call-frame information can give the chain through glibc.
 * (lfind, not qsort: the address sanitizer intercepts qsort with a 2 KiB
 * frame, more than one copy holds.) */
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host-tools/symbolize.h"
#include "tests/unit/unit.h"

#define FAKE_CR3 0x5000ull

static struct log_user_stack copied;
static uint8_t copied_bytes[LOG_USER_STACK_MAX];

/* Reads the stack above RSP byte by byte: other frames' bytes, which the
 * address sanitizer would call out of bounds of this one. */
__attribute__((no_sanitize("address"), noinline)) static void copy_stack(uint64_t rsp)
{
    const volatile uint8_t *p = (const volatile uint8_t *)(uintptr_t)rsp;
    for (uint32_t i = 0; i < LOG_USER_STACK_MAX; i++)
        copied_bytes[i] = p[i];
    copied.data = copied_bytes;
    copied.len = LOG_USER_STACK_MAX;
}

__attribute__((noinline)) static int compare_and_copy(const void *a, const void *b)
{
    static uint64_t r[LOG_UREG_COUNT];
    if (!copied.len) {
        /* RIP and RSP at the same instruction: the unwinder's rules for
         * that RIP describe this RSP. */
        __asm__ volatile("lea 0(%%rip), %%rax\n\tmov %%rax, 0(%0)\n\tmov %%rsp, 8(%0)\n\t"
                         "mov %%rbp, 16(%0)\n\tmov %%rbx, 24(%0)\n\tmov %%r12, 32(%0)\n\t"
                         "mov %%r13, 40(%0)\n\tmov %%r14, 48(%0)\n\tmov %%r15, 56(%0)"
                         : : "r"(r) : "rax", "memory");
        memcpy(copied.regs, r, sizeof(r));
        copy_stack(r[LOG_UREG_RSP]);
    }
    return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) static int find_and_copy(void)
{
    static const int v[8] = { 5, 3, 7, 1, 8, 2, 6, 4 };
    int key = 8;
    size_t n = 8;
    const int *found = lfind(&key, v, &n, sizeof(v[0]), compare_and_copy);
    return found ? (int)(found - v) : -1;
}

/* Ships maps (text of len bytes) and an identity of pid to s as the agent
 * would. */
static void ship_maps(struct symbolizer *s, uint32_t pid, const char *maps, size_t len)
{
    struct log_symbols r = { .kind = LOG_SYM_PROC_MAPS, .pid = pid, .last = true };
    for (size_t off = 0; off < len; r.chunk++) {
        size_t n = len - off < LOG_TEXT_MAX ? len - off : LOG_TEXT_MAX;
        while (off + n < len && n && maps[off + n - 1] != '\n')
            n--;
        r.data = (const uint8_t *)maps + off;
        r.len = (uint32_t)n;
        r.last = off + n == len;
        CHECK(sym_add_record(s, &r, 10));
        off += n;
    }
    char ident[64];
    int n = snprintf(ident, sizeof(ident), "%u %llx unit\n", pid, FAKE_CR3);
    struct log_symbols id = { .kind = LOG_SYM_PROCESS, .pid = pid, .last = true,
                              .data = (const uint8_t *)ident, .len = (uint32_t)n };
    CHECK(sym_add_record(s, &id, 20));
}

/* This process's maps, read once into maps (size bytes): their length. */
static size_t read_self_maps(char *maps, size_t size)
{
    FILE *f = fopen("/proc/self/maps", "re");
    size_t len = f ? fread(maps, 1, size - 1, f) : 0;
    if (f)
        fclose(f);
    maps[len] = '\0';
    return len;
}

/* Ships this process's maps and identity to s as the agent would. */
static void ship_self(struct symbolizer *s, uint32_t pid)
{
    static char maps[1 << 16];
    ship_maps(s, pid, maps, read_self_maps(maps, sizeof(maps)));
}

/* The same maps with every file named /bin/sh instead: as many lines, as
 * the maps of the same process before an exec may have. */
static size_t decoy_of(const char *maps, char *out, size_t size)
{
    size_t len = 0;
    for (const char *line = maps; *line && len + 16 < size;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        const char *path = memchr(line, '/', n);
        size_t keep = path ? (size_t)(path - line) : n;
        if (len + keep + 16 >= size)
            break;
        memcpy(out + len, line, keep);
        len += keep;
        len += (size_t)sprintf(out + len, "%s\n", path ? "/bin/sh" : "");
        line += n + (end != NULL);
    }
    out[len] = '\0';
    return len;
}

static const char *name_at(struct symbolizer *s, const struct sym_where *w, uint64_t ret)
{
    return sym_function(s, sym_frame(s, sym_resolve(s, w, ret - 1))->function)->name;
}

TEST(a_copied_stack_unwinds_through_glibc_without_frame_pointers)
{
    char err[128];
    uint32_t pid = (uint32_t)getpid();
    CHECK_EQ(find_and_copy(), 4);
    CHECK_EQ(copied.len, LOG_USER_STACK_MAX);
    struct symbolizer *s = sym_create(&(struct sym_options){ .guest_root = "/" }, err, sizeof(err));
    if (!CHECK(s != NULL))
        return;
    ship_self(s, pid);
    struct sym_where w = { .mode = LOG_MODE_GUEST_USER, .has_cr3 = true, .cr3 = FAKE_CR3,
                           .identity_seq = sym_identity_seq_at(s, 30) };
    uint64_t out[LOG_STACK_MAX];
    unsigned int n = sym_unwind_user(s, &w, &copied, out, LOG_STACK_MAX);
    bool through_glibc = false, to_caller = false;
    for (unsigned int i = 0; i < n; i++) {
        const char *name = name_at(s, &w, out[i]);
        through_glibc |= strstr(name, "lfind") != NULL;
        to_caller |= !strcmp(name, "find_and_copy") && through_glibc;
    }
    CHECK(n >= 2);
    CHECK(through_glibc);
    CHECK(to_caller);
    /* a copy that stops short (a few bytes) gives fewer frames, never more */
    struct log_user_stack short_copy = copied;
    short_copy.len = 16;
    CHECK(sym_unwind_user(s, &w, &short_copy, out, LOG_STACK_MAX) < n);
    /* an unknown process (no identity, no maps for its CR3's RIP) gives none */
    struct log_user_stack elsewhere = copied;
    elsewhere.regs[LOG_UREG_RIP] = 0x10;
    CHECK_EQ(sym_unwind_user(s, &w, &elsewhere, out, LOG_STACK_MAX), 0);
    sym_destroy(s);
}

/* A process whose maps were shipped before its exec and again after (as
 * many lines): a sample after the second set unwinds with the new set's
 * files, not with an unwinder built for the old set's. Both sets come from one reading of the maps (the unwinder's own
 * mappings of ELF files would add lines to a second reading). */
TEST(an_exec_with_as_many_maps_unwinds_with_the_new_files)
{
    static char maps[1 << 16], decoy[1 << 16];
    char err[128];
    uint32_t pid = (uint32_t)getpid();
    copied.len = 0;
    CHECK_EQ(find_and_copy(), 4);
    size_t len = read_self_maps(maps, sizeof(maps));
    size_t decoy_len = decoy_of(maps, decoy, sizeof(decoy));
    struct symbolizer *s = sym_create(&(struct sym_options){ .guest_root = "/" }, err, sizeof(err));
    if (!CHECK(s != NULL))
        return;
    ship_maps(s, pid, decoy, decoy_len);
    struct sym_where w = { .mode = LOG_MODE_GUEST_USER, .has_cr3 = true, .cr3 = FAKE_CR3,
                           .identity_seq = sym_identity_seq_at(s, 30),
                           .maps_seq = sym_maps_seq_at(s, 30) };
    uint64_t out[LOG_STACK_MAX];
    unsigned int before = sym_unwind_user(s, &w, &copied, out, LOG_STACK_MAX);
    ship_maps(s, pid, maps, len);
    w.identity_seq = sym_identity_seq_at(s, 30);
    w.maps_seq = sym_maps_seq_at(s, 30);
    unsigned int n = sym_unwind_user(s, &w, &copied, out, LOG_STACK_MAX);
    bool through_glibc = false;
    for (unsigned int i = 0; i < n; i++)
        through_glibc |= strstr(name_at(s, &w, out[i]), "lfind") != NULL;
    CHECK(through_glibc);
    CHECK(n > before);
    sym_destroy(s);
}
