/* Unit tests: a domain's console output cut into lines (vmm/domain_console.c). */
#include "vmm/domain_console.h"

#include "tests/unit/unit.h"

struct lines {
    char text[8][DOMAIN_CONSOLE_LINE + 1];
    unsigned int count;
};

static void collect(void *ctx, const char *line, size_t len)
{
    struct lines *l = ctx;
    if (l->count < 8) {
        memcpy(l->text[l->count], line, len);
        l->text[l->count][len] = '\0';
    }
    l->count++;
}

TEST(lines_are_cut_at_newlines_across_writes)
{
    struct domain_console c = { .len = 0 };
    struct lines l = { .count = 0 };
    domain_console_write(&c, "hel", 3, collect, &l);
    CHECK_EQ(l.count, 0);
    domain_console_write(&c, "lo\nworld\n\nend", 13, collect, &l);
    CHECK_EQ(l.count, 3);
    CHECK_STR(l.text[0], "hello");
    CHECK_STR(l.text[1], "world");
    CHECK_STR(l.text[2], "");
    domain_console_flush(&c, collect, &l);
    CHECK_EQ(l.count, 4);
    CHECK_STR(l.text[3], "end");
    domain_console_flush(&c, collect, &l);       /* nothing left: nothing emitted */
    CHECK_EQ(l.count, 4);
}

TEST(control_bytes_cannot_forge_lines)
{
    struct domain_console c = { .len = 0 };
    struct lines l = { .count = 0 };
    domain_console_write(&c, "a\rb\0c\x1b[2J\x7f\td\n", 13, collect, &l);
    CHECK_EQ(l.count, 1);
    CHECK_STR(l.text[0], "abc?[2J?\td");
}

TEST(long_lines_are_split_whole)
{
    struct domain_console c = { .len = 0 };
    struct lines l = { .count = 0 };
    char text[DOMAIN_CONSOLE_LINE * 2 + 10];
    memset(text, 'x', sizeof(text));
    domain_console_write(&c, text, sizeof(text), collect, &l);
    CHECK_EQ(l.count, 2);
    CHECK_EQ(strlen(l.text[1]), DOMAIN_CONSOLE_LINE);
    CHECK_EQ(c.len, 10);
}
