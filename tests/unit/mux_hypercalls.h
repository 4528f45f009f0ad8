/* The guest's interval multiplexing hypercalls as the tests make them
 * (what VERTIGO_HC_MUX_START / _STOP do once pmu/mux/mux_hypercalls.c has
 * checked the argument). Test code. */
#ifndef TESTS_UNIT_MUX_HYPERCALLS_H
#define TESTS_UNIT_MUX_HYPERCALLS_H

#include <stdint.h>

#include "vmm/vcpu.h"

/* Starts a session of events with interval n and turn sub on v: the
 * hypercall's result (the number of sets, or -VERTIGO_E*). */
int64_t mux_start(struct vcpu *v, const char *events, uint64_t n, uint64_t sub);

/* Stops v's session: the rows written, or -VERTIGO_E*. */
int64_t mux_stop(struct vcpu *v);

#endif
