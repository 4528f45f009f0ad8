/* The virtual APIC's modes and its xAPIC page (see vmm/vhw/vlapic.h): the
 * IA32_APIC_BASE transitions of SDM Vol. 3A 11.12.5 and the memory-mapped
 * registers of table 11-1, each mapped to its x2APIC register (11.12.1.2)
 * except where xAPIC mode differs: the ID and logical destination are
 * writable bytes in bits 31:24, the destination format register exists,
 * the ICR is two dwords (the destination in the high one's bits 31:24, the
 * low one's write sends), and writes never #GP: reserved bits and
 * read-only registers are ignored. */
#include "vmm/vhw/vlapic.h"
#include "vmm/vhw/vlapic_regs.h"

#define PAGE_MASK        0xfffull
#define BASE_FLAGS       (VLAPIC_BASE_BSP | VLAPIC_BASE_EXTD | VLAPIC_BASE_EN)
#define REG_ID           0x020u
#define REG_VERSION      0x030u
#define REG_TPR          0x080u
#define REG_APR          0x090u
#define REG_EOI          0x0b0u
#define REG_LDR          0x0d0u
#define REG_DFR          0x0e0u
#define REG_SVR          0x0f0u
#define REG_ESR          0x280u
#define REG_ICR_LOW      0x300u
#define REG_ICR_HIGH     0x310u
#define REG_LVT_TIMER    0x320u
#define REG_LVT_ERROR    0x370u
#define REG_TIMER_ICR    0x380u
#define REG_TIMER_DCR    0x3e0u
#define REG_LAST         0x3f0u
#define SVR_WRITABLE     0x3ffu             /* vector, enable, focus check */
#define DFR_WRITABLE     0xf0000000u
#define ICR_LOW_WRITABLE 0x000ccfffu        /* vector, mode, dest mode, level, trigger, shorthand */
#define DCR_WRITABLE     0xbu

void vlapic_init_xapic(struct vlapic *a, uint32_t apic_id, bool bsp, uint64_t tsc_per_tick)
{
    vlapic_init(a, apic_id, bsp, tsc_per_tick);
    a->apic_base &= ~VLAPIC_BASE_EXTD;
}

enum vlapic_mode vlapic_mode(const struct vlapic *a)
{
    if (!(a->apic_base & VLAPIC_BASE_EN))
        return VLAPIC_MODE_DISABLED;
    return (a->apic_base & VLAPIC_BASE_EXTD) ? VLAPIC_MODE_X2APIC : VLAPIC_MODE_XAPIC;
}

uint64_t vlapic_mmio_base(const struct vlapic *a)
{
    return a->apic_base & ~PAGE_MASK;
}

/* ---- IA32_APIC_BASE ---- */

static enum vlapic_mode mode_of(uint64_t base)
{
    if (!(base & VLAPIC_BASE_EN))
        return VLAPIC_MODE_DISABLED;
    return (base & VLAPIC_BASE_EXTD) ? VLAPIC_MODE_X2APIC : VLAPIC_MODE_XAPIC;
}

enum vlapic_status vlapic_write_apic_base(struct vlapic *a, uint64_t value)
{
    uint64_t address = ~PAGE_MASK & ((1ull << a->phys_bits) - 1);
    enum vlapic_mode from = vlapic_mode(a), to = mode_of(value);
    bool invalid = (value & VLAPIC_BASE_EXTD) && !(value & VLAPIC_BASE_EN);

    if ((value & ~(address | BASE_FLAGS)) || invalid ||
        (value & VLAPIC_BASE_BSP) != (a->apic_base & VLAPIC_BASE_BSP) ||
        (from == VLAPIC_MODE_X2APIC && to == VLAPIC_MODE_XAPIC) ||
        (from == VLAPIC_MODE_DISABLED && to == VLAPIC_MODE_X2APIC) ||
        (to == VLAPIC_MODE_X2APIC && a->no_x2apic))   /* EXTD reserved (SDM Vol. 3A 11.12.1) */
        return VLAPIC_GP;
    if (from == VLAPIC_MODE_DISABLED && to == VLAPIC_MODE_XAPIC) {
        /* Enabled again: the ID is the initial one (as KVM resets it). */
        a->xapic_id = (uint8_t)a->id;
    }
    a->apic_base = value;
    return VLAPIC_OK;
}

