/* The paravirtual counters' hypercalls (include/vertigo/hypercall.h):
 * their argument shapes checked, and the calls registered with the
 * dispatcher (vmm/hypercall.h) at start-up:
 *   VERTIGO_HC_PV_PAGE     a page-aligned guest-physical address (kernel)
 *   VERTIGO_HC_PV_PROGRAM  a struct vertigo_pv_program (kernel)
 *   VERTIGO_HC_PV_READ     a counter index (any CPL)
 *   VERTIGO_HC_PV_VECTOR   the overflow's vector (kernel)
 * What each does with its validated argument is pmu/pv/pv_guest.h's. */
#ifndef PMU_PV_PV_HYPERCALLS_H
#define PMU_PV_PV_HYPERCALLS_H

#include <stdbool.h>
#include <stdint.h>

#include "vertigo/hypercall.h"

/* A program's header: ABI version, reserved 0, a NUL-terminated event
 * list. 0 or -VERTIGO_EINVAL. */
int64_t pv_program_check(const struct vertigo_pv_program *p);

/* Registers the four calls with the dispatcher (once, at start-up):
 * false if one of their numbers is taken. */
bool pv_hypercalls_register(void);

#endif
