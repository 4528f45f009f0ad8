/* Interval multiplexing on the hardware PMU: one VCPU's session driving
 * the architectural counters (pmu/hw/pmu_hw.c) through the schedule of
 * pmu/mux/mux_row.h.
 *
 * The clock. A turn ends after S retired guest instructions, counted by a
 * counter of its own, the clock: instructions retired at CPL 0 and CPL > 0
 * of the guest (:uk, the instructions an interval is made of on both
 * backends; never Vertigo's own, the clock is off in the host's
 * GLOBAL_CTRL). It is fixed counter 0 (INST_RETIRED.ANY) when the PMU has
 * it and neither a sampling session nor the guest's virtual PMU holds it,
 * else the highest-numbered free general-purpose counter with the
 * architectural event C0H/00H; the sets never use it. At the start of each
 * turn it is preloaded with -(instructions left in the turn), so it wraps,
 * sets its GLOBAL_STATUS bit and raises a PMI (PERFEVTSEL.INT /
 * FIXED_CTR_CTRL.PMI, SDM Vol. 3B 20.2.1-20.2.2) exactly at the turn's
 * end; the entry's DEBUGCTL.Freeze_PerfMon_On_PMI (20.2.4.1) stops every
 * counter there, so the instructions the guest retires between the PMI and
 * its NMI exit (the skid) count for no event and no interval.
 *
 * The turn's end, in the exit path with the counters stopped (the exit
 * loaded the host's GLOBAL_CTRL): the backend's `overflow` reads
 * GLOBAL_STATUS and clears Vertigo's bits and the freeze (OVF_CTRL /
 * STATUS_RESET), the clock's count says how many instructions the turn
 * ran, the leaving set's counts are read and kept, the next set is loaded
 * and the clock preloaded again; LVTPC is unmasked last, by the PMI path
 * (pmu/run/pmu_pmi.c), so an overflow after it raises its own PMI. A set
 * change writes only what changes: the event selects of general-purpose
 * counters whose event differs, FIXED_CTR_CTRL if the fixed counters'
 * use differs, the host's GLOBAL_CTRL if the :h events differ, and the
 * clock; a counting counter starts from whatever value it holds (its
 * count is the difference), so no counter value but the clock's is
 * written.
 *
 * Every event keeps a count that grows only during its set's turns (the
 * counts mux_row.h wants); instructions Vertigo emulates for the guest go
 * to the clock and the live set through the backend's
 * emulated_instruction, as for any session. Portable: tested on the
 * register-level model (tests/unit/test_mux_hw_run.c). */
#ifndef PMU_MUX_HW_H
#define PMU_MUX_HW_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/mux/mux_row.h"
#include "pmu/backend/pmu_ctx.h"
#include "pmu/hw/pmu_hw.h"

/* Counters someone else holds: a sampling session's, the guest's virtual
 * PMU's (bit i: GP counter i / fixed counter i). The session writes none
 * of their MSRs. */
struct mux_hw_held {
    uint32_t gp_mask;
    uint32_t fixed_mask;
};

/* Where the session's counters are: the clock, and for the sets the
 * counters left (plan GP index k is physical counter gp_map[k]). */
struct mux_hw_layout {
    struct pmu_event clock;
    struct mux_counters for_sets;
    uint8_t gp_map[PMU_MAX_GP];
};

enum mux_hw_err {
    MUX_HW_OK,
    MUX_HW_NO_CLOCK,        /* fixed counter 0 held or absent, and no free GP counter
                             * that counts instructions retired */
    MUX_HW_TURN_TOO_LONG,   /* a turn longer than the clock can count to its PMI */
};

/* Chooses the clock and the counters left for the sets on PMU d. */
enum mux_hw_err mux_hw_layout(const struct pmu_desc *d, const struct mux_hw_held *held,
                              struct mux_hw_layout *out);

/* The longest turn of cfg (the interval's last, which takes N mod S too)
 * fits the clock of hw: MUX_HW_OK or MUX_HW_TURN_TOO_LONG. */
enum mux_hw_err mux_hw_check_turns(const struct pmu_hw *hw, const struct mux_hw_layout *l,
                                   const struct mux_row_config *cfg);

const char *mux_hw_err_text(enum mux_hw_err err);

struct mux_hw {
    struct mux_row_state row;               /* the schedule's state */
    struct pmu_event placed[MUX_ROW_EVENTS_MAX]; /* counter events, on their counters */
    struct pmu_event clock;
    uint64_t acc[MUX_ROW_EVENTS_MAX];       /* counts of the turns before the live one */
    uint64_t clock_seen;                    /* the clock's count taken into row.done */
    unsigned int live;                      /* the set on the counters */
    struct pmu_ctx ctx;                     /* live set's events, then the clock */
    uint64_t rotations;                     /* set changes */
    uint64_t load_failures;                 /* turns whose set failed to load (#GP) */
};

/* Starts interval 0 at tsc (ctx loaded on this CPU, guest not running):
 * loads set 0 and the clock. counts: the software events' counts now
 * (indices of cfg, the others ignored). list: the session's events as
 * parsed; cfg was planned over layout l's for_sets. */
enum pmu_status mux_hw_begin(struct mux_hw *m, const struct mux_row_config *cfg,
                             const struct pmu_event_list *list, const struct mux_hw_layout *l,
                             const struct pmu_backend *be, const uint64_t *counts, uint64_t tsc);

/* After the guest ran, in the exit path (counters stopped): takes the
 * backend's overflows (GLOBAL_STATUS) and the clock's count; true if the
 * turn has ended: call mux_hw_turn (again while this is true). */
bool mux_hw_due(struct mux_hw *m, const struct pmu_backend *be);

/* Ends the turn at tsc: counts (in: the software events' counts; out:
 * every event's) to the schedule; loads the next set when no turn is due
 * any more. True if an interval ended: *row filled (domain and VCPU left
 * to the caller). */
bool mux_hw_turn(struct mux_hw *m, const struct pmu_backend *be, uint64_t *counts,
                 uint64_t tsc, struct log_interval *row);

/* The run ends: the unfinished interval's row, as mux_row_finish. */
bool mux_hw_finish(struct mux_hw *m, const struct pmu_backend *be, uint64_t *counts,
                   uint64_t tsc, struct log_interval *row);

/* Index of the clock in m->ctx. */
static inline unsigned int mux_hw_clock_index(const struct mux_hw *m)
{
    return m->ctx.count - 1;
}

#endif
