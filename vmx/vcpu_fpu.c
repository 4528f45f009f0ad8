/* XSAVE state and XCR0 of VCPUs switched on a CPU (see vcpu_fpu.h). The
 * only file that executes XSAVE, XRSTOR and XGETBV. No supervisor state
 * component needs switching: IA32_XSS stays 0 in every domain (domain 0's
 * writes of anything else #GP, vmx/msr_guard.h; the other domains' too),
 * so XSAVE (not XSAVES) under XCR0 covers every component a VCPU can use. */
#include "vmx/vcpu_fpu.h"

#include "lib/cpu.h"
#include "lib/mem.h"
#include "vmm/heap.h"
#include "vmm/vcpu.h"

#define CPUID_1_ECX_XSAVE   (1u << 26)
#define XCR0_RESET          1ull            /* x87 only (SDM Vol. 1 13.3) */
#define AREA_MXCSR          24u             /* legacy area: MXCSR's offset */
#define AREA_FCW            0u              /* legacy area: FPU control word */
#define MXCSR_RESET         0x1f80u
#define FCW_RESET           0x037fu
#define LEGACY_AREA_BYTES   512u            /* FXSAVE's area */

static bool has_xsave(void)
{
    static int known = -1;
    if (known < 0)
        known = (cpuid(1, 0).ecx & CPUID_1_ECX_XSAVE) != 0;
    return known;
}

/* The largest XSAVE area the CPU's features need (CPUID 0xD.0 ECX). */
static uint32_t area_bytes(void)
{
    return has_xsave() ? cpuid(0xd, 0).ecx : LEGACY_AREA_BYTES;
}

/* Every XCR0 component the CPU supports (CPUID 0xD.0 EDX:EAX): with
 * all of them enabled XCR0 is valid. */
static uint64_t all_components(void)
{
    static uint64_t mask;
    if (!mask) {
        struct cpuid_regs r = cpuid(0xd, 0);
        mask = (uint64_t)r.edx << 32 | r.eax;
    }
    return mask;
}

static uint64_t xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (uint64_t)hi << 32 | lo;
}

/* Every component XCR0 enables (requested-feature bitmap all ones). */
static void save(void *area)
{
    if (has_xsave())
        __asm__ volatile("xsave64 (%0)" : : "r"(area), "a"(~0u), "d"(~0u) : "memory");
    else
        __asm__ volatile("fxsave64 (%0)" : : "r"(area) : "memory");
}

/* Components XCR0 enables that the area's header does not hold are
 * initialized, so none of the previous VCPU's values survive. */
static void restore(const void *area)
{
    if (has_xsave())
        __asm__ volatile("xrstor64 (%0)" : : "r"(area), "a"(~0u), "d"(~0u) : "memory");
    else
        __asm__ volatile("fxrstor64 (%0)" : : "r"(area) : "memory");
}

/* The state after reset in area a (zeroed: the XSAVE header's bitmaps
 * say every component is in its initial state; the legacy fields that
 * XRSTOR and FXRSTOR still load are set). */
static void reset_area(uint8_t *a)
{
    memset(a, 0, area_bytes());
    *(uint32_t *)(a + AREA_MXCSR) = MXCSR_RESET;
    *(uint16_t *)(a + AREA_FCW) = FCW_RESET;
}

/* v's save area, holding the reset state when first allocated. */
static uint8_t *area_of(struct vcpu *v)
{
    if (!v->vmx.fpu_area) {
        uint64_t pa = heap_alloc_pages((area_bytes() + PAGE_SIZE - 1) / PAGE_SIZE);
        if (!pa)
            return NULL;
        uint8_t *a = (uint8_t *)(uintptr_t)pa;      /* the heap is identity-mapped */
        reset_area(a);
        v->vmx.fpu_area = a;
        v->vmx.xcr0 = XCR0_RESET;
    }
    return v->vmx.fpu_area;
}

bool vcpu_fpu_switch(struct vcpu *from, struct vcpu *to)
{
    uint8_t *out = area_of(from), *in = area_of(to);
    if (!out || !in)
        return false;
    if (!has_xsave()) {
        save(out);
        restore(in);
        return true;
    }
    /* Saved and loaded under every component the CPU has: XSAVE writes
     * only what XCR0 enables (a guest with XCR0 = 1 may still use SSE
     * with CR4.OSFXSR) and XRSTOR faults on a saved component XCR0 lacks.
     * Each switch leaves every component to's or initialized, so the
     * ones a VCPU's own XCR0 disables never hold another domain's. */
    from->vmx.xcr0 = xgetbv0();
    if (from->vmx.xcr0 != all_components())
        xsetbv_safe(0, all_components());
    save(out);
    restore(in);
    if (to->vmx.xcr0 != all_components())
        xsetbv_safe(0, to->vmx.xcr0);       /* a value the CPU took from to's XSETBV */
    return true;
}

bool vcpu_fpu_reset(struct vcpu *v)
{
    uint8_t *a = area_of(v);
    if (!a)
        return false;
    reset_area(a);
    if (has_xsave() && xgetbv0() != all_components())
        xsetbv_safe(0, all_components());   /* XRSTOR initializes every component */
    restore(a);
    if (has_xsave())
        xsetbv_safe(0, XCR0_RESET);
    v->vmx.xcr0 = XCR0_RESET;
    return true;
}
