/* Console output: formats into a per-call buffer and writes it to the
 * serial port and/or the 0xE9 debug port and the screen (the screen
 * console, vmm/console/screen_console.c, registers itself), and hands it
 * to the record sink (the profiling log registers one). A recursive lock keeps lines
 * from different CPUs apart; a CPU that re-enters (an NMI or exception
 * while it prints) writes through instead of deadlocking. Queued lines
 * (con_start_line) go out a FIFO's worth at a time without waiting. */
#include "lib/console.h"

#include <stdarg.h>

#include "lib/cpu.h"
#include "lib/smp.h"
#include "lib/format.h"
#include "lib/mem.h"
#include "lib/spinlock.h"
#include "lib/uart.h"

#define DEBUG_PORT 0xe9
#define COM1_PORT  0x3f8

static struct console_config config = { .uart_ports = { COM1_PORT }, .debug_port = true };
static con_record_sink_fn *record_sink;
static con_screen_fn *screen;

/* con_lock keeps lines apart. A CPU marks itself in con_inside before it
 * waits for the lock and clears the mark after releasing it, so an NMI or
 * exception that prints on that CPU meanwhile sees the mark and writes
 * through: the lock may be held by the very code it interrupted. */
static struct spinlock con_lock = SPINLOCK_INIT;
static bool con_inside[MAX_CPUS];   /* written by its own CPU only */

void con_init(const struct console_config *cfg)
{
    config = *cfg;
    for (unsigned int i = 0; i < CONSOLE_UARTS_MAX; i++)
        if (config.uart_ports[i] && !uart_init(config.uart_ports[i]))
            config.uart_ports[i] = 0;
}

void con_release_port(uint16_t port)
{
    if (port == DEBUG_PORT)
        config.debug_port = false;
    for (unsigned int i = 0; i < CONSOLE_UARTS_MAX; i++)
        if (port && port == config.uart_ports[i])
            config.uart_ports[i] = 0;
}

void con_set_record_sink(con_record_sink_fn *sink)
{
    __atomic_store_n(&record_sink, sink, __ATOMIC_RELEASE);
}

void con_set_screen(con_screen_fn *putc)
{
    __atomic_store_n(&screen, putc, __ATOMIC_RELEASE);
}

uint16_t con_uart_port(unsigned int i)
{
    return i < CONSOLE_UARTS_MAX ? config.uart_ports[i] : 0;
}

/* The line in flight (con_start_line): flight_pos of flight_len bytes
 * written. Guarded by con_lock; in_flight may be read without it. */
static char flight[CON_LINE_MAX];
static size_t flight_len, flight_pos;
static bool in_flight;

bool con_has_channel(void)
{
    return config.debug_port || config.uart_ports[0] || config.uart_ports[1] ||
           __atomic_load_n(&screen, __ATOMIC_ACQUIRE) != NULL;
}

/* One byte to every channel; the UARTs' waiting for room (bounded) or,
 * with wait false, not (the caller saw their FIFOs empty and counts what
 * it writes). */
static void con_putc_to_all(char c, bool wait)
{
    if (config.debug_port)
        outb(DEBUG_PORT, (uint8_t)c);
    for (unsigned int i = 0; i < CONSOLE_UARTS_MAX; i++) {
        uint16_t port = config.uart_ports[i];
        if (!port)
            continue;
        if (c == '\n')
            wait ? uart_putc(port, '\r') : uart_put_nowait(port, '\r');
        wait ? uart_putc(port, c) : uart_put_nowait(port, (uint8_t)c);
    }
    con_screen_fn *draw = __atomic_load_n(&screen, __ATOMIC_ACQUIRE);
    if (draw)
        draw(c);
}

static void con_putc(char c)
{
    con_putc_to_all(c, true);
}

void con_write(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        con_putc(s[i]);
}

/* Takes con_lock unless this CPU is already inside printk (then returns
 * false: write through). */
static bool con_enter(void)
{
    unsigned int self = smp_cpu_index();
    if (__atomic_load_n(&con_inside[self], __ATOMIC_RELAXED))
        return false;
    __atomic_store_n(&con_inside[self], true, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);    /* mark before waiting */
    spin_lock(&con_lock);
    return true;
}

