/* VCPU switches on one physical CPU: the PMU state that belongs to the
 * VCPU leaving the CPU is saved and the incoming VCPU's is put back, so
 * each VCPU (and so each domain) counts only its own work on a CPU it
 * shares. The scheduler calls the two hooks around its VMCS switch, on the
 * CPU both VCPUs run on, between the outgoing VCPU's last exit and the
 * incoming VCPU's next entry:
 *
 *     pmu_vcpu_switch_out(from);  ... VMPTRLD ...  pmu_vcpu_switch_in(to);
 *
 * (declared in the front door, pmu/pmu_loop.h)
 *
 * A VCPU that starts on a CPU where another VCPU ran is switched in by
 * pmu_vcpu_start (its first load), after the other was switched out.
 * What moves (docs/pmu.md "VCPU switches"):
 *   - Vertigo's counting and sampling context of the VCPU: the hardware
 *     backend saves its counters and loads the incoming one's, writing
 *     only the MSRs whose value changes (the same event selects, the same
 *     GLOBAL_CTRL are not written again); the software backend takes the
 *     incoming context's per-CPU masks and step;
 *   - the CPU's current VCPU, which the NMI path attributes samples to,
 *     and a PMI raised for the outgoing VCPU but not yet taken (raised
 *     again when it comes back);
 *   - single-stepping Vertigo for :h sampling (disarmed for the switch,
 *     armed again for a VCPU that samples Vertigo);
 *   - :h counted by time: the time the VCPU was switched out is not its.
 * The guest's own virtual PMU needs nothing here: it is on the hardware
 * only between an entry and the next exit. */
#ifndef PMU_PMU_SWITCH_H
#define PMU_PMU_SWITCH_H

#include "pmu/pmu_loop.h"   /* pmu_vcpu_switch_out, pmu_vcpu_switch_in */

/* For pmu/: the end-of-domain line of v's switches (switches in, TSC
 * ticks of PMU switch work), when it ever shared its CPU. */
void pmu_switch_report(const struct vcpu *v);

#endif
