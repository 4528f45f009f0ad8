/* NMIs taken while Vertigo itself runs (root mode). The PMU
 * (vmm/pmu_hooks.h) takes Vertigo's own (PMIs: samples; kicks) and queues
 * the guest's for its VCPU; anything else is counted and reported. */
#include "boot/percpu.h"
#include "boot/traps.h"
#include "lib/console.h"
#include "vmm/pmu_hooks.h"
#include "vmm/vmx_hooks.h"

void nmi_handle(struct trap_frame *frame)
{
    struct percpu *pc = this_cpu();
    pc->nmi_count++;
    if (pmu_nmi_root(frame)) {
        vmx_nmi_root_vertigo();
        return;
    }
    printk("vertigo: CPU %u: NMI in the hypervisor at rip %#lx (%lu so far)\n",
           pc->cpu_index, frame->rip, pc->nmi_count);
}
