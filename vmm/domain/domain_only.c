/* A run without domain 0: only the domains declared with dom.N= (see
 * vmm/domain/domain_private.h), for instance one multiboot test kernel booted by
 * `vertigo run --multiboot`. No Linux guest owns the machine, so no AP is
 * started and every domain runs on CPU 0. */
#include "boot/run_end.h"
#include "lib/console.h"
#include "vmm/domain/domain.h"
#include "vmm/domain/domain_private.h"
#include "vmm/heap.h"
#include "vmm/vmx_hooks.h"

#define ONLY_CPUS 1u        /* CPU 0: no AP is started without domain 0 */

__attribute__((noreturn)) void domains_only_run(const struct boot_info *bi,
                                                struct page_allocator *pa)
{
    struct phys_range hidden[DOMAIN_MAX];
    size_t nhidden = 0;

    if (!heap_init(pa, HEAP_BYTES))
        run_end(RUN_FAIL, "too little memory for Vertigo's heap");
    domains_reserve(bi, ONLY_CPUS, pa, hidden, &nhidden);
    printk("vertigo: no domain 0: the declared domains run alone on CPU 0\n");
    if (!vmx_config_init() || !vmx_cpu_enable())
        run_end(RUN_FAIL, "VT-x set-up failed");
    domains_build(bi);
    struct vcpu *first = domains_first_vcpu(0);
    if (!first || !domains_running())
        run_end(RUN_FAIL, "no domain could start");
    vmx_vcpu_run(first, first->domain->vmx.boot_state);
}
