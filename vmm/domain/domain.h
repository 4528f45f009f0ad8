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
};

/* Builds domain 0 from the kernel and initrd modules and runs its boot
 * VCPU on this CPU. Errors in the images end the run with a message. */
__attribute__((noreturn)) void linux_domain_run(const struct boot_info *bi,
                                                struct page_allocator *pa);

/* Counts domain d (declared beside domain 0) among the run's domains:
 * the run then ends when every one has ended. Call before any VCPU runs. */
void domain_register(struct domain *d);

/* VERTIGO_HC_CONSOLE_WRITE of domain d (ctx): its output, cut into lines,
 * to Vertigo's console as "[NAME] line" and to the log as console records
 * with source = d's id -> len. */
int64_t domain_console_output(void *d, const char *text, size_t len);

/* VERTIGO_HC_POWER_OFF of domain d (ctx): ends it as powered off. */
__attribute__((noreturn)) void domain_power_off(void *d);

/* The domain is over: prints why, every VCPU's exit statistics and its
 * verdict (FAIL unless it reported PASS and ended by powering off). Alone
 * (no domain_register), it ends the run with that verdict; one of several,
 * it goes back to the scheduler (vmx_sched_domain_ended), and the run ends
 * when every domain has ended: PASS only if every one passed. */
__attribute__((noreturn)) void domain_end(struct domain *d, enum guest_end how,
                                          const char *detail);

#endif
