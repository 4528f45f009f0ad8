/* The virtual APIC timer (SDM Vol. 3A 11.5.4): one-shot, periodic and
 * TSC-deadline modes computed from the guest TSC. Used by vmm/vhw/vlapic.c;
 * callers outside use vlapic.h (vlapic_timer_advance, vlapic_next_deadline). */
#ifndef VMM_VLAPIC_TIMER_H
#define VMM_VLAPIC_TIMER_H

#include "vmm/vhw/vlapic.h"

/* The divider the divide configuration register selects (1..128). */
uint32_t vlapic_timer_divider(uint32_t dcr);

/* A write of the LVT timer entry (already checked): a change between
 * TSC-deadline and the count modes disarms the timer. */
void vlapic_timer_set_lvt(struct vlapic *a, uint32_t lvt);

/* Initial count written: (re)starts the count, 0 stops it; ignored in
 * TSC-deadline mode. */
void vlapic_timer_set_initial(struct vlapic *a, uint32_t count, uint64_t now_tsc);

/* Divide configuration written (already checked). */
void vlapic_timer_set_divide(struct vlapic *a, uint32_t dcr, uint64_t now_tsc);

/* The current count register at `now_tsc` (0 in TSC-deadline mode). */
uint32_t vlapic_timer_current(const struct vlapic *a, uint64_t now_tsc);

/* IA32_TSC_DEADLINE written: arms (non-zero) or disarms (0) the timer in
 * TSC-deadline mode; ignored in the other modes. */
void vlapic_timer_set_deadline(struct vlapic *a, uint64_t deadline_tsc);

/* IA32_TSC_DEADLINE read: 0 outside TSC-deadline mode. */
uint64_t vlapic_timer_get_deadline(const struct vlapic *a);

#endif
