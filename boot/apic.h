/* The local APIC as Vertigo itself uses it: its ID, sending IPIs (SDM
 * Vol. 3A, 12.6 "Issuing Interprocessor Interrupts") and the LVT
 * performance-counter register that delivers the hardware PMU's PMI
 * (Vol. 3A 11.5.1), in xAPIC or x2APIC mode, whichever is enabled. */
#ifndef BOOT_APIC_H
#define BOOT_APIC_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/msr.h"

#define APIC_ICR_INIT        0x00000500u
#define APIC_ICR_STARTUP     0x00000600u
#define APIC_ICR_NMI         0x00000400u
#define APIC_ICR_LEVEL_ASSERT 0x00004000u
#define APIC_ICR_DELIVERY_MODE(icr) (((icr) >> 8) & 7u)
#define APIC_ICR_SHORTHAND(icr)     (((icr) >> 18) & 3u)
#define APIC_DM_FIXED   0
#define APIC_DM_NMI     4
#define APIC_DM_INIT    5
#define APIC_DM_STARTUP 6
#define APIC_SHORTHAND_NONE        0
#define APIC_SHORTHAND_SELF        1
#define APIC_SHORTHAND_ALL         2
#define APIC_SHORTHAND_ALL_BUT_SELF 3

#define XAPIC_REG_ID       0x020
#define XAPIC_REG_ICR_LOW  0x300
#define XAPIC_REG_ICR_HIGH 0x310
#define XAPIC_REG_SVR      0x0f0    /* spurious-interrupt vector register */
#define XAPIC_REG_LVT_PMI  0x340    /* LVT performance-counter register */
/* x2APIC MSR of xAPIC register `offset` (SDM Vol. 3A 11.12.1.2). */
#define X2APIC_MSR_OF(offset) (MSR_IA32_X2APIC_FIRST + ((offset) >> 4))

/* Physical base of the xAPIC register page (IA32_APIC_BASE). */
uint64_t apic_mmio_base(void);

bool apic_x2apic_mode(void);

/* This CPU's APIC ID. */
uint32_t apic_id(void);

/* Sends an IPI with ICR low bits `icr_low` to physical APIC `dest`, after
 * waiting (bounded) for the previous one to be accepted. */
void apic_send_ipi(uint32_t dest, uint32_t icr_low);

/* apic_send_ipi for a sender that shares the xAPIC with a guest (Vertigo's
 * PMI and kicks, pmu/run/pmu_pmi.c): ICR-high is the guest's, which may be
 * between writing ICR-high and ICR-low, so in xAPIC mode it waits (bounded)
 * for the delivery and puts the guest's ICR-high back. One read of
 * IA32_APIC_BASE: it runs at every software-PMU sample. */
void apic_send_ipi_shared(uint32_t dest, uint32_t icr_low);

/* Writes a 32-bit xAPIC register (used to forward a guest's write). */
void apic_write_xapic(uint32_t offset, uint32_t value);

/* This CPU's LVT performance-counter register (xAPIC MMIO 0x340 or x2APIC
 * MSR 0x834, by the current mode). NMI-safe: no locks, no waiting. */
uint32_t apic_read_lvtpc(void);
void apic_write_lvtpc(uint32_t value);

#endif
