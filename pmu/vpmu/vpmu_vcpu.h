/* A VCPU's part of the guest's own virtual PMU (pmu/vpmu/, pmu.guest=on),
 * embedded in struct vcpu_pmu (pmu/pmu_vcpu.h); where its counters run on
 * the hardware backend is that backend's part (pmu/hw/hw_vcpu.h). */
#ifndef PMU_VPMU_VPMU_VCPU_H
#define PMU_VPMU_VPMU_VCPU_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/vpmu/pmu_guest_clock.h"
#include "pmu/vpmu/vpmu.h"
#include "pmu/vpmu/vpmu_prog.h"
#include "vertigo/log_format.h"

/* What the log was told of the guest's virtual PMU (pmu/vpmu/pmu_guest_log.c). */
struct pmu_guest_log_state {
    struct vpmu_prog_seen seen;                     /* programmings logged */
    uint64_t pmis[LOG_GUEST_PMI_DELIVERY_COUNT];    /* PMIs logged, by delivery */
};

/* The guest's TSC inside the NMI handlers Vertigo injects
 * (pmu/vpmu/pmu_guest_nmi_time.h). */
struct pmu_guest_nmi_time {
    uint64_t handler;               /* the handler the guest is in (0: none) */
    bool hiding;                    /* this entry follows an exit inside it */
    uint64_t behind;                /* ticks its TSC is behind the host's */
    uint64_t last_entry_tsc;        /* TSC before the last entry inside it (0: none) */
    uint64_t from;                  /* TSC where Vertigo's time since then began */
    uint64_t tail;                  /* least Vertigo spent around a run inside (0: none yet) */
    bool tail_learnt;               /* ... measured at least once */
    uint64_t given_back;            /* statistics: ticks hidden and given back */
    uint64_t exits;                 /* ... in this many exits */
};

struct vpmu_vcpu {
    bool on;                        /* the guest has a virtual PMU */
    struct vpmu regs;               /* its registers and counts */
    struct pmu_guest_clock clock;   /* software backend: its events, counted lazily */
    struct pmu_guest_nmi_time nmi_time; /* its TSC inside its NMI handlers */
    struct pmu_guest_log_state log;
    uint64_t pmis_unsupported;      /* PMIs for an LVTPC its APIC cannot deliver */
    uint64_t pmis_vector;           /* PMIs delivered as LVTPC's fixed vector */
};

#endif
