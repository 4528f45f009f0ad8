/* VMX detection and IA32_FEATURE_CONTROL handling. */
#include "vmx/vmx_detect.h"

#include "lib/cpu.h"
#include "lib/console.h"
#include "lib/mem.h"
#include "lib/msr.h"

const char *vmx_availability_text(enum vmx_availability a)
{
    switch (a) {
    case VMX_USABLE:
        return "VMX is available";
    case VMX_NOT_INTEL:
        return "this is not an Intel CPU (no VT-x; AMD SVM is not supported)";
    case VMX_NO_CPUID_BIT:
        return "CPUID.1:ECX.VMX[bit 5] is 0: the CPU offers no VMX";
    case VMX_DISABLED_BY_FIRMWARE:
        return "IA32_FEATURE_CONTROL is locked with VMX disabled: enable "
               "VT-x in the firmware set-up";
    }
    return "unknown";
}

static bool vendor_is_intel(void)
{
    struct cpuid_regs r = cpuid(0, 0);
    return r.ebx == 0x756e6547 && r.edx == 0x49656e69 && r.ecx == 0x6c65746e;
}

static void describe_feature_control(uint64_t fc)
{
    printk("vmx: available, IA32_FEATURE_CONTROL=%#lx (%s, VMX outside SMX %s, "
           "VMX inside SMX %s)\n", fc,
           (fc & FEATURE_CONTROL_LOCKED) ? "locked" : "unlocked",
           (fc & FEATURE_CONTROL_VMX_OUTSIDE_SMX) ? "enabled" : "disabled",
           (fc & FEATURE_CONTROL_VMX_IN_SMX) ? "enabled" : "disabled");
}

enum vmx_availability vmx_detect(void)
{
    bool intel = vendor_is_intel();
    bool has_vmx = (cpuid(1, 0).ecx & CPUID_1_ECX_VMX) != 0;

    if (!has_vmx) {
        printk("vmx: not available: %s\n",
               intel ? vmx_availability_text(VMX_NO_CPUID_BIT)
                     : vmx_availability_text(VMX_NOT_INTEL));
        return intel ? VMX_NO_CPUID_BIT : VMX_NOT_INTEL;
    }
    uint64_t fc = rdmsr(MSR_IA32_FEATURE_CONTROL);
    if (!(fc & FEATURE_CONTROL_LOCKED)) {
        /* Unlocked: enable VMX outside SMX and lock, as firmware would. */
        fc |= FEATURE_CONTROL_VMX_OUTSIDE_SMX | FEATURE_CONTROL_LOCKED;
        wrmsr(MSR_IA32_FEATURE_CONTROL, fc);
        fc = rdmsr(MSR_IA32_FEATURE_CONTROL);
    }
    describe_feature_control(fc);
    if (!(fc & FEATURE_CONTROL_VMX_OUTSIDE_SMX))
        return VMX_DISABLED_BY_FIRMWARE;
    return VMX_USABLE;
}
