/* Prints the VMX capabilities (temporary raw form until vmx_caps lands). */
#include "vmx/vmx_report.h"

#include "boot/cpu.h"
#include "vmm/console.h"
#include "vmm/msr.h"

void vmx_report(void)
{
    uint64_t basic = rdmsr(MSR_IA32_VMX_BASIC);
    printk("vmx: VMCS revision %#lx, basic %#lx\n", basic & 0x7fffffff, basic);
}
