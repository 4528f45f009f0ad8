/* Interval multiplexing sessions on the hardware backend in the VM-exit
 * loop: pmu/hw/mux_hw.h's session driven by the exit path.
 *
 * The session's events are checked, not placed (pmu_event_caps.unplaced):
 * the VCPU's own context (vcpu_pmu.ctx) holds them at their ids with no
 * counter (PMU_SLOT_NONE: the backend leaves them alone; their count is
 * their raw count so far, kept here), followed by a sampling session's
 * events; the session's live set and its clock are a second context
 * (vcpu_pmu.mux_hw.ctx) on the same CPU's backend. Around every entry and
 * exit:
 *
 *   before the entry  the live set's and the clock's GLOBAL_CTRL bits join
 *                     the plan (pmu_mux_hw_enter); the guest's virtual PMU
 *                     and paravirtual counters go on the counters both
 *                     contexts leave free (pmu_mux_hw_busy)
 *   after the exit    the clock wrapped (GLOBAL_STATUS, the freeze on its
 *                     PMI stopped every counter there): the turns end, the
 *                     rows are written, the next set and the clock are
 *                     loaded (pmu_mux_hw_exit) before the exit's NMI
 *                     handler unmasks LVTPC (pmu/run/pmu_pmi.c)
 *   an emulated       +1 on the clock and the live set (pmu_mux_hw_emulated)
 *   instruction
 *   VCPU switch, or   the second context is saved and loaded again
 *   a re-programming  (pmu_mux_hw_save / _load)
 *
 * Counters a sampling session holds are reserved when the run is
 * configured: those sample.events= of Vertigo's command line takes. A
 * sampling session started later uses only those (pmu_mux_hw_sampling_list).
 * Tested on the register-level model (tests/unit/test_pmu_mux_hw.c), never
 * on a CPU. docs/pmu.md "Interval multiplexing". */
#ifndef PMU_PMU_MUX_HW_H
#define PMU_PMU_MUX_HW_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/mux/mux_part.h"
#include "pmu/run/pmu_config.h"
#include "vmm/vcpu.h"

/* The hardware backend's part in multiplexing (its kind, pmu/hw/hw_kind.c). */
extern const struct mux_part pmu_mux_hw_part;

/* True if the run's counting session is an interval session on the
 * hardware backend. */
static inline bool pmu_mux_hw_runs(void)
{
    return pmu_config.mux && pmu_config.backend == PMU_SESSION_HW;
}

/* Configuration: the counters sample.events= of cmdline takes, the clock
 * and the counters left for the sets (the run's layout, kept here). False, with the reason printed after `refusal`, when
 * no counter is left for the clock. */
bool pmu_mux_hw_layout(struct pmu_config *c, const char *cmdline, const char *refusal);

/* cfg's longest turn fits the clock of c's layout on the probed PMU; the
 * reason (printed after `refusal`) if not. */
bool pmu_mux_hw_check_turns(const struct pmu_config *c, const struct mux_row_config *cfg,
                            const char *refusal);

/* Interval 0 of cfg starts now on v, whose context holds cfg's events
 * unplaced (loaded on this CPU). */
void pmu_mux_hw_begin(struct vcpu *v, const struct pmu_event_list *list,
                      const struct mux_row_config *cfg);

/* The GLOBAL_CTRL bits of the live set and the clock into the entry plan. */
void pmu_mux_hw_enter(struct vcpu *v, struct pmu_entry_plan *plan);

/* After the exit (counters stopped): the turns the guest's run ended. */
void pmu_mux_hw_exit(struct vcpu *v);

/* Vertigo emulated a guest instruction: the clock and the live set count
 * it; a turn it ends ends here. */
void pmu_mux_hw_emulated(struct vcpu *v);

/* The session's counters leave this CPU's MSRs (a VCPU switch out, or
 * before v's context is programmed again) / come back. Inline: every VCPU
 * switch asks, and without a session that is all. */
void pmu_mux_hw_save_session(struct vcpu *v);
void pmu_mux_hw_load_session(struct vcpu *v);

static inline void pmu_mux_hw_save(struct vcpu *v)
{
    if (v->pmu.mux.on)
        pmu_mux_hw_save_session(v);
}

static inline void pmu_mux_hw_load(struct vcpu *v)
{
    if (v->pmu.mux.on)
        pmu_mux_hw_load_session(v);
}

/* GLOBAL_CTRL bits of every counter Vertigo uses for v: its context's and
 * the session's live set and clock. */
uint64_t pmu_mux_hw_busy(const struct vcpu *v);

/* End of the session: the unfinished interval into *row (true), or none.
 * The VCPU's state is left as it ran (its counts so far, those of the
 * turns that ended, are what its context reads). */
bool pmu_mux_hw_finish(const struct vcpu *v, struct log_interval *row);

/* A sampling session's context beside the interval session: the
 * session's events (`counted`) unplaced, then the sampling events placed
 * on the reserved counters. False (why: the reason) if they do not fit
 * there. */
bool pmu_mux_hw_sampling_list(const struct pmu_event_list *counted, const char *sampling,
                              struct pmu_event_list *list, char *why, unsigned int why_size);

#endif
