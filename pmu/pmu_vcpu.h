/* A VCPU's PMU state, embedded in struct vcpu (vmm/vcpu.h) and opened only
 * by pmu/: its counting session (what it counts, its software events, the
 * backend of the CPU it runs on) and, each in its room's struct, the parts
 * of the features: sampling, the guest's virtual PMU, paravirtual
 * counters, interval multiplexing, and the backend's (opaque). */
#ifndef PMU_PMU_VCPU_H
#define PMU_PMU_VCPU_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/backend/pmu.h"
#include "pmu/mux/mux_vcpu.h"
#include "pmu/pv/pmu_pv.h"
#include "pmu/sample/sample_vcpu.h"
#include "pmu/vpmu/vpmu_vcpu.h"

/* VCPU switches on the VCPU's CPU (pmu/run/pmu_switch.c). */
struct pmu_switch_state {
    uint64_t out_tsc;               /* TSC at its last switch out; 0 while on the CPU */
    uint64_t ticks;                 /* TSC ticks spent in its switch hooks */
    uint64_t failures;              /* saves and loads whose MSR access faulted */
    uint32_t pending_pmi;           /* its PMI raised, not yet taken when it left */
    bool stepping;                  /* Vertigo was single-stepped for it when it left */
};

/* The part of the run's backend in a VCPU, opaque here: only the
 * backend's room opens it (the hardware backend's struct hw_vcpu,
 * pmu/hw/hw_vcpu.h, which checks at compile time that it fits; the
 * software backend needs none). Zero when the VCPU starts. */
#define PMU_VCPU_BACKEND_BYTES 7168u
struct pmu_vcpu_backend {
    _Alignas(16) unsigned char bytes[PMU_VCPU_BACKEND_BYTES];
};

/* The counting session's state (pmu/run/) is the struct's own; each
 * feature's is its room's struct. */
struct vcpu_pmu {
    struct pmu_ctx ctx;
    struct swevent_counts sw;       /* counted on every exit, session or not */
    struct pmu_backend be;          /* ops NULL: no session on this VCPU */
    bool counting;                  /* a session runs on this VCPU */
    bool guest_alone;               /* its last entry counted for the guest's
                                     * virtual PMU alone (pmu/run/pmu_run.c);
                                     * true only while pmu_run_guest_alone is */
    bool entered_halted;            /* the last entry resumed a halted guest */
    bool modes_trapped;             /* the last entry trapped every mode change */
    bool halts_trapped;             /* ... every HLT and wake-up (also while
                                     * modes_trapped) */
    uint8_t exit_cpl;               /* guest CPL at the last exit */
    unsigned int count_events;      /* ctx events of the counting session (pmu.events) */
    uint64_t user_step_ticks;       /* software step while in user mode */
    uint64_t halted_ticks;          /* guest ticks not counted: the VCPU was halted */
    uint64_t overflows;             /* overflows detected */
    uint64_t last_exit_tsc;         /* :h counting: TSC of the previous exit */
    uint64_t emulated;              /* :h counting: guest instructions emulated
                                     * since the previous exit */
    struct pmu_switch_state sw_state;
    struct sample_vcpu sample;      /* the sampling session applied (pmu/sample/) */
    struct vpmu_vcpu vpmu;          /* the guest's virtual PMU (pmu/vpmu/) */
    struct pmu_pv pv;               /* the paravirtual counters (pmu/pv/) */
    struct mux_vcpu mux;            /* interval multiplexing (pmu/mux/) */
    struct pmu_vcpu_backend backend;    /* the backend's part (above) */
};

#endif
