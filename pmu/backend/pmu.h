/* The PMU backend interface. Vertigo owns the PMU through exactly one of
 * two backends, chosen at start-up (pmu=auto|hw|soft|off) and reached
 * through struct pmu_backend; code outside pmu/ never knows which one
 * runs. Inside pmu/ the run-time wiring (pmu/run/pmu_run.c) calls the software
 * backend's entry and exit inline, since they run at every VM exit:
 *   - pmu/hw/pmu_hw.c: the Intel architectural PMU, versions 2-5;
 *   - pmu/soft/pmu_soft.c: TSC-based counters driven by the VMX-preemption timer.
 *
 * Life of a per-VCPU context (pmu/backend/pmu_ctx.h) on one physical CPU:
 *   program            once, after pmu_ctx_init, while the context is not loaded
 *   load               the VCPU becomes current on this CPU (VCPU switch in)
 *   { enter ... exit } around every VM entry / VM exit
 *   overflow           on a PMI/NMI, and whenever exit reports overflows
 *   save               the VCPU leaves this CPU (VCPU switch out)
 * Guest counts exclude the hypervisor: counting is on only between enter and
 * exit, and never while the VCPU is halted (the caller does not enter a
 * halted VCPU). Instructions Vertigo emulates for the guest (CPUID, MSR
 * accesses, I/O...) are reported with emulated_instruction so the counts
 * match bare metal. Portable. */
#ifndef PMU_PMU_H
#define PMU_PMU_H

#include <stdint.h>

#include "pmu/backend/pmu_ctx.h"
#include "pmu/backend/swevents.h"

enum pmu_status {
    PMU_OK = 0,
    PMU_ERR_VERSION,            /* the PMU is not one this backend drives */
    PMU_ERR_SLOT,               /* a counter assignment this backend lacks */
    PMU_ERR_PERIOD,             /* period beyond the counter width / write mode */
    PMU_ERR_MSR,                /* an MSR access faulted (#GP) */
    PMU_ERR_CONFIG,             /* invalid backend configuration */
    PMU_ERR_LOG_IDS,            /* the domain's share of the log's event ids is used up */
};

/* No preemption-timer deadline needed before the next exit. */
#define PMU_NO_DEADLINE UINT64_MAX

/* What the VM-entry path must do for the PMU; filled by `enter`. */
struct pmu_entry_plan {
    uint64_t guest_global_ctrl;   /* VMCS guest IA32_PERF_GLOBAL_CTRL (entry control
                                   * "load IA32_PERF_GLOBAL_CTRL", or MSR-load list) */
    uint64_t host_global_ctrl;    /* VMCS host IA32_PERF_GLOBAL_CTRL (exit control) */
    uint64_t guest_debugctl_set;  /* bits to OR into the guest IA32_DEBUGCTL field */
    uint64_t deadline_ticks;      /* TSC ticks of guest time after which the guest
                                   * must exit (VMX-preemption timer), or PMU_NO_DEADLINE */
};

struct pmu_backend_ops {
    const char *name;           /* "hw" or "soft": written to the log header */

    /* Checks that every hardware event of ctx sits on a counter this backend
     * has and that each period fits; sets the counters' starting values.
     * Touches no hardware. Returns PMU_OK or why not. */
    enum pmu_status (*program)(void *self, struct pmu_ctx *ctx);

    /* Makes ctx current on this physical CPU: writes its saved state to the
     * counters, skipping writes that would not change anything. */
    enum pmu_status (*load)(void *self, struct pmu_ctx *ctx);

    /* Takes ctx off this physical CPU: stops its counters, collects pending
     * overflows into ctx->overflow_pending and saves the counter values. */
    enum pmu_status (*save)(void *self, struct pmu_ctx *ctx);

    /* Just before VM entry with the guest at privilege level cpl: fills plan
     * (GLOBAL_CTRL values for the VMCS, DEBUGCTL bits, timer deadline). */
    void (*enter)(void *self, struct pmu_ctx *ctx, unsigned int cpl,
                  struct pmu_entry_plan *plan);

