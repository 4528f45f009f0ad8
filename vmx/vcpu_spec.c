/* Speculation barriers and SPEC_CTRL at VCPU switches (see vcpu_spec.h).
 * The only file that executes VERW. */
#include "vmx/vcpu_spec.h"

#include "lib/cpu.h"
#include "boot/layout.h"
#include "lib/console.h"
#include "lib/msr.h"
#include "vmm/vcpu.h"

static uint64_t read_msr(uint32_t msr)
{
    return rdmsr(msr);
}

static void write_msr(uint32_t msr, uint64_t value)
{
    wrmsr(msr, value);
}

/* VERW of a writable data segment's selector: on a CPU that enumerates
 * MD_CLEAR it also overwrites the CPU's store, fill and load buffers
 * (the MDS mitigation Xen and KVM issue before entering a guest). */
static void clear_buffers(void)
{
    static const uint16_t selector = BOOT_DS64;
    __asm__ volatile("verw %0" : : "m"(selector) : "cc");
}

static const struct spec_ops ops = { read_msr, write_msr, clear_buffers };

static const char *yes_no(bool on)
{
    return on ? "on" : "off";
}

const struct spec_plan *vcpu_spec_plan(void)
{
    static struct spec_plan plan;
    static bool known;
    if (known)
        return &plan;
    uint32_t edx = cpuid(7, 0).edx;
    uint64_t caps = 0;
    if ((edx & SPEC_CPUID7_ARCH_CAPS) && rdmsr_safe(MSR_IA32_ARCH_CAPABILITIES, &caps) != 0)
        caps = 0;
    plan = spec_plan(edx, caps);
    known = true;
    printk("sched: between domains: IBPB %s, L1D flush %s, VERW %s, SPEC_CTRL per VCPU %s "
           "(CPUID 7 EDX %#x, ARCH_CAPABILITIES %#lx)\n", yes_no(plan.ibpb),
           yes_no(plan.l1d_flush), yes_no(plan.verw), yes_no(plan.spec_ctrl), edx, caps);
    return &plan;
}

void vcpu_spec_switch(struct vcpu *from, struct vcpu *to)
{
    spec_switch(vcpu_spec_plan(), &ops, &from->vmx.spec_ctrl, to->vmx.spec_ctrl,
                from->domain != to->domain);
}
