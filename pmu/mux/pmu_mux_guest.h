/* Interval multiplexing sessions the guest kernel starts and stops
 * (VERTIGO_HC_MUX_START / _STOP) on the calling VCPU, with the checks and
 * the rows of the command line's sessions (pmu/mux/mux_session.h,
 * pmu/mux/pmu_mux.h). One at a time in the run, and none while the command
 * line's counting session runs: the session's events become the run's
 * counting events (pmu.events= as if given) until it stops, so sampling
 * sessions count them as they count the command line's. */
#ifndef PMU_PMU_MUX_GUEST_H
#define PMU_PMU_MUX_GUEST_H

#include <stdint.h>

#include "vertigo/hypercall.h"
#include "vmm/vcpu.h"

/* VERTIGO_HC_MUX_START on v with a header dispatch checked: the number
 * of event sets, or the -VERTIGO_E* of include/vertigo/hypercall.h (the
 * specific reason also goes to Vertigo's console). */
int64_t pmu_mux_guest_start(struct vcpu *v, const struct vertigo_mux *m);

/* VERTIGO_HC_MUX_STOP on v: the rows written, or -VERTIGO_EINVAL unless v
 * runs the session the guest started. */
int64_t pmu_mux_guest_stop(struct vcpu *v);

#endif
