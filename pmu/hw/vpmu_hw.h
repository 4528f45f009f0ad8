/* A VCPU's virtual PMU run on the hardware PMU's counters (the hardware
 * backend). While the guest runs, each of its counting counters sits on a
 * physical counter that Vertigo's own session leaves free: a GP counter is
 * programmed with the guest's own event select (the hardware filters
 * user/kernel by the guest's CPL in VMX non-root operation), a fixed
 * counter takes the same fixed counter with the guest's field of
 * IA32_FIXED_CTR_CTRL, or, for instructions and core cycles when Vertigo
 * holds that fixed counter, a free GP counter with the architectural event
 * (SDM Vol. 3B table 20-1; reference cycles on a GP counter tick at another
 * rate, so fixed counter 2 never moves). Before the entry the guest's
 * values are loaded; the VM entry's IA32_PERF_GLOBAL_CTRL load starts them
 * and the exit's stops them (SDM Vol. 3C 25.7.1, 25.8.1), so they never
 * count Vertigo. After the exit their values are read back, and a
 * physical overflow becomes the virtual counter's GLOBAL_STATUS bit and,
 * with its interrupt bit, one PMI through the guest's LVTPC (vpmu).
 *
 * A guest counter that finds no free physical counter does not count in
 * that run (it is time-shared with Vertigo's session); the runs it missed
 * are counted, so reports can say how long it was enabled but not running.
 * The guest sees counters as wide as the hardware's only when those are
 * VPMU_WIDTH bits: vpmu_hw_init refuses other widths.
 *
 * Portable: MSR access through the hardware backend's struct pmu_hw (its
 * MSR interface and its record of what the MSRs hold, kept true here so
 * its write elision stays right), so the unit test runs it against the
 * register-level model of the PMU. */
#ifndef PMU_VPMU_HW_H
#define PMU_VPMU_HW_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/hw/pmu_hw.h"
#include "pmu/vpmu/vpmu.h"

#define VPMU_HW_NONE (-1)

/* Where each virtual counter sits in the current run, as a GLOBAL_CTRL bit
 * number of the physical counter (GP k: k, fixed j: 32 + j); VPMU_HW_NONE
 * when it does not count. */
struct vpmu_hw_placement {
    int gp[VPMU_MAX_GP];
    int fixed[VPMU_MAX_FIXED];
};

struct vpmu_hw {
    struct pmu_hw *hw;
    struct vpmu_hw_placement at;
    uint64_t enable;            /* physical GLOBAL_CTRL bits of the placed counters */
    bool loaded;
    /* statistics */
    uint64_t runs;              /* loads with some guest counter counting */
    uint64_t counters_unplaced; /* counter-runs lost to Vertigo's own counters */
    uint64_t events_denied;     /* counter-runs of events the filter refused */
    uint64_t msr_faults;
};

/* Binds the guest's virtual PMU to hw. False (nothing offered) when the
 * hardware's counters are not VPMU_WIDTH bits wide. */
bool vpmu_hw_init(struct vpmu_hw *h, struct pmu_hw *hw);

/* The offer on this hardware: at most as many counters as the hardware
 * has (fixed counters: the leading ones present), and the architectural
 * events it counts (its CPUID.0AH:EBX). */
struct vpmu_config vpmu_hw_offer(const struct pmu_hw *hw);

/* Before the VM entry: places g's counting counters on physical counters
 * outside busy (GLOBAL_CTRL bits Vertigo's session uses), loads their
 * event selects, fixed-counter fields and values, and returns the
 * GLOBAL_CTRL bits the VM entry must add to Vertigo's guest value. */
uint64_t vpmu_hw_load(struct vpmu_hw *h, const struct vpmu *g, uint64_t busy);

/* After the VM exit stopped them: reads the placed counters back into g,
 * takes their overflow bits from GLOBAL_STATUS (clearing them through
 * GLOBAL_OVF_CTRL) and raises the guest's PMI. Returns the physical status
 * bits that were the guest's (Vertigo's PMI handling must leave them). */
uint64_t vpmu_hw_save(struct vpmu_hw *h, struct vpmu *g);

#endif
