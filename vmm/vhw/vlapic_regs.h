/* The virtual APIC's register operations in x2APIC form, shared by the MSR
 * interface (vmm/vhw/vlapic.c) and the xAPIC page (vmm/vhw/vlapic_xapic.c), which
 * maps each page offset to its MSR (0x800 + offset / 16). Internal to the
 * virtual APIC's files; callers outside use vmm/vhw/vlapic.h. */
#ifndef VMM_VLAPIC_REGS_H
#define VMM_VLAPIC_REGS_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/vhw/vlapic.h"

/* Bits a write may set in each LVT entry. */
extern const uint32_t vlapic_lvt_writable[VLAPIC_LVT_COUNT];

/* The register at x2APIC MSR `msr`, x2APIC semantics; false if none. */
bool vlapic_read_register(struct vlapic *a, uint32_t msr, uint64_t now_tsc, uint64_t *value);

/* A write with x2APIC semantics (VLAPIC_GP for reserved bits). */
enum vlapic_status vlapic_write_register(struct vlapic *a, uint32_t msr, uint64_t value,
                                         uint64_t now_tsc);

/* Sends the IPI an ICR value (x2APIC layout: destination in 63:32) asks
 * for: delivered here if to itself, else handed to the caller. */
enum vlapic_status vlapic_send_ipi(struct vlapic *a, uint64_t icr);

#endif
