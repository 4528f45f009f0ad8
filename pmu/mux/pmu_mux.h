/* Interval multiplexing sessions in the VM-exit loop (the software
 * backend here; the hardware backend's in pmu/hw/pmu_mux_hw.h, the
 * configuration, rows and end shared):
 * pmu.events= with more events than pmu.soft.counters, pmu.interval=N and
 * pmu.subinterval=S. Every VCPU counts its retired guest instructions
 * (the software backend's instruction count: guest ticks in Bochs plus
 * the instructions Vertigo emulates); the entry's VMX-preemption-timer
 * deadline is never past the end of the current turn, so each turn ends
 * at an exact retired-instruction point, as the backend's overflows do.
 * At each turn's end the schedule (pmu/mux/mux_row.h) reads the events'
 * counts; at each interval's end one interval record goes to the log.
 * docs/pmu.md "Interval multiplexing". */
#ifndef PMU_PMU_MUX_H
#define PMU_PMU_MUX_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/mux/mux_row.h"
#include "pmu/run/pmu_config.h"
#include "vmm/vcpu.h"

/* Reads pmu.interval=, pmu.subinterval= and pmu.interval.exact=
 * (pmu/mux/mux_options.h) for the parsed c->list and builds c->mux_cfg;
 * prints the specific reason and returns false when there can be no
 * session. */
bool pmu_mux_configure(struct pmu_config *c, const char *cmdline);

/* The counters the sets are formed over: pmu.soft.counters, or the
 * hardware PMU's as the clock left them; and how many. */
struct mux_counters pmu_mux_counters(const struct pmu_config *c);
unsigned int pmu_mux_counter_count(const struct pmu_config *c);

/* The console's words for schedule cfg (", N sets over K counters, ...")
 * into buf (size bytes, NUL-terminated, cut short if need be), for the
 * caller to print in one printk: the guest's sessions start on any CPU,
 * and pieces printed apart let another CPU's line in between. */
#define PMU_MUX_DESCRIPTION_MAX 160u
void pmu_mux_describe(const struct pmu_config *c, const struct mux_row_config *cfg, char *buf,
                      size_t size);

/* Writes row (its domain and VCPU filled in here) as v's next row. */
void pmu_mux_write_row(struct vcpu *v, struct log_interval *row);

/* The VCPU's counting session started: its interval 0 starts now. */
void pmu_mux_vcpu_start(struct vcpu *v);

/* Interval 0 of a session of events `list` with schedule cfg (both must
 * outlive it) starts now on v, whose context counts cfg's events as its
 * first ones: the command line's session (pmu_mux_vcpu_start) or the
 * guest's (VERTIGO_HC_MUX_START, pmu/mux/pmu_mux_guest.h). */
void pmu_mux_vcpu_begin(struct vcpu *v, const struct pmu_event_list *list,
                        const struct mux_row_config *cfg);

/* Guest instructions the next entry may run before the turn ends, or
 * PMU_NO_DEADLINE without a session. */
uint64_t pmu_mux_deadline(const struct vcpu *v);

/* The turns the instructions retired so far completed end (and their
 * rows are written): pmu_mux_retired's slow path. */
void pmu_mux_turns_due(struct vcpu *v);

/* n guest instructions retired: ends the turns (and writes the rows)
 * they completed. Inline: every exit and every emulated instruction of a
 * counting VCPU asks, and nearly always no turn has ended; the slow path
 * keeps its row buffers and their saved registers out of the usual one. */
static inline void pmu_mux_retired(struct vcpu *v, uint64_t n)
{
    if (v->pmu.mux.on && mux_row_retire(&v->pmu.mux.rows, n))
        pmu_mux_turns_due(v);
}

/* End of the run: writes the unfinished interval's row (fewer than N
 * instructions; none if empty) and prints the rows written and the
 * largest skid. */
void pmu_mux_finish(const struct vcpu *v);

/* Ends v's session before the run's end (VERTIGO_HC_MUX_STOP): writes the
 * unfinished interval's row as pmu_mux_finish does; returns the rows
 * written in all (0 without a session). */
uint64_t pmu_mux_vcpu_stop(struct vcpu *v);

#endif
