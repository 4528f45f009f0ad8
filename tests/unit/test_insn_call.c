/* The call and syscall decoder (host-tools/insn_call.c) against binutils'
 * objdump: every instruction of real binaries (the static workload
 * fixture with its C library, and Vertigo's own ELF) is disassembled by
 * objdump, and the decoder must say "a call ends here" at the end of every
 * call objdump finds (E8 and FF /2 in all their operand forms, with
 * prefixes), and "a syscall ends here" at the end of every syscall. At
 * the end of other instructions it may also say so when the instruction's
 * own last bytes spell a call (an immediate ending in E8 and four bytes):
 * a return address is checked by the bytes before it, and no decoder can
 * tell those apart going backwards; the test bounds how often that
 * happens in real code (under 1 % of the instructions). And the instruction starts
 * (host-tools/insn_starts.c) are objdump's own. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host-tools/insn_call.h"
#include "host-tools/insn_starts.h"
#include "tests/unit/unit.h"

#define LINE_MAX_LEN 1024u
#define BYTES_MAX (64u << 20)

struct insn {
    uint64_t addr;
    uint32_t len;
    bool call, syscall;
};

struct listing {
    uint8_t *bytes;              /* the .text bytes, from objdump's listing */
    uint64_t start;
    struct insn *insns;
    size_t count, cap;
    size_t len;
};

/* "  401000:\tf3 0f 1e fa          \tendbr64" (objdump -d -w). */
static bool parse_line(struct listing *l, const char *line)
{
    char *end;
    uint64_t addr = strtoull(line, &end, 16);
    if (end == line || end[0] != ':' || end[1] != '\t')
        return true;
    const char *p = end + 2, *tab = strchr(p, '\t');
    if (!tab)
        return true;                 /* a continuation of raw bytes: -w avoids them */
    if (!l->count)
        l->start = addr;
    if (addr < l->start + l->len || addr - l->start >= BYTES_MAX)
        return false;
    while (l->start + l->len < addr)
        l->bytes[l->len++] = 0;      /* objdump's "..." stands for zero bytes */
    uint32_t n = 0;
    while (p < tab) {
        char *q;
        unsigned long b = strtoul(p, &q, 16);
        if (q == p)
            break;
        if (l->len >= BYTES_MAX)
            return false;
        l->bytes[l->len++] = (uint8_t)b;
        n++;
        p = q;
        while (*p == ' ')
            p++;
    }
    const char *m = tab + 1;
    if (!strncmp(m, "notrack ", 8))
        m += 8;
    if (!strncmp(m, "data16 ", 7))
        m += 7;
    if (l->count == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 4096;
        l->insns = realloc(l->insns, l->cap * sizeof(*l->insns));
    }
    l->insns[l->count++] = (struct insn){ addr, n, !strncmp(m, "call", 4), !strncmp(m, "syscall", 7) };
    return true;
}

static bool disassemble(const char *path, struct listing *l)
{
    memset(l, 0, sizeof(*l));
    l->bytes = malloc(BYTES_MAX);
    char cmd[LINE_MAX_LEN], line[LINE_MAX_LEN];
    snprintf(cmd, sizeof(cmd), "objdump -d -w -j .text '%s'", path);
    FILE *p = popen(cmd, "r");
    bool ok = p && l->bytes;
    while (ok && fgets(line, sizeof(line), p))
        ok = parse_line(l, line);
    if (p)
        ok = pclose(p) == 0 && ok;
    return ok && l->count > 1000;
}

static void listing_free(struct listing *l)
{
    free(l->bytes);
    free(l->insns);
}

