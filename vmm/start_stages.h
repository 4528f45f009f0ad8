/* The start-up stages vmm_start (vmm/main.c) runs after the platform
 * report and the memory set-up. */
#ifndef VMM_START_STAGES_H
#define VMM_START_STAGES_H

#include "vmm/loader/boot_info.h"
#include "vmm/page_alloc.h"

/* Runs the self-test named by "selftest=" on the command line, if any
 * (fault injection for end-to-end tests of the failure paths). Returns if
 * none is requested. */
void selftest_run(const char *cmdline);

/* Starts the guest named by "guest=" (default: linux when a kernel module
 * is present, otherwise none) and never returns. */
__attribute__((noreturn)) void guest_start(const struct boot_info *bi,
                                           struct page_allocator *pa);

#endif
