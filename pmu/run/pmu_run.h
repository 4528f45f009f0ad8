/* The counting session in the VM-exit loop: a VCPU's context on its CPU's
 * backend, planned before every entry and accounted after every exit,
 * through the backend interface of pmu/backend/pmu.h and the hardware operations
 * of pmu/pmu_arch.h. One backend instance per physical CPU; each VCPU
 * stays on its CPU, so a VCPU's context is loaded once when it starts.
 * Called by the loop's hooks (pmu/pmu_loop.h) and by the sampling
 * sessions, which re-program a VCPU's context (pmu_run_program). */
#ifndef PMU_PMU_RUN_H
#define PMU_PMU_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/vcpu.h"

/* Sets up v's PMU state on this CPU and, when pmu.events= gave a counting
 * session, programs and loads its context. */
void pmu_run_vcpu_start(struct vcpu *v);

/* Starts, with no events, the counting session of a VCPU that has none
 * (no events on the command line, no sampling session): the guest's runs
 * its paravirtual counters count are measured from then on. PMU_OK, or
 * why not (printed). */
enum pmu_status pmu_run_start_counting(struct vcpu *v);

/* v's context was re-programmed with other counting events (the guest's
 * multiplexing session started or stopped): the sampling session applied
 * to v follows before its next entry (pmu/sample/sample_session.h). */
void pmu_run_counting_changed(struct vcpu *v);

/* The guest reprogrammed its virtual PMU: whether every change of mode
 * must exit is decided again. */
void pmu_run_modes_changed(struct vcpu *v);

/* Plans the next entry: the hardware backend's GLOBAL_CTRL values, or the
 * software backend's step / overflow deadline on the shared timer. */
void pmu_run_before_entry(struct vcpu *v);

/* Accounts the guest_ticks the guest just ran to the mode they belong to
 * (software backend) and takes the overflows. */
void pmu_run_after_exit(struct vcpu *v, uint64_t guest_ticks);

/* The exit handler emulated one guest instruction: the counters of its
 * mode count it, so the counts match bare metal. */
void pmu_run_emulated_instruction(struct vcpu *v);

/* Re-programs v's context on this CPU with list (periods[i] for event i)
 * on this CPU's backend, loads it and arms the PMI. */
enum pmu_status pmu_run_program(struct vcpu *v, const struct pmu_event_list *list,
                                const uint64_t *periods);

/* Overflows already sampled where they happened: counted only. */
void pmu_run_count_overflows(struct vcpu *v, uint32_t mask);

/* True if a PMI taken while Vertigo runs means a counter overflowed in
 * Vertigo itself (hardware backend counting the hypervisor). The software
 * backend raises no PMI for an overflow: it samples the guest's at the
 * exit that finds them, and finds its hypervisor ones by single-stepping
 * (pmu/soft/pmu_step.h). */
bool pmu_run_root_pmi_is_hypervisor(const struct vcpu *v);

/* End of the domain, on the CPU that ends it: stops single-stepping here
 * (its steps go to the counts first), then prints every VCPU's stepping
 * figures. */
void pmu_run_domain_end(const struct domain *d);

/* VERTIGO_HC_PMU_READ for v: its counting session's event `index`
 * (VERTIGO_PMU_EVENT_COUNT: how many it counts), or -VERTIGO_EINVAL. */
int64_t pmu_run_guest_read(struct vcpu *v, uint64_t index);

/* VERTIGO_HC_PMU_STEP for v: the software backend's step granularity set
 * to `ticks`, the previous one returned; -VERTIGO_EINVAL without a
 * session on the software backend. */
int64_t pmu_run_guest_step(struct vcpu *v, uint64_t ticks);

#endif
