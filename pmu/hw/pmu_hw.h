/* The hardware PMU backend: the Intel architectural PMU, versions 2-5
 * (SDM Vol. 3B, 20.2), driven through an MSR-access interface so that the
 * hypervisor passes its #GP-safe rdmsr/wrmsr and the unit tests pass a
 * register-level model (tests/unit/pmu_model.h). One struct pmu_hw per
 * physical CPU; it remembers what it last wrote to each MSR so VCPU
 * switches skip writes that change nothing. Portable. */
#ifndef PMU_PMU_HW_H
#define PMU_PMU_HW_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/backend/pmu.h"
#include "pmu/backend/pmu_desc.h"

/* IA32_PERF_CAPABILITIES.FW_WRITE: IA32_A_PMCx accept full-width writes
 * (SDM Vol. 3B, 20.2.6 "Full-Width Writes to Performance Counter Registers"). */
#define PMU_PERF_CAP_FW_WRITE               (1ull << 13)
/* IA32_DEBUGCTL.Freeze_PerfMon_On_PMI (SDM Vol. 3B, 20.2.4.1; 18.4.7). */
#define PMU_DEBUGCTL_FREEZE_PERFMON_ON_PMI  (1ull << 12)
/* Legacy (32-bit, sign-extended) writes can preload at most -2^31. */
#define PMU_LEGACY_MAX_PERIOD               (1ull << 31)

/* What is in the MSRs of this CPU as far as the backend wrote them. */
struct pmu_hw_shadow {
    uint64_t evtsel[PMU_MAX_GP];
    uint64_t pmc[PMU_MAX_GP];
    uint64_t fixed[PMU_MAX_FIXED];
    uint64_t fixed_ctrl;
    uint64_t global_ctrl;
};

struct pmu_hw {
    struct pmu_desc desc;
    struct pmu_msr_ops msr;
    unsigned int gp_count;      /* GP counters driven (<= PMU_MAX_GP) */
    uint32_t fixed_present;     /* bit j: fixed counter j driven (< PMU_MAX_FIXED) */
    uint64_t gp_width_mask;
    uint64_t fixed_width_mask;
    bool full_width;            /* writes go to IA32_A_PMCx */
    bool freeze_on_pmi;         /* DEBUGCTL bit 12 is set for the guest */
    bool streamlined_freeze;    /* v4+: PMI sets GLOBAL_STATUS.CTR_Frz */
    struct pmu_hw_shadow shadow;
    /* statistics for tests and `make bench` */
    uint64_t msr_reads;
    uint64_t msr_writes;        /* WRMSRs issued */
    uint64_t msr_writes_elided; /* WRMSRs skipped: the MSR already held the value */
    uint64_t msr_faults;        /* accesses that faulted */
};

/* MSR access for the other users of hw's counters (pmu/hw/pv_hw.c), with
 * the backend's counting: a read (0 on a fault, which returns -1), and a
 * write skipped when *shadow says the MSR holds v already (*shadow
 * becomes v, or unknown, ~0, when the write faults: -1). */
int pmu_hw_msr_read(struct pmu_hw *hw, uint32_t msr, uint64_t *v);
int pmu_hw_msr_write_elide(struct pmu_hw *hw, uint32_t msr, uint64_t v, uint64_t *shadow);

/* The lowest general-purpose counter of hw whose bit is clear in taken,
 * or -1 (placing the guest's virtual PMU and paravirtual counters). */
int pmu_hw_free_gp(const struct pmu_hw *hw, uint64_t taken);

/* The backend operations (contracts in pmu/backend/pmu.h). */
extern const struct pmu_backend_ops pmu_hw_ops;

/* Sets hw up for the PMU described by d on this CPU; perf_capabilities is
 * IA32_PERF_CAPABILITIES (0 when CPUID.01H:ECX.PDCM[15] says it does not
 * exist). Stops and clears every counter. Returns PMU_ERR_VERSION unless
 * 2 <= d->version <= 5, PMU_ERR_CONFIG for impossible widths, PMU_ERR_MSR
 * if an access faulted (the PMU must then not be used). */
