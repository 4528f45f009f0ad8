/* UK_SYS_PROBE: one privileged instruction from CPL 0 whose fault is
 * caught (uk_trap resumes at the label after it), for tests of what
 * Vertigo lets a hostile kernel do: 0, or minus the exception's vector. */
#include <errno.h>

#include "guestlib/unikernel/uk_kernel.h"

#define CR4_OSXSAVE (1ull << 18)
#define XCOMP_BV_COMPACTED (1ull << 63)
#define PT_COMPONENT (1ull << 8)    /* Intel PT's supervisor state */

volatile uint64_t uk_probe_resume, uk_probe_fault;

static int64_t result(void)
{
    return uk_probe_fault ? -(int64_t)(uk_probe_fault - 1) : 0;
}

static int64_t probe_wrmsr(uint32_t msr, uint64_t value)
{
    uk_probe_fault = 0;
    __asm__ volatile("leaq 1f(%%rip), %%r8\n\t"
                     "movq %%r8, uk_probe_resume(%%rip)\n\t"
                     "wrmsr\n"
                     "1:\n\t"
                     "movq $0, uk_probe_resume(%%rip)"
                     : : "c"(msr), "a"((uint32_t)value), "d"((uint32_t)(value >> 32))
                     : "r8", "memory");
    return result();
}

static int64_t probe_rdmsr(uint32_t msr)
{
    uint32_t lo = 0, hi = 0;
    uk_probe_fault = 0;
    __asm__ volatile("leaq 1f(%%rip), %%r8\n\t"
                     "movq %%r8, uk_probe_resume(%%rip)\n\t"
                     "rdmsr\n"
                     "1:\n\t"
                     "movq $0, uk_probe_resume(%%rip)"
                     : "+a"(lo), "+d"(hi) : "c"(msr) : "r8", "memory");
    return result();
}

/* An XSAVE area in the compacted form whose XSTATE_BV and XCOMP_BV name
 * only component 8: XRSTORS must #GP unless IA32_XSS enables it (SDM Vol.
 * 1 13.12), and Vertigo keeps XSS at 0. CR4.OSXSAVE is set around it
 * (XRSTORS #UDs without it). */
static int64_t probe_xrstors_pt(void)
{
    static uint64_t area[512] __attribute__((aligned(64)));
    uint64_t cr4, r;
    area[64] = PT_COMPONENT;                        /* XSTATE_BV at byte 512 */
    area[65] = XCOMP_BV_COMPACTED | PT_COMPONENT;   /* XCOMP_BV at byte 520 */
    __asm__ volatile("mov %%cr4, %0" : "=r"(cr4));
    __asm__ volatile("mov %0, %%cr4" : : "r"(cr4 | CR4_OSXSAVE));
    uk_probe_fault = 0;
    __asm__ volatile("leaq 1f(%%rip), %%r8\n\t"
                     "movq %%r8, uk_probe_resume(%%rip)\n\t"
                     "xrstors64 (%0)\n"
                     "1:\n\t"
                     "movq $0, uk_probe_resume(%%rip)"
                     : : "r"(area), "a"(~0u), "d"(~0u) : "r8", "memory");
    r = result();
    __asm__ volatile("mov %0, %%cr4" : : "r"(cr4));
    return r;
}

int64_t uk_probe(uint64_t kind, uint64_t a, uint64_t b)
{
    switch (kind) {
    case UK_PROBE_WRMSR:
        return probe_wrmsr((uint32_t)a, b);
    case UK_PROBE_RDMSR:
        return probe_rdmsr((uint32_t)a);
    case UK_PROBE_XRSTORS_PT:
        return probe_xrstors_pt();
    default:
        return -EINVAL;
    }
}
