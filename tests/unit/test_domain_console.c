/* Unit tests: a domain's console output cut into lines, rate-limited and
 * queued for Vertigo's console (vmm/domain/domain_console.c, vmm/console/token_bucket.c,
 * vmm/console/line_queue.c). */
#include "vmm/domain/domain_console.h"
#include "vmm/console/line_queue.h"

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

/* The rate limit: a burst of DOMAIN_CONSOLE_BURST bytes, then
 * DOMAIN_CONSOLE_RATE bytes a second; a line that does not fit is dropped
 * and counted, never waited for; tokens earned are never lost between
 * calls (no drift), and no TSC rate means no limit. */
TEST(console_rate_limits_a_flood_and_counts_what_it_drops)
{
    const uint64_t hz = 1000000000ull;      /* 1 GHz TSC */
    struct domain_console_rate r = { 0 };
    uint64_t now = 5000;
    unsigned int lines = 0;

    /* a flood of 99-byte lines (100 with the newline), all at once */
    for (unsigned int i = 0; i < 1000; i++)
        if (domain_console_admit(&r, 99, now, hz))
            lines++;
    CHECK_EQ(lines, DOMAIN_CONSOLE_BURST / 100);
    CHECK_EQ(r.dropped.lines, 1000 - lines);
    CHECK_EQ(r.dropped.bytes, (1000 - lines) * 100ull);
    CHECK_EQ(r.dropped.unreported_lines, r.dropped.lines);
    /* one second later: exactly DOMAIN_CONSOLE_RATE bytes more (plus the
     * burst's leftover 36 bytes), earned in 1 ms steps without drift */
    lines = 0;
    for (unsigned int ms = 1; ms <= 1000; ms++)
        while (domain_console_admit(&r, 9, now + ms * (hz / 1000), hz))
            lines++;
    CHECK_EQ(lines, (DOMAIN_CONSOLE_RATE + DOMAIN_CONSOLE_BURST % 100) / 10);
    /* a long quiet time refills the burst, no more */
    now += 3600 * hz;
    lines = 0;
    while (domain_console_admit(&r, 0, now, hz))
        lines++;
    CHECK_EQ(lines, DOMAIN_CONSOLE_BURST);
    /* no known TSC rate: no limit */
    struct domain_console_rate open = { 0 };
    for (unsigned int i = 0; i < 10000; i++)
        CHECK(domain_console_admit(&open, 159, 0, 0));
    CHECK_EQ(open.dropped.lines, 0);
}

/* The console queue: whole lines in order, across the ring's wrap; a line
 * that does not fit is refused whole, never cut; so is one longer than
 * LINE_QUEUE_LINE_MAX; peeking does not take. */
TEST(line_queue_keeps_whole_lines_in_order_and_refuses_when_full)
{
    static struct line_queue q;
    char out[LINE_QUEUE_LINE_MAX], text[LINE_QUEUE_LINE_MAX];
    memset(&q, 0, sizeof(q));
    CHECK_EQ(line_queue_peek(&q, out), 0);
    line_queue_drop(&q);                        /* empty: nothing happens */
    CHECK_EQ(q.tail, 0);

    memset(text, 'x', sizeof(text));
    unsigned int put = 0;
    while (line_queue_put(&q, "[dom1] ", text, 99))     /* 107 bytes a line, 109 with its length */
        put++;
    CHECK_EQ(put, LINE_QUEUE_BYTES / 109);
    CHECK(!line_queue_has_room(&q, line_queue_cost(107)));
    CHECK_EQ(line_queue_peek(&q, out), 107);
    CHECK(memcmp(out, "[dom1] xxx", 10) == 0);
    CHECK_EQ(out[106], '\n');
    CHECK_EQ(line_queue_peek(&q, out), 107);    /* still there */

    /* taking one line makes room for one more, written across the wrap;
     * then 27 bytes are left: a 25-byte line fits, a 26-byte one not */
    line_queue_drop(&q);
    CHECK(line_queue_put(&q, "[dom1] ", text, 99));
    CHECK(!line_queue_put(&q, "[dom1] ", "wrapped line!!!!!!", 18));
    CHECK(line_queue_put(&q, "[dom1] ", "wrapped line!!!!!", 17));
    CHECK(!line_queue_put(&q, "", "", 0));
    unsigned int taken = 0;
    size_t len;
    while ((len = line_queue_peek(&q, out)) == 107) {
        CHECK(memcmp(out, "[dom1] xxx", 10) == 0 && out[106] == '\n');
        line_queue_drop(&q);
        taken++;
    }
    CHECK_EQ(taken, put);
    CHECK_EQ(len, 25);
    CHECK(memcmp(out, "[dom1] wrapped line!!!!!\n", 25) == 0);
    line_queue_drop(&q);
    CHECK_EQ(line_queue_peek(&q, out), 0);
    CHECK_EQ(q.head, q.tail);

    /* the longest line fits whole, one byte more is refused */
    CHECK(line_queue_put(&q, "[p] ", text, LINE_QUEUE_LINE_MAX - 5));
    CHECK_EQ(line_queue_peek(&q, out), LINE_QUEUE_LINE_MAX);
    CHECK(!line_queue_put(&q, "[p] ", text, LINE_QUEUE_LINE_MAX - 4));
    CHECK(!line_queue_put(&q, "", text, LINE_QUEUE_LINE_MAX));
}