    /* Just after VM exit. guest_ticks: TSC ticks the guest ran since enter,
     * as measured by the caller (VMX-preemption timer loaded minus saved;
     * ignored by the hardware backend). Returns the pending overflow mask
     * (non-zero: the software backend's caller samples them at this exit). */
    uint32_t (*exit)(void *self, struct pmu_ctx *ctx, uint64_t guest_ticks);

    /* PMI/NMI handling: finds the counters of ctx (loaded) that overflowed,
     * re-arms them with their period and clears the hardware status.
     * Returns and clears the pending overflow mask (bit i: counters[i]). */
    uint32_t (*overflow)(void *self, struct pmu_ctx *ctx);

    /* Count so far of counters[i] (a hardware event), loaded or not. */
    uint64_t (*read)(void *self, const struct pmu_ctx *ctx, unsigned int i);

    /* Vertigo emulated one guest instruction that ran at privilege level
     * cpl: adds 1 to the counters that count retired instructions in that
     * mode (an overflow caused by it becomes pending). ctx is loaded. */
    void (*emulated_instruction)(void *self, struct pmu_ctx *ctx, unsigned int cpl);

    /* The period counter c can take at its next overflow point for a
     * wanted one (frequency mode changes periods there). NULL: any. The
     * software backend counts up to the period from what it counted since
     * the last overflow point (c->raw), so the period must stay above it. */
    uint64_t (*reachable_period)(const struct pmu_counter *c, uint64_t period);
};

/* The CPU's PMU registers as the backends and the PMI reach them: the
 * hypervisor passes its #GP-safe MSR accesses and boot/apic.c's LVTPC
 * accessors (pmu/backend/pmu_arch_cpu.c), the unit tests a register-level
 * model (tests/unit/pmu_model.h). */

/* MSR access; each returns 0, or non-zero when the access faulted (#GP). */
struct pmu_msr_ops {
    int (*rdmsr)(void *ctx, uint32_t msr, uint64_t *value);
    int (*wrmsr)(void *ctx, uint32_t msr, uint64_t value);
    void *ctx;
};

/* LVTPC (SDM Vol. 3B 20.2.1-20.2.4; Vol. 3A 11.5.1 "Local Vector Table",
 * chapter 13 in recent editions). A counter whose PERFEVTSEL.INT (or FIXED_CTR_CTRL PMI bit) is set raises
 * a PMI when it wraps; the local APIC delivers it through its LVT
 * performance-counter register (LVTPC: xAPIC offset 0x340, x2APIC MSR
 * 0x834). Vertigo programs LVTPC for NMI delivery, so a PMI arrives as an
 * NMI exit (guest running) or in the root NMI handler (Vertigo running).
 * On Intel CPUs delivering the PMI sets LVTPC's mask bit: software must
 * clear it, or no further PMI arrives. The backend reaches LVTPC through
 * this interface: the hypervisor passes boot/apic.c's accessors
 * (pmu/backend/pmu_arch_cpu.c), the unit tests the model. */
struct pmu_lvtpc_ops {
    uint32_t (*read)(void *ctx);
    void (*write)(void *ctx, uint32_t value);
    void *ctx;
};

/* LVTPC's fields (SDM Vol. 3A 11.5.1). */
#define PMU_LVT_DELIVERY_SHIFT  8
#define PMU_LVT_DELIVERY_NMI    (4u << PMU_LVT_DELIVERY_SHIFT)  /* mode 100b, bits 10:8 */
#define PMU_LVT_DELIVERY_STATUS (1u << 12)  /* read-only: send pending */
#define PMU_LVT_MASKED          (1u << 16)
/* Vertigo's LVTPC: NMI delivery (the vector field is ignored), unmasked. */
#define PMU_LVTPC_NMI           PMU_LVT_DELIVERY_NMI

/* A backend instance: its operations and its per-physical-CPU state. */
struct pmu_backend {
    const struct pmu_backend_ops *ops;
    void *self;
};

/* Count of event list entry i of ctx: hardware events through the backend,
 * software events from sw (per-VCPU software counts; may be NULL). */
uint64_t pmu_read_event(const struct pmu_backend *be, const struct pmu_ctx *ctx,
                        const struct swevent_counts *sw, unsigned int i);

/* Short English text of a status ("a PMU MSR access faulted"). */
const char *pmu_status_text(enum pmu_status s);

#endif
