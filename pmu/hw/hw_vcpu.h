/* A VCPU's part of the hardware backend: where each feature's counters
 * sit on the hardware PMU while it runs (the guest's virtual PMU, the
 * paravirtual counters, an interval multiplexing session's live set and
 * clock), kept in struct vcpu_pmu's opaque backend bytes (pmu/pmu_vcpu.h),
 * which only this room opens, through hw_vcpu_of. The software backend
 * needs none. */
#ifndef PMU_HW_HW_VCPU_H
#define PMU_HW_HW_VCPU_H

#include "pmu/hw/mux_hw.h"
#include "pmu/hw/pv_hw.h"
#include "pmu/hw/vpmu_hw.h"
#include "pmu/pmu_vcpu.h"

/* may_alias: the bytes are declared as unsigned char; accesses through
 * this type must not be reordered by type-based alias analysis. */
struct __attribute__((may_alias)) hw_vcpu {
    struct vpmu_hw vpmu;            /* the guest's virtual PMU's counters */
    struct pv_hw pv;                /* the paravirtual counters */
    struct mux_hw mux;              /* the multiplexing session's set and clock */
};

_Static_assert(sizeof(struct hw_vcpu) <= PMU_VCPU_BACKEND_BYTES,
               "struct hw_vcpu fits in struct vcpu_pmu's backend bytes");
_Static_assert(_Alignof(struct hw_vcpu) <= 16, "and is aligned by them");

static inline struct hw_vcpu *hw_vcpu_of(struct vcpu_pmu *p)
{
    return (struct hw_vcpu *)(void *)p->backend.bytes;
}

static inline const struct hw_vcpu *hw_vcpu_const(const struct vcpu_pmu *p)
{
    return (const struct hw_vcpu *)(const void *)p->backend.bytes;
}

#endif
