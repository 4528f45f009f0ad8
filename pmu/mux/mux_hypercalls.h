/* The guest's interval multiplexing hypercalls (include/vertigo/hypercall.h):
 * their argument shapes checked, and the calls registered with the
 * dispatcher (vmm/hypercall.h) at start-up:
 *   VERTIGO_HC_MUX_START  a struct vertigo_mux (kernel)
 *   VERTIGO_HC_MUX_STOP   no argument (kernel)
 * The session's events and lengths are checked as the command line's
 * (pmu/mux/mux_session.h) by pmu/mux/pmu_mux_guest.h, which runs it. */
#ifndef PMU_MUX_MUX_HYPERCALLS_H
#define PMU_MUX_MUX_HYPERCALLS_H

#include <stdbool.h>
#include <stdint.h>

#include "vertigo/hypercall.h"

/* A session's header: ABI version, reserved 0, a NUL-terminated event list
 * that is not empty. 0 or -VERTIGO_EINVAL. */
int64_t mux_hypercall_check(const struct vertigo_mux *m);

/* Registers the two calls with the dispatcher (once, at start-up): false
 * if one of their numbers is taken. */
bool mux_hypercalls_register(void);

#endif