static void check_binary(const char *path)
{
    struct listing l;
    if (!CHECK(disassemble(path, &l))) {
        listing_free(&l);
        return;
    }
    size_t calls = 0, syscalls = 0, calls_missed = 0, syscalls_missed = 0, false_calls = 0;
    for (size_t i = 0; i < l.count; i++) {
        const struct insn *n = &l.insns[i];
        size_t end = (size_t)(n->addr - l.start) + n->len;
        bool call = insn_call_ends_at(l.bytes, end), sys = insn_syscall_ends_at(l.bytes, end);
        calls += n->call;
        syscalls += n->syscall;
        calls_missed += n->call && !call;
        syscalls_missed += n->syscall && !sys;
        false_calls += !n->call && call;
    }
    printf("    %s: %zu instructions, %zu calls, %zu syscalls; %zu others end in a call's bytes\n",
           path, l.count, calls, syscalls, false_calls);
    CHECK(calls > 100);
    CHECK_EQ(calls_missed, 0);
    CHECK_EQ(syscalls_missed, 0);
    CHECK(false_calls * 100 < l.count);
    listing_free(&l);
}

/* BUILD/rel, BUILD being where this test was built ($(BUILD)/unit/NAME). */
static void build_path(char *out, size_t len, const char *rel)
{
    char self[512];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    self[n > 0 ? n : 0] = '\0';
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(self, '/');
        if (slash)
            *slash = '\0';
    }
    snprintf(out, len, "%s/%s", n > 0 ? self : "build", rel);
}

TEST(every_call_and_syscall_objdump_finds_is_found)
{
    char path[512];
    build_path(path, sizeof(path), "profile/root/bin/workload");
    check_binary(path);
    build_path(path, sizeof(path), "vertigo.elf");
    check_binary(path);
}

TEST(each_form_of_call_by_hand)
{
    static const uint8_t rel32[] = { 0x90, 0xe8, 1, 2, 3, 4 };           /* call rel32 */
    static const uint8_t reg[] = { 0x41, 0xff, 0xd3 };                  /* call *%r11 */
    static const uint8_t rip[] = { 0xff, 0x15, 1, 2, 3, 4 };            /* call *disp(%rip) */
    static const uint8_t sib[] = { 0xff, 0x14, 0xc5, 1, 2, 3, 4 };      /* call *disp(,%rax,8) */
    static const uint8_t disp8[] = { 0xff, 0x50, 0x08 };                /* call *8(%rax) */
    static const uint8_t jmp[] = { 0xff, 0xe0 };                        /* jmp *%rax: FF /4 */
    static const uint8_t sys[] = { 0x0f, 0x05 };
    CHECK(insn_call_ends_at(rel32, sizeof(rel32)));
    CHECK(!insn_call_ends_at(rel32, sizeof(rel32) - 1));
    CHECK(insn_call_ends_at(reg, sizeof(reg)));
    CHECK(insn_call_ends_at(rip, sizeof(rip)));
    CHECK(insn_call_ends_at(sib, sizeof(sib)));
    CHECK(insn_call_ends_at(disp8, sizeof(disp8)));
    CHECK(!insn_call_ends_at(jmp, sizeof(jmp)));
    CHECK(insn_syscall_ends_at(sys, sizeof(sys)));
    CHECK(!insn_syscall_ends_at(sys, 1));
    CHECK(!insn_call_ends_at(sys, 0));
}

TEST(instruction_starts_are_objdumps)
{
    struct listing l;
    char path[512];
    build_path(path, sizeof(path), "profile/root/bin/workload");
    if (!CHECK(disassemble(path, &l))) {
        listing_free(&l);
        return;
    }
    struct insn_starts *c = insn_starts_new();
    size_t checked = 0, wrong = 0;
    for (size_t i = 0; i + 1 < l.count && i < 5000; i += 7) {
        const struct insn *n = &l.insns[i];
        wrong += insn_starts_at(c, l.bytes, l.start, l.len, l.start, n->addr) != 1;
        if (n->len > 1)      /* the middle of an instruction is no start */
            wrong += insn_starts_at(c, l.bytes, l.start, l.len, l.start, n->addr + 1) != 0;
        checked++;
    }
    CHECK(checked > 500);
    CHECK_EQ(wrong, 0);
    insn_starts_free(c);
    listing_free(&l);
}
