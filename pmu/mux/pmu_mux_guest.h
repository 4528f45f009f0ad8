/* Interval multiplexing sessions the guest kernel starts and stops
 * (VERTIGO_HC_MUX_START / _STOP) on the calling VCPU, with the checks and
 * the rows of the command line's sessions (pmu/mux/mux_session.h,
 * pmu/mux/pmu_mux.h). A session belongs to the VCPU that started it: its
 * events are that VCPU's counting events until it stops (a sampling
 * session on that VCPU counts them as it counts the command line's), and
 * no other VCPU ever counts them or runs its schedule, whichever domain it
 * is in and whenever it starts. One session at a time per domain (its
 * schedule and events are kept in the domain's slot), so domains run
 * theirs side by side; none while the command line's counting session
 * runs. The session ends with its VCPU's boot: a VCPU that starts again
 * (its domain restarts) starts without it. */
#ifndef PMU_PMU_MUX_GUEST_H
#define PMU_PMU_MUX_GUEST_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/backend/pmu_events.h"
#include "pmu/mux/mux_row.h"
#include "vertigo/hypercall.h"
#include "vmm/vcpu.h"

/* VERTIGO_HC_MUX_START on v with a header dispatch checked: the number
 * of event sets, or the -VERTIGO_E* of include/vertigo/hypercall.h (the
 * specific reason also goes to Vertigo's console). */
int64_t pmu_mux_guest_start(struct vcpu *v, const struct vertigo_mux *m);

/* VERTIGO_HC_MUX_STOP on v: the rows written, or -VERTIGO_EINVAL unless v
 * runs the session the guest started. */
int64_t pmu_mux_guest_stop(struct vcpu *v);

/* What v's context counts: the session v started, or else the command
 * line's counting session (pmu_config); `on` is false when neither runs.
 * v NULL: the command line's. Asked on v's own CPU. */
struct pmu_counting {
    bool on;
    bool mux;                           /* an interval multiplexing session */
    const struct pmu_event_list *list;  /* its events (empty when off) */
    const struct mux_row_config *mux_cfg;
    const char *text;                   /* its events as given */
};
struct pmu_counting pmu_counting_of(const struct vcpu *v);

/* v starts (its first start, or again with its domain's restart): a
 * session it ran in its previous boot ends here, its domain's slot freed
 * (said on the console); its rows were finished at the boot's end. */
void pmu_mux_guest_vcpu_start(struct vcpu *v);

#endif
