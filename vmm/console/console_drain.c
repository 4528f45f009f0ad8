/* The domains' console queues drained to the text console (see
 * vmm/console/console_drain.h). drain_lock is only ever tried: a poll that finds
 * another CPU draining returns. console_drain_lines counts the lines
 * queued and the one the drain has in flight, so the VM-exit path's look
 * costs one load while nothing waits. */
#include "vmm/console/console_drain.h"

#include "lib/cpu.h"
#include "boot/platform.h"
#include "lib/console.h"
#include "lib/spinlock.h"
#include "lib/uart.h"

#define UART_BITS_PER_BYTE  10u         /* start, 8 data, stop */
#define FLUSH_SPIN_LIMIT    100000000u  /* give up waiting for another CPU's poll */

_Static_assert(LINE_QUEUE_LINE_MAX <= CON_LINE_MAX, "a queued line fits the line in flight");

uint32_t console_drain_lines;
static struct line_queue *queues[CONSOLE_DRAIN_QUEUES];
static struct spinlock drain_lock = SPINLOCK_INIT;
static unsigned int next_slot;          /* under drain_lock */
static bool flying;                     /* under drain_lock: a line of ours in flight */

bool console_drain_put(unsigned int slot, struct line_queue *q, const char *prefix,
                       const char *text, size_t len)
{
    if (slot >= CONSOLE_DRAIN_QUEUES || !con_has_channel())
        return true;
    if (!line_queue_put(q, prefix, text, len))
        return false;
    if (!__atomic_load_n(&queues[slot], __ATOMIC_ACQUIRE))
        __atomic_store_n(&queues[slot], q, __ATOMIC_RELEASE);
    __atomic_add_fetch(&console_drain_lines, 1, __ATOMIC_RELEASE);
    return true;
}

/* The next queued line in turn into flight, if the console takes it. */
static void start_next_line(void)
{
    char line[LINE_QUEUE_LINE_MAX];
    for (unsigned int i = 0; i < CONSOLE_DRAIN_QUEUES; i++) {
        unsigned int slot = (next_slot + i) % CONSOLE_DRAIN_QUEUES;
        struct line_queue *q = __atomic_load_n(&queues[slot], __ATOMIC_ACQUIRE);
        size_t len = q ? line_queue_peek(q, line) : 0;
        if (!len)
            continue;
        if (con_start_line(line, len)) {
            line_queue_drop(q);
            flying = true;
            next_slot = (slot + 1) % CONSOLE_DRAIN_QUEUES;
        }
        return;
    }
}

/* The line in flight is out (written here or by a printk that finished
 * it): it no longer counts. */
static void settle_flight(void)
{
    if (flying && !con_poll()) {
        flying = false;
        __atomic_sub_fetch(&console_drain_lines, 1, __ATOMIC_RELEASE);
    }
}

void console_drain_poll(void)
{
    if (!console_drain_pending() || !spin_trylock(&drain_lock))
        return;
    settle_flight();
    if (!flying)
        start_next_line();
    spin_unlock(&drain_lock);
}

uint64_t console_drain_wait_ticks(void)
{
    if (!console_drain_pending())
        return 0;
    return platform_tsc_hz() * UART_BITS_PER_BYTE * UART_TX_FIFO_BYTES / CONSOLE_DRAIN_BAUD;
}

void console_drain_flush(void)
{
    char line[LINE_QUEUE_LINE_MAX];
    for (uint32_t spin = 0; !spin_trylock(&drain_lock); spin++) {
        if (spin == FLUSH_SPIN_LIMIT)
            return;
        cpu_relax();
    }
    if (flying)
        con_finish_line();
    settle_flight();
    for (unsigned int slot = 0; slot < CONSOLE_DRAIN_QUEUES; slot++) {
        struct line_queue *q = __atomic_load_n(&queues[slot], __ATOMIC_ACQUIRE);
        size_t len;
        while (q && (len = line_queue_peek(q, line)) != 0) {
            con_write_line("", line, len - 1);      /* its newline written by con_write_line */
            line_queue_drop(q);
            __atomic_sub_fetch(&console_drain_lines, 1, __ATOMIC_RELEASE);
        }
    }
    spin_unlock(&drain_lock);
}
