/* A register-level model of the Intel architectural PMU, versions 2-5
 * (SDM Vol. 3B 20.2; MSR layouts in Vol. 4 table 2-2), used as host test
 * code: the hardware backend (pmu/hw/pmu_hw.c) is run against it through its
 * MSR-access interface. It models the MSRs with their reserved bits and
 * #GP rules per version, counters that advance when a test says "n events
 * of this kind happened in user/kernel mode", overflow at the counter width
 * setting GLOBAL_STATUS and raising a PMI, OVF_CTRL / STATUS_RESET clearing,
 * STATUS_SET and GLOBAL_INUSE (v4+), legacy and streamlined freeze-on-PMI,
 * and full-width (IA32_A_PMCx) versus legacy sign-extended writes. It also
 * models the local APIC's LVT performance-counter register (LVTPC, SDM
 * Vol. 3A 11.5.1): a PMI is delivered only while LVTPC is unmasked, as an
 * NMI or a fixed vector by its delivery mode, and delivering it sets the
 * mask bit (Intel), so software must unmask it for the next one.
 * It knows its numbers from the SDM itself, not from pmu/ headers, so a
 * wrong constant in the backend shows up as a failed test.
 * Not modelled: PEBS, LBRs beyond the freeze bit, CMASK/INV/EDGE (each
 * event counts 1), AnyThread effects (the bit is only checked for #GP). */
#ifndef TESTS_UNIT_PMU_MODEL_H
#define TESTS_UNIT_PMU_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#define PMU_MODEL_MAX_GP    8
#define PMU_MODEL_MAX_FIXED 4

struct pmu_model_config {
    unsigned int version;           /* 2..5 */
    unsigned int gp_counters;       /* <= PMU_MODEL_MAX_GP */
    unsigned int gp_width;
    uint32_t fixed_mask;            /* bit j: fixed counter j exists */
    unsigned int fixed_width;
    bool full_width_writes;         /* IA32_PERF_CAPABILITIES.FW_WRITE[13] */
    bool any_thread_deprecated;     /* CPUID.0AH:EDX[15] (v5) */
};

enum pmu_model_mode { PMU_MODEL_USER, PMU_MODEL_KERNEL };

/* An event kind: what PERFEVTSELx must select, and the fixed counter that
 * counts it (-1 for none). */
struct pmu_model_event {
    uint8_t event_select;
    uint8_t umask;
    int8_t fixed_index;
};

extern const struct pmu_model_event pmu_model_instructions;  /* C0H/00H, fixed 0 */
extern const struct pmu_model_event pmu_model_cycles;        /* 3CH/00H, fixed 1 */
extern const struct pmu_model_event pmu_model_ref_cycles;    /* 3CH/01H, fixed 2 */
extern const struct pmu_model_event pmu_model_branches;      /* C4H/00H */
extern const struct pmu_model_event pmu_model_branch_misses; /* C5H/00H */

struct pmu_model {
    struct pmu_model_config config;
    uint64_t evtsel[PMU_MODEL_MAX_GP];
    uint64_t pmc[PMU_MODEL_MAX_GP];
    uint64_t fixed[PMU_MODEL_MAX_FIXED];
    uint64_t fixed_ctrl;
    uint64_t global_ctrl;
    uint64_t global_status;
    uint64_t debugctl;
    uint32_t lvtpc;                 /* local APIC LVT performance-counter register */
    /* what happened, for the tests */
    unsigned int pmis;              /* PMIs raised by counters (delivered or not) */
    unsigned int pmi_nmis;          /* of which delivered as NMIs (LVTPC mode NMI) */
    unsigned int pmi_vectors;       /* of which delivered as a fixed-vector interrupt */
    unsigned int pmis_lost;         /* of which lost: LVTPC was masked */
    uint64_t rdmsr_count, wrmsr_count;
    uint64_t faults;                /* #GPs raised */
    uint32_t last_fault_msr;
    uint64_t legacy_pmc_writes;     /* WRMSRs to IA32_PMCx */
    uint64_t full_pmc_writes;       /* WRMSRs to IA32_A_PMCx */
    /* Test hook: called after every successful WRMSR (e.g. to let events
     * happen between two of the backend's accesses); NULL: none. */
    void (*after_wrmsr)(struct pmu_model *m, uint32_t msr, void *arg);
    void *after_wrmsr_arg;
};

/* LVTPC bits (SDM Vol. 3A 11.5.1) */
#define PMU_MODEL_LVT_MODE_SHIFT 8
#define PMU_MODEL_LVT_MODE_NMI   4u
#define PMU_MODEL_LVT_MASKED     (1u << 16)
#define PMU_MODEL_LVT_RESET      PMU_MODEL_LVT_MASKED   /* power-up value */

/* Power-on state: everything zero, LVTPC masked. */
void pmu_model_init(struct pmu_model *m, const struct pmu_model_config *config);

/* MSR access with the signature of struct pmu_msr_ops (self is the model).
 * Return 0, or -1 for a #GP (then nothing changed). */
int pmu_model_rdmsr(void *self, uint32_t msr, uint64_t *value);
/* RDPMC with this ECX: 0 and *value, or -1 (#GP) for an index the PMU
 * does not have. */
int pmu_model_rdpmc(struct pmu_model *m, uint32_t ecx, uint64_t *value);
int pmu_model_wrmsr(void *self, uint32_t msr, uint64_t value);

/* LVTPC access with the signature of struct pmu_lvtpc_ops (self is the
 * model): the vector (7:0), delivery mode (10:8) and mask (16) are
 * writable, other bits read as 0. */
uint32_t pmu_model_lvtpc_read(void *self);
void pmu_model_lvtpc_write(void *self, uint32_t value);

/* n events of kind ev happened at the given mode: every counter enabled for
 * them advances, one event at a time as far as overflow is concerned (a
 * counter wraps at its width, sets its GLOBAL_STATUS bit and raises a PMI
 * if its interrupt bit is set; a PMI under DEBUGCTL.Freeze_PerfMon_On_PMI
 * freezes all counters before the next event). */
void pmu_model_count(struct pmu_model *m, const struct pmu_model_event *ev,
                     enum pmu_model_mode mode, uint64_t n);

/* True if every counter is frozen by a streamlined freeze (v4+ CTR_Frz). */
bool pmu_model_frozen(const struct pmu_model *m);

#endif
