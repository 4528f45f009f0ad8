/* Choosing and starting the guest. */
#include "boot/run_end.h"
#include "lib/cmdline.h"
#include "lib/console.h"
#include "vmm/domain/domain.h"
#include "vmm/domain/domain_private.h"
#include "vmm/loader/guest_modules.h"
#include "lib/mem.h"
#include "vmm/start_stages.h"

static const char *const linux_roles[] = { "kernel", "initrd", NULL };

__attribute__((noreturn)) void guest_start(const struct boot_info *bi,
                                           struct page_allocator *pa)
{
    char guest[16];
    char msg[512];

    if (!cmdline_get(bi->cmdline, "guest", guest, sizeof(guest))) {
        const char *dflt = guest_module_find(bi, "kernel", NULL) ? "linux" : "none";
        memcpy(guest, dflt, strlen(dflt) + 1);
    }

    if (strcmp(guest, "none") == 0 && domains_declared(bi->cmdline))
        domains_only_run(bi, pa);
    if (strcmp(guest, "none") == 0)
        run_end(RUN_PASS, "platform report complete, no guest requested");
    if (strcmp(guest, "linux") != 0) {
        printk("vertigo: unknown guest type '%s' (known: linux, none)\n", guest);
        run_end(RUN_FAIL, "bad guest= option");
    }
    if (!guest_modules_check(bi, linux_roles, msg, sizeof(msg))) {
        printk("vertigo: cannot start the Linux guest: %s\n", msg);
        run_end(RUN_FAIL, "missing guest module");
    }
    linux_domain_run(bi, pa);
}
