/* The guest's virtual PMU in the profiling log (pmu.guest=on): which
 * events each VCPU programmed (guest-pmu-prog records, each programming
 * once, pmu/vpmu/vpmu_prog.h) and every PMI its virtual PMU raised, with how it
 * went (guest-pmi records, include/vertigo/log_format.h). Called from the
 * VM-exit loop (pmu/run/pmu_loop.c, pmu/vpmu/pmu_guest.c); nothing is written with log=none, but
 * the counts below are kept either way. */
#ifndef PMU_PMU_GUEST_LOG_H
#define PMU_PMU_GUEST_LOG_H

#include "vmm/vcpu.h"

/* After a guest write to a register of its virtual PMU: a record per
 * counter newly enabled with a programming the VCPU had not used on it. */
void pmu_guest_log_programming(struct vcpu *v);

/* A record per PMI v's virtual PMU raised since the last call (delivered
 * as an NMI, asked for a vector, or lost to a masked LVTPC). Where its
 * counters may have raised one (pmu/vpmu/pmu_guest.c) and at the end of the
 * domain: cheap when nothing happened. */
void pmu_guest_log_pmis(struct vcpu *v);

/* End of the domain: records for v's PMIs not logged yet, and a line
 * with what v's records said ("pmu: vcpu N: guest PMU log: ..."), if v
 * has a virtual PMU. */
void pmu_guest_log_domain_end(const struct vcpu *v);

#endif
