/* panic(): see vmm/panic.h. */
#include "vmm/panic.h"

#include <stdarg.h>

#include "lib/cpu.h"
#include "boot/run_end.h"
#include "lib/smp.h"
#include "boot/traps.h"
#include "lib/console.h"
#include "lib/format.h"

__attribute__((noreturn)) void panic(const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    struct trap_frame here = { 0 };

    va_start(ap, fmt);
    fmt_vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);

    irq_disable();
    printk("\nvertigo: PANIC on CPU %u: %s\n", smp_cpu_index(), msg);
    here.rip = (uint64_t)__builtin_return_address(0);
    here.rbp = (uint64_t)__builtin_frame_address(0);
    __asm__ volatile("mov %%rsp, %0" : "=r"(here.rsp));
    here.rflags = read_rflags();
    trap_dump(&here);
    run_end(RUN_FAIL, "panic");
}
