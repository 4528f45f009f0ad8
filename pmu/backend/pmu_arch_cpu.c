/* The arch hooks of the PMU policy (pmu/pmu_arch.h) that the CPU itself
 * implements, outside VT-x: the PMU MSRs and LVTPC (boot/apic.c), the
 * self-NMI, this CPU's index, APIC ID, TSC and single-step area, EFLAGS.TF,
 * and walking Vertigo's own stack. No policy here. */
#include "pmu/pmu_arch.h"

#include "boot/apic.h"
#include "lib/cpu.h"
#include "boot/percpu.h"
#include "vmm/guest/guest_stack.h"
#include "lib/mem.h"
#include "lib/msr.h"

#define CPUID_1_ECX_PDCM (1u << 15)    /* IA32_PERF_CAPABILITIES exists */

/* ---- PMU MSRs and LVTPC ------------------------------------------------- */

uint64_t pmu_arch_perf_capabilities(void)
{
    uint64_t value = 0;
    if (!(cpuid(1, 0).ecx & CPUID_1_ECX_PDCM) ||
        rdmsr_safe(MSR_IA32_PERF_CAPABILITIES, &value))
        return 0;
    return value;
}

static int msr_read(void *ctx, uint32_t msr, uint64_t *value)
{
    (void)ctx;
    return rdmsr_safe(msr, value);
}

static int msr_write(void *ctx, uint32_t msr, uint64_t value)
{
    (void)ctx;
    return wrmsr_safe(msr, value);
}

const struct pmu_msr_ops *pmu_arch_msr(void)
{
    static const struct pmu_msr_ops msr_ops = { msr_read, msr_write, NULL };
    return &msr_ops;
}

static uint32_t lvtpc_read(void *ctx)
{
    (void)ctx;
    return apic_read_lvtpc();
}

static void lvtpc_write(void *ctx, uint32_t value)
{
    (void)ctx;
    apic_write_lvtpc(value);
}

const struct pmu_lvtpc_ops *pmu_arch_lvtpc(void)
{
    static const struct pmu_lvtpc_ops lvtpc_ops = { lvtpc_read, lvtpc_write, NULL };
    return &lvtpc_ops;
}

/* The guest owns the xAPIC's ICR-high (its writes are forwarded one by one,
 * vmx/apic_guard.c): the shared sender restores it around the NMI. */
void pmu_arch_send_nmi(uint32_t apic_id)
{
    apic_send_ipi_shared(apic_id, APIC_ICR_NMI | APIC_ICR_LEVEL_ASSERT);
}

/* ---- This CPU ----------------------------------------------------------- */

unsigned int pmu_arch_cpu_index(void)
{
    return this_cpu()->cpu_index;
}

uint32_t pmu_arch_apic_id(void)
{
    return apic_id();
}

uint64_t pmu_arch_tsc(void)
{
    return rdtsc();
}

struct percpu_step *pmu_arch_this_step_area(void)
{
    return &this_cpu()->step;
}

struct percpu_step *pmu_arch_step_area(unsigned int cpu)
{
    return &percpu_of(cpu)->step;
}

void pmu_arch_single_step(bool on)
{
    uint64_t tf = 1ull << RFLAGS_TF_BIT;
    uint64_t flags = read_rflags();
    flags = on ? flags | tf : flags & ~tf;
    __asm__ volatile("pushq %0; popfq" : : "r"(flags) : "memory", "cc");
}

extern char __image_start[], __image_end[];

/* Vertigo's own memory, for walking its frame-pointer chain: only pages
 * inside its image (stacks are in .bss; the image's ends are page-aligned,
 * linker.ld), read directly. */
static const uint8_t *image_page(void *ctx, uint64_t page)
{
    (void)ctx;
    uint64_t lo = (uint64_t)__image_start, hi = (uint64_t)__image_end;
    return page >= lo && page < hi ? (const uint8_t *)page : NULL;
}

unsigned int pmu_arch_hypervisor_stack(uint64_t rbp, unsigned int depth, uint64_t *out)
{
    struct guest_reader rd;
    guest_reader_init(&rd, image_page, NULL);
    return guest_stack_walk_own(rbp, depth, &rd, out);
}