enum pmu_status pmu_hw_init(struct pmu_hw *hw, const struct pmu_desc *d,
                            uint64_t perf_capabilities, const struct pmu_msr_ops *msr);

/* Fills hw's description of PMU d (counters, widths, write mode, freeze)
 * as pmu_hw_init does, touching no MSR: for checks made before a CPU's
 * backend exists (an interval session's longest turn). */
void pmu_hw_describe(struct pmu_hw *hw, const struct pmu_desc *d, uint64_t perf_capabilities);

/* The backend handle for hw, for generic code. */
struct pmu_backend pmu_hw_backend(struct pmu_hw *hw);

/* IA32_PERF_GLOBAL_CTRL bits (bit i: GP counter i, bit 32+j: fixed counter
 * j; SDM Vol. 3B, 20.2.2) the VM entry loads: ctx's hardware counters that
 * count the guest (:u and/or :k, pmu_event_counts_guest). */
uint64_t pmu_hw_guest_enable_mask(const struct pmu_ctx *ctx);

/* GLOBAL_CTRL/GLOBAL_STATUS bits of every hardware counter of ctx (the
 * counters Vertigo's session holds). */
uint64_t pmu_hw_owned_mask(const struct pmu_ctx *ctx);

/* The same bits for the value the VM exit loads while Vertigo runs: ctx's
 * hardware counters with :h. They count at CPL 0 (PERFEVTSEL.OS), which is
 * why the event parser refuses :uh on this backend. */
uint64_t pmu_hw_host_enable_mask(const struct pmu_ctx *ctx);

/* Contexts a and b are loaded at once on hw's CPU, on counters of their
 * own (an interval session beside the VCPU's context, pmu/hw/pmu_mux_hw.h):
 * IA32_FIXED_CTR_CTRL holds both one's fixed-counter fields and, while
 * Vertigo runs, IA32_PERF_GLOBAL_CTRL enables both one's :h counters
 * (`load` writes one context's). Writes skipped when the MSR holds the
 * value; 0, or non-zero if one faulted. */
int pmu_hw_share(struct pmu_hw *hw, const struct pmu_ctx *a, const struct pmu_ctx *b);

/* After `program`, before `load`: every counting-only counter of ctx (no
 * period) starts from the value its MSR holds as far as the backend knows
 * (its last write or read), so `load` writes no counter value for it; a
 * counter whose value is unknown starts from 0 and is written. A context
 * whose events rotate over the same counters (interval multiplexing,
 * pmu/hw/mux_hw.h) then writes only what changes. */
void pmu_hw_count_from_held(const struct pmu_hw *hw, struct pmu_ctx *ctx);

/* ---- The PMI (SDM Vol. 3B 20.2.1-20.2.4): LVTPC, reached through struct
 * pmu_lvtpc_ops (pmu/backend/pmu.h), delivers it as an NMI and masks
 * itself; the backend unmasks it again ---- */

/* Points LVTPC at NMI delivery, unmasked, on this CPU. Call once the
 * hardware backend drives this CPU's counters (after `load`), before any
 * of them can overflow. */
void pmu_hw_pmi_arm(const struct pmu_lvtpc_ops *lvt);

/* After `overflow` took a PMI's overflows (NMI context, ctx loaded on this
 * CPU): if LVTPC is masked (the PMI was delivered) or no longer Vertigo's
 * value, writes Vertigo's value back, which unmasks it. A counter that
 * overflowed while LVTPC was masked raised no NMI; those overflows are
 * collected right after the unmask, exactly as `overflow` does, and
 * returned (bit i: counters[i]; 0 if LVTPC was not masked, without
 * touching a PMU MSR). Overflows after the unmask raise their own PMI. */
uint32_t pmu_hw_pmi_rearm(struct pmu_hw *hw, struct pmu_ctx *ctx,
                          const struct pmu_lvtpc_ops *lvt);

#endif
