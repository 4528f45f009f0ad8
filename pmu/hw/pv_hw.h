/* A VCPU's paravirtual counters (pmu/pv/pmu_pv.h) on the hardware PMU's
 * counters (the hardware backend). Each counter the guest programmed sits,
 * while the guest runs, on a physical counter Vertigo's own session leaves
 * free: its fixed counter when it has one and that one is free, else the
 * lowest free GP counter. PERFEVTSEL (or the fixed counter's field of
 * IA32_FIXED_CTR_CTRL) gets USR for a counter of user mode and OS for one
 * of kernel mode, never the interrupt bit (overflow interrupts, i-mode,
 * are not done on this backend). The VM entry's IA32_PERF_GLOBAL_CTRL load
 * starts them and the exit's stops them, so they never count Vertigo; the
 * guest's virtual PMU is placed after them (they are placed first).
 *
 * Reading from user mode with no exit: the page (struct vertigo_pv_page)
 * says for each counter user_how = VERTIGO_PV_READ_RDPMC | ECX (the
 * physical counter's RDPMC index: GP k is k, fixed j is 1 << 30 | j), and
 * every entry starts the physical counter from 0, so count = sum (the
 * count at the entry, as on every backend) + RDPMC(ECX). Writing 0 costs
 * one WRMSR per counter per entry; it keeps the page's sum the count for
 * every reader (the guest kernel folds sums) and RDPMC from ever showing
 * a value the VCPU did not count in this run. Only when RDPMC may pass
 * through: VT-x exits on every RDPMC or on none, so a guest that may
 * execute RDPMC natively reads every physical counter. That is safe only
 * when every physical counter that is not one of this VCPU's holds 0 and
 * does not count: no counter of Vertigo's session on the CPU and no
 * virtual PMU for the VCPU (its counters' RDPMC indices are virtual), and
 * the load clears every other counter (another VCPU's counts included).
 * Otherwise the counters still count on the hardware, but the page says
 * VERTIGO_PV_READ_EXIT (VERTIGO_HC_PV_READ, one exit, reads the count
 * taken back at that exit) and RDPMC keeps exiting.
 *
 * Portable: MSR access through the hardware backend's struct pmu_hw (its
 * record of what the MSRs hold is kept true here), so the unit test runs
 * it against the register-level model of the PMU. */
#ifndef PMU_PV_HW_H
#define PMU_PV_HW_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/backend/pmu_events.h"
#include "pmu/hw/pmu_hw.h"
#include "pmu/pv/pmu_pv.h"

#define PV_HW_NONE (-1)

struct pv_hw {
    struct pmu_hw *hw;
    unsigned int count;                         /* counters programmed */
    uint64_t evtsel[VERTIGO_PV_COUNTERS_MAX];   /* on a GP counter */
    uint8_t fixed_field[VERTIGO_PV_COUNTERS_MAX];  /* on its fixed counter */
    int8_t fixed_index[VERTIGO_PV_COUNTERS_MAX];   /* -1: none counts it */
    bool gp_ok[VERTIGO_PV_COUNTERS_MAX];
    int at[VERTIGO_PV_COUNTERS_MAX];            /* GLOBAL_CTRL bit, PV_HW_NONE */
    uint64_t start[VERTIGO_PV_COUNTERS_MAX];    /* physical value at the load:
                                                   0, ~0 if its write faulted */
    uint64_t enable;                            /* GLOBAL_CTRL bits of the run */
    bool loaded;
    bool passthrough;                           /* RDPMC passes through this run */
    /* statistics */
    uint64_t runs;
    uint64_t counters_unplaced;                 /* counter-runs with no counter */
    uint64_t cleared;                           /* other counters zeroed for a
                                                   pass-through run */
};

/* Binds h to hw, with no counter programmed. */
void pv_hw_init(struct pv_hw *h, struct pmu_hw *hw);

/* VERTIGO_HC_PV_PROGRAM on this backend: programs pv (pmu_pv_program,
 * same refusals) and h with the events, which must all fit on the
 * physical counters outside busy (Vertigo's session's GLOBAL_CTRL bits):
 * else -VERTIGO_EBUSY, *why says which event, pv and h unchanged. Returns
 * the number of counters. */
int64_t pv_hw_program(struct pv_hw *h, struct pmu_pv *pv, const char *events,
                      const struct pmu_event_caps *caps, uint64_t busy, const char **why);

/* Before the VM entry: places the counters outside busy, loads them from
 * 0 (no write when a counter holds 0 already) and, with
 * passthrough_ok (no other user of RDPMC indices: the VCPU has no virtual
 * PMU) and busy 0, zeroes every other physical counter and sets
 * h->passthrough. Sets pv's rdpmc_how for the page (pmu_pv_publish):
 * RDPMC only in a pass-through run. Returns the
 * GLOBAL_CTRL bits the entry must add; a counter with no place this run
 * (Vertigo's session took its counter since the program) does not count
 * and is counted in counters_unplaced. */
uint64_t pv_hw_load(struct pv_hw *h, struct pmu_pv *pv, uint64_t busy, bool passthrough_ok);

/* After the VM exit stopped them: adds what each placed counter counted
 * to pv's count. Returns the GLOBAL_STATUS bits they own (none raise a
 * PMI; a wrap in one run would need 2^47 events). */
uint64_t pv_hw_save(struct pv_hw *h, struct pmu_pv *pv);

/* The RDPMC ECX of GLOBAL_CTRL bit `bit` (GP k: k; fixed j: 1 << 30 | j). */
uint32_t pv_hw_rdpmc_ecx(int bit);

#endif
