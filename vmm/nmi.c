/* NMIs taken while Vertigo itself runs (root mode). Until a profiling
 * session owns them (PMU overflow), they are counted and reported. */
#include "boot/percpu.h"
#include "boot/traps.h"
#include "vmm/console.h"

void nmi_handle(struct trap_frame *frame)
{
    struct percpu *pc = this_cpu();
    pc->nmi_count++;
    printk("vertigo: CPU %u: NMI in the hypervisor at rip %#lx (%lu so far)\n",
           pc->cpu_index, frame->rip, pc->nmi_count);
}
