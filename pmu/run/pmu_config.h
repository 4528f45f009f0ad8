/* The run's PMU configuration, read once from Vertigo's command line when
 * the first VCPU starts (pmu/backend/pmu_session.h lists the options): the backend
 * (pmu=), the counting session every VCPU runs (pmu.events=, pmu.period=,
 * and for interval multiplexing pmu.interval=, pmu.subinterval=) and the
 * software backend's step and counters (pmu.step=, pmu.soft.counters=). */
#ifndef PMU_PMU_CONFIG_H
#define PMU_PMU_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/mux/mux_row.h"
#include "pmu/backend/pmu_desc.h"
#include "pmu/backend/pmu_events.h"
#include "pmu/backend/pmu_kind.h"
#include "pmu/backend/pmu_session.h"

/* pmu.step_ahead= default. Stepping makes Vertigo's instructions about 16
 * times longer in emulated time, just before each overflow, where the
 * guest's time-driven work (its timer interrupt) then lands more often:
 * at 16384 the 60 s soak's workload got 61 % of its samples and the
 * guest's timer functions 4.4 times theirs; at 2048 both were right
 * (50.3 samples per run for 50.0, timer 0.85 % against 0.9 % without
 * :h), with 4.9 % of Vertigo's overflows late (docs/pmu.md). */
#define PMU_STEP_AHEAD_DEFAULT 2048u

struct run_part;

struct pmu_config {
    bool configured;
    enum pmu_session_backend backend;
    /* Its kind (pmu/backend/pmu_kind.h): what it brings to each feature;
     * NULL without a backend. */
    const struct pmu_kind *kind;
    /* Its part in the counting session (kind->run, kept here: the exit
     * loop asks at every exit); NULL without a backend. */
    const struct run_part *run;
    struct pmu_desc desc;               /* the probed PMU (hardware backend) */
    bool tsc_counts_instructions;       /* one TSC tick is one instruction (Bochs) */
    bool has_events;                    /* a counting session runs */
    struct pmu_event_list list;         /* its events */
    char count_text[PMU_SESSION_EVENTS_MAX];    /* pmu.events= as given */
    uint64_t step_ticks;                /* pmu.step= */
    uint64_t period;                    /* pmu.period= (0: count only) */
    /* Software backend sampling :h: Vertigo is single-stepped only while
     * a counter sampling it is at most this many events from its next
     * overflow (pmu.step_ahead=, pmu/soft/pmu_step.h). */
    uint64_t step_ahead;
    /* Software backend: every change of the guest's privilege level
     * exits while a counter filters by mode (pmu.traps=on, the default,
     * where the hardware can), so per-mode counts are exact at any step. */
    bool exact_modes;
    /* The guest gets a virtual PMU of its own (pmu/vpmu/vpmu.h; on the
     * hardware backend at most what the hardware has) with these counters (pmu/vpmu/vpmu_options.h:
     * pmu.guest=, pmu.guest.gp=, pmu.guest.fixed=). */
    unsigned int guest_gp_counters;
    unsigned int guest_fixed_counters;
    bool guest_pmu;
    /* pmu.soft.counters=N: the counters the software backend offers a
     * session (default PMU_SOFT_COUNTERS). */
    unsigned int soft_counters;
    /* pmu.interval=N [pmu.subinterval=S]: the session is an interval
     * multiplexing session (pmu/mux/pmu_mux.h) with this schedule. */
    bool mux;
    struct mux_row_config mux_cfg;
};

extern struct pmu_config pmu_config;

/* Reads the configuration unless done already: probes the backend, prints
 * the choice ("pmu: using ...") and parses the counting session. */
void pmu_config_ensure(void);

/* The events the run's backend can count. */
void pmu_config_caps(struct pmu_event_caps *caps);

/* The same for an interval session's events (pmu.interval=): on a
 * backend that runs it on counters of its own they are checked, not
 * placed (pmu/mux/mux_part.h). */
void pmu_config_session_caps(struct pmu_event_caps *caps);

#endif
