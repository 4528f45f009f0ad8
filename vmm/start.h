/* The start-up stages after the platform report. */
#ifndef VMM_START_H
#define VMM_START_H

#include <stdint.h>

#include "vmm/boot_info.h"
#include "vmm/page_alloc.h"

/* Entered from boot/ on the boot CPU with a stack and descriptor tables. */
void vmm_start(uint32_t magic, uint64_t info_phys);

/* Runs the self-test named by "selftest=" on the command line, if any
 * (fault injection for end-to-end tests of the failure paths). Returns if
 * none is requested. */
void selftest_run(const char *cmdline);

/* Starts the guest named by "guest=" (default: linux when a kernel module
 * is present, otherwise none) and never returns. */
__attribute__((noreturn)) void guest_start(const struct boot_info *bi,
                                           struct page_allocator *pa);

#endif
