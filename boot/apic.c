/* Local APIC access for Vertigo's own IPIs and its PMI (see boot/apic.h). */
#include "boot/apic.h"

#include "lib/cpu.h"
#include "lib/msr.h"

#define ICR_DELIVERY_PENDING (1u << 12)
#define ICR_SPIN_LIMIT       1000000

uint64_t apic_mmio_base(void)
{
    return rdmsr(MSR_IA32_APIC_BASE) & APIC_BASE_ADDR_MASK;
}

bool apic_x2apic_mode(void)
{
    return (rdmsr(MSR_IA32_APIC_BASE) & APIC_BASE_X2APIC) != 0;
}

static volatile uint32_t *xapic_reg(uint32_t offset)
{
    return (volatile uint32_t *)(apic_mmio_base() + offset);
}

void apic_write_xapic(uint32_t offset, uint32_t value)
{
    *xapic_reg(offset) = value;
}

uint32_t apic_read_lvtpc(void)
{
    if (apic_x2apic_mode())
        return (uint32_t)rdmsr(MSR_IA32_X2APIC_LVT_PMI);
    return *xapic_reg(XAPIC_REG_LVT_PMI);
}

void apic_write_lvtpc(uint32_t value)
{
    if (apic_x2apic_mode())
        wrmsr(MSR_IA32_X2APIC_LVT_PMI, value);
    else
        *xapic_reg(XAPIC_REG_LVT_PMI) = value;
}

uint32_t apic_id(void)
{
    if (apic_x2apic_mode())
        return (uint32_t)rdmsr(X2APIC_MSR_OF(XAPIC_REG_ID));
    return *xapic_reg(XAPIC_REG_ID) >> 24;
}

static void wait_icr_idle(volatile uint32_t *regs)
{
    volatile uint32_t *icr_low = regs + XAPIC_REG_ICR_LOW / sizeof(uint32_t);
    for (int i = 0; i < ICR_SPIN_LIMIT && (*icr_low & ICR_DELIVERY_PENDING); i++)
        cpu_relax();
}

static void x2apic_send(uint32_t dest, uint32_t icr_low)
{
    wrmsr(MSR_IA32_X2APIC_ICR, ((uint64_t)dest << 32) | icr_low);
}

/* Waits (bounded) for the previous IPI to be accepted, then sends. */
static void xapic_send(volatile uint32_t *regs, uint32_t dest, uint32_t icr_low)
{
    wait_icr_idle(regs);
    regs[XAPIC_REG_ICR_HIGH / sizeof(uint32_t)] = dest << 24;
    regs[XAPIC_REG_ICR_LOW / sizeof(uint32_t)] = icr_low;
}

static volatile uint32_t *xapic_regs(uint64_t apic_base)
{
    return (volatile uint32_t *)(apic_base & APIC_BASE_ADDR_MASK);
}

void apic_send_ipi_shared(uint32_t dest, uint32_t icr_low)
{
    uint64_t base = rdmsr(MSR_IA32_APIC_BASE);
    if (base & APIC_BASE_X2APIC) {
        x2apic_send(dest, icr_low);
        return;
    }
    volatile uint32_t *regs = xapic_regs(base);
    uint32_t guest_high = regs[XAPIC_REG_ICR_HIGH / sizeof(uint32_t)];
    xapic_send(regs, dest, icr_low);
    wait_icr_idle(regs);
    regs[XAPIC_REG_ICR_HIGH / sizeof(uint32_t)] = guest_high;
}

void apic_send_ipi(uint32_t dest, uint32_t icr_low)
{
    uint64_t base = rdmsr(MSR_IA32_APIC_BASE);
    if (base & APIC_BASE_X2APIC)
        x2apic_send(dest, icr_low);
    else
        xapic_send(xapic_regs(base), dest, icr_low);
}