static void con_leave(bool taken)
{
    if (!taken)
        return;
    spin_unlock(&con_lock);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);    /* release before unmarking */
    __atomic_store_n(&con_inside[smp_cpu_index()], false, __ATOMIC_RELAXED);
}

/* As con_enter, but only if the lock is free now: false (not taken,
 * nothing marked) if another CPU holds it or this CPU is inside. */
static bool con_try_enter(void)
{
    unsigned int self = smp_cpu_index();
    if (__atomic_load_n(&con_inside[self], __ATOMIC_RELAXED))
        return false;
    __atomic_store_n(&con_inside[self], true, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (spin_trylock(&con_lock))
        return true;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&con_inside[self], false, __ATOMIC_RELAXED);
    return false;
}

static bool uarts_empty(void)
{
    for (unsigned int i = 0; i < CONSOLE_UARTS_MAX; i++)
        if (config.uart_ports[i] && !uart_tx_empty(config.uart_ports[i]))
            return false;
    return true;
}

static void flight_done_if_sent(void)
{
    if (flight_pos < flight_len)
        return;
    flight_len = flight_pos = 0;
    __atomic_store_n(&in_flight, false, __ATOMIC_RELEASE);
}

/* Writes what the channels take now: with a serial console, a FIFO's
 * worth (a newline costs its CR too) once every FIFO is empty, else
 * nothing; without one, the rest of the line. Under con_lock. */
static void flight_write_some(void)
{
    bool uart = config.uart_ports[0] || config.uart_ports[1];
    if (uart && !uarts_empty())
        return;
    size_t room = UART_TX_FIFO_BYTES;
    while (flight_pos < flight_len) {
        size_t cost = flight[flight_pos] == '\n' ? 2 : 1;
        if (uart && cost > room)
            break;
        room -= uart ? cost : 0;
        con_putc_to_all(flight[flight_pos++], false);
    }
    flight_done_if_sent();
}

/* The rest of the line in flight, waiting for the UARTs (before text that
 * is written synchronously). Under con_lock. */
static void flight_finish(void)
{
    con_write(flight + flight_pos, flight_len - flight_pos);
    flight_pos = flight_len;
    flight_done_if_sent();
}

bool con_start_line(const char *line, size_t len)
{
    if (len > CON_LINE_MAX || __atomic_load_n(&in_flight, __ATOMIC_ACQUIRE) || !con_try_enter())
        return false;
    bool start = !in_flight;
    if (start) {
        memcpy(flight, line, len);
        flight_len = len;
        flight_pos = 0;
        __atomic_store_n(&in_flight, true, __ATOMIC_RELEASE);
        flight_write_some();
    }
    con_leave(true);
    return start;
}

bool con_poll(void)
{
    if (!__atomic_load_n(&in_flight, __ATOMIC_ACQUIRE) || !con_try_enter())
        return __atomic_load_n(&in_flight, __ATOMIC_ACQUIRE);
    if (in_flight)
        flight_write_some();
    con_leave(true);
    return __atomic_load_n(&in_flight, __ATOMIC_ACQUIRE);
}

void con_finish_line(void)
{
    bool taken = con_enter();
    if (taken)
        flight_finish();
    con_leave(taken);
}

void con_write_line(const char *prefix, const char *text, size_t len)
{
    bool taken = con_enter();
    if (taken)
        flight_finish();
    con_write(prefix, strlen(prefix));
    con_write(text, len);
    con_write("\n", 1);
    con_leave(taken);
}

int printk(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = fmt_vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    size_t len = n < 0 ? 0 : (size_t)n;
    if (len >= sizeof(buf))
        len = sizeof(buf) - 1;

    bool taken = con_enter();
    if (taken)
        flight_finish();
    con_write(buf, len);
    con_leave(taken);
    con_record_sink_fn *sink = __atomic_load_n(&record_sink, __ATOMIC_ACQUIRE);
    if (sink)
        sink(buf, len);         /* e.g. a per-CPU ring: needs no console lock */
    return (int)len;
}
