/* Unit tests: the domains' console queues drained to the console
 * (vmm/console/console_drain.c) against a fake console whose line in flight takes
 * a few bytes per poll, as a UART's FIFO does. */
#include "vmm/console/console_drain.h"

#include "boot/platform.h"
#include "lib/console.h"
#include "tests/unit/unit.h"

/* ---- The fake console ----------------------------------------------------- */

static char out[1 << 16];               /* everything written, in order */
static size_t out_len;
static char flight[CON_LINE_MAX];
static size_t flight_len, flight_pos;
static size_t bytes_per_poll = 16;      /* a FIFO's worth */
static bool channel = true, locked;

bool con_has_channel(void) { return channel; }
uint64_t platform_tsc_hz(void) { return 1152000000ull; }

static void fake_write_some(void)
{
    size_t n = flight_len - flight_pos < bytes_per_poll ? flight_len - flight_pos : bytes_per_poll;
    memcpy(out + out_len, flight + flight_pos, n);
    out_len += n;
    flight_pos += n;
    if (flight_pos == flight_len)
        flight_len = flight_pos = 0;
}

bool con_start_line(const char *line, size_t len)
{
    if (flight_len || locked || len > CON_LINE_MAX)
        return false;
    memcpy(flight, line, len);
    flight_len = len;
    flight_pos = 0;
    fake_write_some();
    return true;
}

bool con_poll(void)
{
    if (flight_len && !locked)
        fake_write_some();
    return flight_len != 0;
}

void con_finish_line(void)
{
    bytes_per_poll = CON_LINE_MAX;
    if (flight_len)
        fake_write_some();
    bytes_per_poll = 16;
}

/* As printk does: the rest of the line in flight first, then its text. */
void con_write_line(const char *prefix, const char *text, size_t len)
{
    con_finish_line();
    out_len += (size_t)sprintf(out + out_len, "%s%.*s\n", prefix, (int)len, text);
}

static void reset(void)
{
    out_len = flight_len = flight_pos = 0;
    bytes_per_poll = 16;
    channel = true;
    locked = false;
}

static unsigned int polls_until_idle(void)
{
    unsigned int polls = 0;
    while (console_drain_pending() && polls < 100000) {
        console_drain_poll();
        polls++;
    }
    return polls;
}

static struct line_queue q1, q2, q3;

/* Lines go out whole, each domain's in its order, the domains in turn (a
 * line of each while both have lines), a FIFO's worth per poll; the
 * pending count falls to 0 only once the last line is out. */
TEST(domains_lines_go_out_whole_in_turn_a_fifo_per_poll)
{
    reset();
    CHECK(!console_drain_pending());
    CHECK_EQ(console_drain_wait_ticks(), 0);
    CHECK(console_drain_put(1, &q1, "[a] ", "one", 3));
    CHECK(console_drain_put(1, &q1, "[a] ", "two", 3));
    CHECK(console_drain_put(2, &q2, "[b] ", "uno", 3));
    CHECK(console_drain_pending());
    /* a FIFO's transmit time at 115200 baud: 160 bits, 1.39 ms */
    CHECK_EQ(console_drain_wait_ticks(), 1152000000ull * 160 / 115200);
    console_drain_poll();
    CHECK_EQ(out_len, 8);                       /* "[a] one\n" in one poll */
    unsigned int polls = polls_until_idle();
    out[out_len] = '\0';
    CHECK_STR(out, "[a] one\n[b] uno\n[a] two\n");
    CHECK(polls >= 2 && polls <= 4);
    CHECK(!console_drain_pending());
    CHECK_EQ(console_drain_wait_ticks(), 0);

    /* a long line takes a poll per 16 bytes, and nothing waits meanwhile */
    reset();
    char text[100];
    memset(text, 'x', sizeof(text));
    CHECK(console_drain_put(3, &q3, "[c] ", text, sizeof(text)));
    polls = polls_until_idle();
    CHECK_EQ(out_len, 105);
    CHECK_EQ(polls, (105 + 15) / 16);           /* the last poll writes its end */
}

/* While the console is taken (printk on another CPU), polls write nothing
 * and lose nothing; a printk that finishes the line in flight is counted
 * as its end. No channel: nothing is kept. */
TEST(a_busy_console_delays_and_a_printk_finishes_the_line)
{
    reset();
    CHECK(console_drain_put(1, &q1, "[a] ", "a line longer than a fifo", 25));
    console_drain_poll();
    CHECK_EQ(out_len, 16);
    locked = true;
    for (unsigned int i = 0; i < 10; i++)
        console_drain_poll();
    CHECK_EQ(out_len, 16);
    locked = false;
    con_write_line("", "vertigo's own", 13);    /* finishes the domain's line first */
    out[out_len] = '\0';
    CHECK_STR(out, "[a] a line longer than a fifo\nvertigo's own\n");
    CHECK(console_drain_pending());
    console_drain_poll();
    CHECK(!console_drain_pending());

    reset();
    channel = false;
    CHECK(console_drain_put(1, &q1, "[a] ", "nowhere", 7));
    CHECK(!console_drain_pending());
    CHECK_EQ(line_queue_peek(&q1, flight), 0);
}

/* A full queue refuses the line whole; the run's end writes every queued
 * line, the one in flight first. */
TEST(a_full_queue_refuses_and_the_end_flushes_everything)
{
    reset();
    char text[150];
    memset(text, 'y', sizeof(text));
    unsigned int put = 0;
    while (console_drain_put(2, &q2, "[b] ", text, sizeof(text)))
        put++;
    CHECK_EQ(put, LINE_QUEUE_BYTES / (2 + 4 + 150 + 1));
    CHECK(console_drain_put(1, &q1, "[a] ", "other domain", 12));   /* its own queue */
    console_drain_poll();
    CHECK_EQ(out_len, 16);
    console_drain_flush();
    CHECK(!console_drain_pending());
    CHECK_EQ(out_len, (size_t)(put * 155 + 17));
    CHECK(console_drain_put(2, &q2, "[b] ", text, sizeof(text)));   /* room again */
    console_drain_flush();
    CHECK(!console_drain_pending());
}
