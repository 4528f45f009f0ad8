/* A VCPU's part of an interval multiplexing session (pmu/mux/,
 * pmu.interval= or the guest's), embedded in struct vcpu_pmu
 * (pmu/pmu_vcpu.h); the hardware backend's live set and clock are that
 * backend's part (pmu/hw/hw_vcpu.h). */
#ifndef PMU_MUX_MUX_VCPU_H
#define PMU_MUX_MUX_VCPU_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/mux/mux_row.h"
#include "vertigo/log_format.h"

struct mux_vcpu {
    bool on;
    struct mux_row_state rows;      /* the turns and rows (cfg: either backend's) */
    struct log_interval row;        /* the row being written (off the stack) */
    uint64_t written;               /* rows written */
    /* pmu.interval.exact=on: every event's count when the interval began,
     * and the exact counts' record being written */
    uint64_t exact_mark[MUX_ROW_EVENTS_MAX];
    struct log_swcounters exact;
};

#endif
