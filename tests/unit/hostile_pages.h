/* Guest memory of the hypercall tests' pointer checks: a supervisor-only
 * page (as a user-mode caller sees it) and a page of device memory, and
 * the pointers into and around them with the error each must get. Test
 * code (tests/unit/test_hypercall.c, tests/unit/test_pmu_hypercalls.c). */
#ifndef TESTS_UNIT_HOSTILE_PAGES_H
#define TESTS_UNIT_HOSTILE_PAGES_H

#include <stdint.h>

#include "vertigo/hypercall.h"
#include "vmm/guest/guest_pt.h"

#define SUPERVISOR_PAGE 0x40000u
#define MMIO_PAGE       0x50000u

/* How a read of the byte at a fares on those two pages; GUEST_ACCESS_OK
 * elsewhere (the caller's own memory decides). */
static inline enum guest_access hostile_page_access(uint64_t a)
{
    if (a >= SUPERVISOR_PAGE && a < SUPERVISOR_PAGE + 4096)
        return GUEST_ACCESS_SUPERVISOR;
    if (a >= MMIO_PAGE && a < MMIO_PAGE + 4096)
        return GUEST_ACCESS_NOT_RAM;
    return GUEST_ACCESS_OK;
}

/* Each kind of bad pointer and its own error. */
static const struct { uint64_t gva; int64_t err; } hostile_pointers[] = {
    { 0xdead0000, -VERTIGO_EFAULT },            /* unmapped */
    { SUPERVISOR_PAGE + 8, -VERTIGO_EACCES },   /* supervisor-only */
    { MMIO_PAGE, -VERTIGO_EMMIO },              /* device memory */
    { SUPERVISOR_PAGE - 4, -VERTIGO_EFAULT },   /* first bad byte decides */
    { MMIO_PAGE - 8, -VERTIGO_EFAULT },
};
#define HOSTILE_POINTERS (sizeof(hostile_pointers) / sizeof(hostile_pointers[0]))

#endif