/* ---- the page ---- */

static uint32_t msr_of(uint32_t offset)
{
    return 0x800u + offset / 16;
}

uint32_t vlapic_mmio_read(struct vlapic *a, uint32_t offset, uint64_t now_tsc)
{
    uint64_t value = 0;
    if (offset & 0xf)
        return 0;
    vlapic_timer_advance(a, now_tsc);
    switch (offset) {
    case REG_ID:       return (uint32_t)a->xapic_id << 24;
    case REG_LDR:      return a->xapic_ldr;
    case REG_DFR:      return a->xapic_dfr;
    case REG_APR:      return 0;
    case REG_ICR_LOW:  return (uint32_t)a->icr;
    case REG_ICR_HIGH: return a->xapic_icr_high;
    default:
        break;
    }
    if (offset > REG_LAST || !vlapic_read_register(a, msr_of(offset), now_tsc, &value))
        return 0;
    return (uint32_t)value;
}

/* ICR low written: the IPI in x2APIC layout with the high dword's 8-bit
 * destination (vlapic_ipi_hits reads it in xAPIC mode's format). */
static enum vlapic_status write_icr(struct vlapic *a, uint32_t low)
{
    uint64_t icr = low & ICR_LOW_WRITABLE;
    a->icr = icr;
    return vlapic_send_ipi(a, icr | (uint64_t)(a->xapic_icr_high >> 24) << 32);
}

/* The bits of `value` a register takes, for the shared x2APIC write. */
static uint32_t writable_part(uint32_t offset, uint32_t value)
{
    if (offset >= REG_LVT_TIMER && offset <= REG_LVT_ERROR)
        return value & vlapic_lvt_writable[(offset - REG_LVT_TIMER) / 16];
    switch (offset) {
    case REG_TPR:       return value & 0xffu;
    case REG_SVR:       return value & SVR_WRITABLE;
    case REG_TIMER_DCR: return value & DCR_WRITABLE;
    case REG_EOI:
    case REG_ESR:       return 0;
    default:            return value;
    }
}

enum vlapic_status vlapic_mmio_write(struct vlapic *a, uint32_t offset, uint32_t value,
                                     uint64_t now_tsc)
{
    if (offset & 0xf)
        return VLAPIC_OK;
    vlapic_timer_advance(a, now_tsc);
    switch (offset) {
    case REG_ID:       a->xapic_id = (uint8_t)(value >> 24); return VLAPIC_OK;
    case REG_LDR:      a->xapic_ldr = value & 0xff000000u; return VLAPIC_OK;
    case REG_DFR:      a->xapic_dfr = (value & DFR_WRITABLE) | ~DFR_WRITABLE; return VLAPIC_OK;
    case REG_ICR_HIGH: a->xapic_icr_high = value & 0xff000000u; return VLAPIC_OK;
    case REG_ICR_LOW:  return write_icr(a, value);
    case REG_VERSION:
        return VLAPIC_OK;
    default:
        break;
    }
    bool shared = offset == REG_TPR || offset == REG_EOI || offset == REG_SVR ||
                  offset == REG_ESR || offset == REG_TIMER_ICR || offset == REG_TIMER_DCR ||
                  (offset >= REG_LVT_TIMER && offset <= REG_LVT_ERROR);
    if (!shared)
        return VLAPIC_OK;           /* read-only or reserved: ignored */
    enum vlapic_status st = vlapic_write_register(a, msr_of(offset), writable_part(offset, value),
                                                  now_tsc);
    return st == VLAPIC_GP ? VLAPIC_OK : st;
}
