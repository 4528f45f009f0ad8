/* Fault injection on request ("selftest=NAME"), so end-to-end tests can
 * check that every failure path reports and ends the run properly. */
#include "boot/run_end.h"
#include "lib/cmdline.h"
#include "lib/console.h"
#include "lib/mem.h"
#include "vmm/start_stages.h"

/* An address outside the identity map built by boot/entry32.S. */
#define UNMAPPED_ADDRESS 0x0000008000000000ull

void selftest_run(const char *cmdline)
{
    char name[32];
    if (!cmdline_get(cmdline, "selftest", name, sizeof(name)))
        return;
    printk("selftest: %s\n", name);
    if (strcmp(name, "ud") == 0)
        __asm__ volatile("ud2");
    if (strcmp(name, "pf") == 0)
        (void)*(volatile const uint64_t *)UNMAPPED_ADDRESS;
    if (strcmp(name, "divide") == 0) {
        volatile unsigned int zero = 0;
        (void)(100u / zero);
    }
    printk("selftest: unknown self-test '%s' (known: ud, pf, divide)\n", name);
    run_end(RUN_FAIL, "unknown self-test");
}
