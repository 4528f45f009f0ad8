/* XSAVE state and XCR0 of VCPUs switched on a CPU (see vcpu_fpu.h). The
 * only file that executes XSAVE, XRSTOR and XGETBV. */
#include "vmx/vcpu_fpu.h"

#include "boot/cpu.h"
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

/* v's save area, holding the reset state when first allocated (zeroed:
 * the XSAVE header's bitmaps say every component is in its initial
 * state; the legacy fields that XRSTOR and FXRSTOR still load are set). */
static uint8_t *area_of(struct vcpu *v)
{
    if (!v->vmx.fpu_area) {
        uint64_t pa = heap_alloc_pages((area_bytes() + PAGE_SIZE - 1) / PAGE_SIZE);
        if (!pa)
            return NULL;
        uint8_t *a = (uint8_t *)(uintptr_t)pa;      /* the heap is identity-mapped */
        *(uint32_t *)(a + AREA_MXCSR) = MXCSR_RESET;
        *(uint16_t *)(a + AREA_FCW) = FCW_RESET;
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
    save(out);
    if (!has_xsave()) {
        restore(in);
        return true;
    }
    from->vmx.xcr0 = xgetbv0();
    /* Under both VCPUs' components (a union of two values the CPU took
     * is one it takes): to's are loaded and every other one from had is
     * initialized (XRSTOR faults on a component XCR0 lacks). */
    uint64_t both = from->vmx.xcr0 | to->vmx.xcr0;
    if (both != from->vmx.xcr0)
        xsetbv_safe(0, both);
    restore(in);
    if (both != to->vmx.xcr0)
        xsetbv_safe(0, to->vmx.xcr0);
    return true;
}
