/* A VCPU's PMU state, embedded in struct vcpu (vmm/vcpu.h) and opened only
 * by pmu/: what it counts, its software events, the backend of the CPU it
 * runs on, and the sampling session applied to it. */
#ifndef PMU_PMU_VCPU_H
#define PMU_PMU_VCPU_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/hw/mux_hw.h"
#include "pmu/mux/mux_row.h"
#include "pmu/backend/pmu.h"
#include "pmu/pv/pmu_pv.h"
#include "pmu/hw/pv_hw.h"
#include "pmu/sample/sample_freq.h"
#include "pmu/vpmu/vpmu.h"
#include "pmu/vpmu/vpmu_prog.h"

/* What the log was told of the guest's virtual PMU (pmu/vpmu/pmu_guest_log.c). */
struct pmu_guest_log_state {
    struct vpmu_prog_seen seen;                     /* programmings logged */
    uint64_t pmis[LOG_GUEST_PMI_DELIVERY_COUNT];    /* PMIs logged, by delivery */
};
#include "pmu/hw/vpmu_hw.h"

/* VCPU switches on the VCPU's CPU (pmu/run/pmu_switch.c). */
struct pmu_switch_state {
    uint64_t out_tsc;               /* TSC at its last switch out; 0 while on the CPU */
    uint64_t ticks;                 /* TSC ticks spent in its switch hooks */
    uint64_t failures;              /* saves and loads whose MSR access faulted */
    uint32_t pending_pmi;           /* its PMI raised, not yet taken when it left */
    bool stepping;                  /* Vertigo was single-stepped for it when it left */
};

struct vcpu_pmu {
    struct pmu_ctx ctx;
    struct swevent_counts sw;       /* counted on every exit, session or not */
    struct pmu_backend be;          /* ops NULL: no session on this VCPU */
    bool counting;                  /* a session runs on this VCPU */
    bool entered_halted;            /* the last entry resumed a halted guest */
    bool modes_trapped;             /* the last entry trapped every mode change */
    bool halts_trapped;             /* ... every HLT and wake-up (also while
                                     * modes_trapped) */
    uint8_t exit_cpl;               /* guest CPL at the last exit */
    uint64_t user_step_ticks;       /* software step while in user mode */
    uint64_t halted_ticks;          /* guest ticks not counted: the VCPU was halted */
    uint64_t overflows;             /* overflows detected */
    uint64_t last_exit_tsc;         /* :h counting: TSC of the previous exit */
    uint64_t emulated;              /* :h counting: guest instructions emulated
                                     * since the previous exit */
    struct pmu_switch_state sw_state;
    /* Sampling session (pmu/sample/sample_session.c) */
    unsigned int count_events;      /* ctx events of the counting session (pmu.events) */
    uint32_t sample_mask;           /* bit i: ctx counter i samples on overflow */
    uint32_t sample_generation;     /* session generation applied to this VCPU */
    uint32_t stack_depth;           /* return addresses per sample */
    bool user_stack;                /* copy user registers and stack with user samples */
    uint64_t timer_ticks;           /* timer sampling: guest ticks per sample, 0: off */
    uint32_t freq;                  /* frequency mode: samples a second, 0: fixed periods */
    struct sample_freq_counter freq_counters[PMU_CTX_MAX_COUNTERS];  /* by ctx counter */
    /* The guest's own virtual PMU (pmu/vpmu/pmu_guest.c), pmu.guest=on */
    bool guest_pmu;
    struct vpmu guest;
    struct pmu_guest_log_state guest_log;
    struct vpmu_hw guest_hw;            /* hardware backend: where its counters run */
    uint64_t guest_pmis_unsupported;    /* PMIs for an LVTPC not in NMI mode */
    /* Paravirtual counters (pmu/pv/pmu_pv.h; hypercalls in pmu/run/pmu_hypercalls.c) */
    struct pmu_pv pv;
    struct pv_hw pv_hw;                 /* hardware backend: where they run */
    bool pv_rdpmc_native;               /* their last run passed RDPMC through */
    /* Interval multiplexing (pmu/mux/pmu_mux.c), pmu.interval= */
    bool mux_on;
    struct mux_row_state mux;           /* software backend (cfg: either backend's) */
    struct mux_hw mux_hw;               /* hardware backend (pmu/hw/pmu_mux_hw.h) */
    struct log_interval mux_row;        /* the row being written (off the stack) */
    uint64_t mux_rows;                  /* rows written */
    /* pmu.interval.exact=on: every event's count when the interval began,
     * and the exact counts' record being written */
    uint64_t mux_exact_mark[MUX_ROW_EVENTS_MAX];
    struct log_swcounters mux_exact;
};

#endif
