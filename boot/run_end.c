/* The run-ending protocol (boot/run_end.h). Emulator exit ports are only
 * written on emulators (ACPI OEM ID "BOCHS ", shared by Bochs, SeaBIOS and
 * OVMF under QEMU): on real hardware unknown ports are left alone and the
 * CPU halts. */
#include "boot/run_end.h"

#include "lib/cpu.h"
#include "boot/layout.h"
#include "boot/platform.h"
#include "lib/console.h"

#define BOCHS_SHUTDOWN_PORT 0x8900
#define BOCHS_PM1A_CNT      0xb004   /* PIIX4 PM base 0xb000 + 4 */
#define PM1_SLP_EN          0x2000

static const char *const status_names[] = {
    [RUN_PASS] = "PASS", [RUN_FAIL] = "FAIL", [RUN_NO_VMX] = "NO-VMX",
};

static const uint8_t qemu_codes[] = {
    [RUN_PASS] = RUN_EXIT_QEMU_PASS,
    [RUN_FAIL] = RUN_EXIT_QEMU_FAIL,
    [RUN_NO_VMX] = RUN_EXIT_QEMU_NO_VMX,
};

static run_end_flush_fn *flush_hooks[RUN_END_FLUSH_MAX];
static unsigned int flush_count;
static run_end_flush_fn *before_verdict;

void run_end_before_verdict(run_end_flush_fn *hook)
{
    before_verdict = hook;
}

void run_end_add_flush(run_end_flush_fn *flush)
{
    if (flush_count == RUN_END_FLUSH_MAX) {
        printk("run_end: warning: no room for another flush hook\n");
        return;
    }
    flush_hooks[flush_count++] = flush;
}

static void bochs_shutdown_port(void)
{
    static const char word[] = "Shutdown";
    for (const char *p = word; *p; p++)
        outb(BOCHS_SHUTDOWN_PORT, (uint8_t)*p);
}

static void emulator_exit(enum run_status status)
{
    outb(RUN_EXIT_PORT_QEMU, qemu_codes[status]);
    if (status == RUN_PASS)
        __asm__ volatile("xchg %%bx, %%bx" ::: "memory");  /* Bochs magic break */
    else
        bochs_shutdown_port();
    outw(BOCHS_PM1A_CNT, PM1_SLP_EN);
}

__attribute__((noreturn)) void run_end(enum run_status status, const char *reason)
{
    irq_disable();
    if (before_verdict)
        before_verdict();
    printk("VERTIGO-END: %s (%s)\n", status_names[status], reason ? reason : "");
    for (unsigned int i = 0; i < flush_count; i++)
        flush_hooks[i]();   /* the machine stops next: e.g. send every log record */
    if (platform_is_emulator())
        emulator_exit(status);
    for (;;)
        halt();
}
