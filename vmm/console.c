/* Console output: formats into a per-call buffer and writes it to the
 * serial port and/or the 0xE9 debug port, and, when the profiling log is
 * on, into a console record (vmm/log_hv.h). A recursive lock keeps lines
 * from different CPUs apart; a CPU that re-enters (an NMI or exception
 * while it prints) writes through instead of deadlocking. */
#include "vmm/console.h"

#include <stdarg.h>

#include "boot/cpu.h"
#include "vmm/format.h"
#include "vmm/log_hv.h"
#include "vmm/smp.h"
#include "vmm/uart.h"

#define DEBUG_PORT 0xe9
#define COM1_PORT  0x3f8
#define NO_OWNER   0xffffffffu

static struct console_config config = { .uart_port = COM1_PORT, .debug_port = true };
static volatile uint32_t lock_owner = NO_OWNER;

void con_init(const struct console_config *cfg)
{
    config = *cfg;
    if (config.uart_port && !uart_init(config.uart_port))
        config.uart_port = 0;
}

void con_release_port(uint16_t port)
{
    if (port == DEBUG_PORT)
        config.debug_port = false;
    if (port && port == config.uart_port)
        config.uart_port = 0;
}

uint16_t con_uart_port(void)
{
    return config.uart_port;
}

static void con_putc(char c)
{
    if (config.debug_port)
        outb(DEBUG_PORT, (uint8_t)c);
    if (config.uart_port) {
        if (c == '\n')
            uart_putc(config.uart_port, '\r');
        uart_putc(config.uart_port, c);
    }
}

void con_write(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        con_putc(s[i]);
}

static int con_lock(void)
{
    uint32_t self = smp_cpu_index();
    if (lock_owner == self)
        return 0;   /* re-entered on this CPU: write through */
    while (!__sync_bool_compare_and_swap(&lock_owner, NO_OWNER, self))
        cpu_relax();
    return 1;
}

static void con_unlock(int taken)
{
    if (taken)
        __atomic_store_n(&lock_owner, NO_OWNER, __ATOMIC_RELEASE);
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

    int taken = con_lock();
    con_write(buf, len);
    con_unlock(taken);
    log_hv_console(buf, len);   /* per-CPU ring: needs no console lock */
    return (int)len;
}
