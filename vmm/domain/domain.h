/* Domain life cycle: building the Linux domain 0 and ending it. */
#ifndef VMM_DOMAIN_H
#define VMM_DOMAIN_H

#include "vmm/loader/boot_info.h"
#include "vmm/page_alloc.h"
#include "vmm/vcpu.h"

enum guest_end {
    GUEST_END_POWER_OFF,        /* ACPI S5 / sleep request */
    GUEST_END_RESET,            /* reset port, keyboard controller, INIT */
    GUEST_END_TRIPLE_FAULT,
    GUEST_END_ERROR,            /* Vertigo stopped the guest */
    GUEST_END_ISOLATION,        /* an access outside the domain's own RAM */
    GUEST_END_TEST_EXIT,        /* a write to the test-exit port (isa-debug-exit) */
};

/* Builds domain 0 from the kernel and initrd modules and runs its boot
 * VCPU on this CPU. Errors in the images end the run with a message. */
__attribute__((noreturn)) void linux_domain_run(const struct boot_info *bi,
                                                struct page_allocator *pa);

/* Counts domain d among the run's domains: the run then ends when every
 * one has ended. Call before any VCPU runs. */
void domain_register(struct domain *d);

/* Domain d's image was refused (`what`: the kind of image, `why`: the
 * rule it broke): it never runs, counts as a domain that did not pass,
 * and the others go on. */
void domain_refused(struct domain *d, const char *what, const char *why);

/* The domains the run has started so far (registered ones). */
unsigned int domains_running(void);

/* Domain d wrote `code` to its test-exit port: its verdict is PASS for 0,
 * else FAIL with the code, and it ends (as QEMU's isa-debug-exit ends the
 * emulator with status code * 2 + 1). */
__attribute__((noreturn)) void domain_test_exit(struct domain *d, uint32_t code);

/* VERTIGO_HC_CONSOLE_WRITE of domain d (ctx): its output, cut into lines,
 * to Vertigo's console as "[NAME] line" and to the log as console records
 * with source = d's id -> len. */
int64_t domain_console_output(void *d, const char *text, size_t len);

/* VERTIGO_HC_POWER_OFF of domain d (ctx): ends it as powered off. */
__attribute__((noreturn)) void domain_power_off(void *d);

/* A reset request of domain d (`how`: GUEST_END_RESET, or
 * GUEST_END_TRIPLE_FAULT, which a PC turns into a reset), from an exit
 * handler of d's VCPU on its CPU. With dom.N.on_reboot=restart (a Linux
 * domain with one VCPU) the boot's end is reported as domain_end reports
 * it, with "guest: domain N (NAME) boot B verdict ..." and "... restarts
 * from its kernel and initrd ...", its images are loaded again and its
 * VCPU starts over from them (vmx_vcpu_restart): it returns, and the
 * handler must then return without touching the guest's state. Otherwise
 * (on_reboot=end, the default, and always for domain 0) it ends the
 * domain as domain_end does and does not return. */
void domain_reset(struct domain *d, enum guest_end how, const char *detail);

/* The domain is over: prints why, every VCPU's exit statistics and its
 * verdict (FAIL unless it reported PASS and ended by powering off or
 * through the test-exit port). Domain 0 alone, it ends the run with that
 * verdict; one of several (or any other domain),
 * it goes back to the scheduler (vmx_sched_domain_ended), and the run ends
 * when every domain has ended: PASS only if every one passed. */
__attribute__((noreturn)) void domain_end(struct domain *d, enum guest_end how,
                                          const char *detail);

#endif
