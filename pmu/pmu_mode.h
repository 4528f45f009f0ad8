/* The mode a guest privilege level counts in, for every part of pmu/ that
 * keeps per-mode state (the software backend's counters, the guest's
 * virtual PMU clock). Portable. */
#ifndef PMU_PMU_MODE_H
#define PMU_PMU_MODE_H

/* 0 for the kernel (CPL 0), 1 for user mode (CPL 1 to 3). A CPL is the
 * DPL of the guest's SS, two bits (SDM Vol. 3A 5.5), so (cpl + 3) / 4
 * gives it in two instructions where a comparison takes three. An entry
 * asks it of the backend and of the guest's clock for the same CPL: one
 * expression, so the compiler computes it once. */
static inline unsigned int pmu_mode_of_cpl(unsigned int cpl)
{
    return (cpl + 3) >> 2;
}

#endif
