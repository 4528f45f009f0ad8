/* INIT/SIPI emulation for a guest's APs (see vmm/domain/smp_guest.h). */
#include "vmm/domain/smp_guest.h"

#include "lib/cpu.h"
#include "lib/console.h"
#include "vmm/domain/domain.h"
#include "vmm/domain/domain_config.h"
#include "vmm/domain/domain_private.h"
#include "lib/mem.h"
#include "boot/start.h"
#include "vmm/vmx_hooks.h"

enum ap_state {
    AP_IDLE,            /* not INITed */
    AP_WAIT_SIPI,       /* the guest sent INIT */
    AP_STARTING,        /* the guest sent SIPI: enter it */
    AP_RUNNING,
};

static struct vcpu *domain0_ap[MAX_CPUS];      /* domain 0's AP of each CPU */
static struct linux_boot_state ap_start[DOMAIN_MAX][MAX_CPUS];  /* by domain and VCPU */

void vcpu_ap_assign(struct vcpu *v)
{
    domain0_ap[v->cpu] = v;
}

void vcpu_sipi_state(uint8_t vector, struct linux_boot_state *st)
{
    static const struct linux_boot_segment data = { 0, 0, 0xffff, 0x93 };
    memset(st, 0, sizeof(*st));
    st->cs = (struct linux_boot_segment){ (uint16_t)(vector << 8), (uint64_t)vector << 12,
                                          0xffff, 0x9b };
    st->ds = st->es = st->ss = st->fs = st->gs = data;
    st->tr = (struct linux_boot_segment){ 0, 0, 0xffff, 0x8b };
    st->ldtr = (struct linux_boot_segment){ 0, 0, 0xffff, 0x10082 };  /* unusable */
    st->gdt_limit = 0xffff;
    st->idt_limit = 0xffff;
    st->cr0 = CR0_ET;
    st->rflags = 0x2;
}

static struct vcpu *vcpu_by_apic(struct domain *d, uint32_t apic_id)
{
    for (unsigned int i = 0; i < d->vcpu_count; i++)
        if (d->vcpus[i].apic_id == apic_id)
            return &d->vcpus[i];
    return NULL;
}

void vcpu_signal_init(struct domain *d, uint32_t apic_id)
{
    struct vcpu *v = vcpu_by_apic(d, apic_id);
    uint32_t idle = AP_IDLE;
    if (v && v->id != 0)
        __atomic_compare_exchange_n(&v->sipi_state, &idle, AP_WAIT_SIPI, false,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

void vcpu_signal_sipi(struct domain *d, uint32_t apic_id, uint8_t vector)
{
    struct vcpu *v = vcpu_by_apic(d, apic_id);
    if (!v || v->id == 0 || __atomic_load_n(&v->sipi_state, __ATOMIC_ACQUIRE) != AP_WAIT_SIPI)
        return;     /* a second SIPI, or one without INIT: ignored like hardware */
    v->sipi_vector = vector;
    __atomic_store_n(&v->sipi_state, AP_STARTING, __ATOMIC_RELEASE);
}

static bool domains_may_run;

void vcpu_aps_may_run_domains(void)
{
    __atomic_store_n(&domains_may_run, true, __ATOMIC_RELEASE);
}

bool vcpu_sipi_take(struct vcpu *v)
{
    if (!v->waits_for_sipi || __atomic_load_n(&v->sipi_state, __ATOMIC_ACQUIRE) != AP_STARTING)
        return false;
    v->sipi_state = AP_RUNNING;
    vcpu_sipi_state(v->sipi_vector, &ap_start[v->domain->id % DOMAIN_MAX][v->id % MAX_CPUS]);
    v->waits_for_sipi = false;
    if (v->domain->id)
        printk("smp: CPU %u starts domain %u VCPU %u at %#x:0000 (SIPI vector %#x)\n", v->cpu,
               v->domain->id, v->id, v->sipi_vector << 8, v->sipi_vector);
    else
        printk("smp: CPU %u starts VCPU %u at %#x:0000 (SIPI vector %#x)\n", v->cpu, v->id,
               v->sipi_vector << 8, v->sipi_vector);
    return true;
}

const struct linux_boot_state *vcpu_ap_start_state(const struct vcpu *v)
{
    return &ap_start[v->domain->id % DOMAIN_MAX][v->id % MAX_CPUS];
}

/* A VCPU of another domain this CPU may start now, once they may run. */
static struct vcpu *other_domain(unsigned int cpu)
{
    if (!__atomic_load_n(&domains_may_run, __ATOMIC_ACQUIRE))
        return NULL;
    return domains_first_vcpu(cpu);
}

__attribute__((noreturn)) void vcpu_ap_idle(unsigned int cpu)
{
    struct vcpu *v = NULL;

    while (!(domain0_ap[cpu] && vcpu_sipi_take(v = domain0_ap[cpu])) &&
           !(v = other_domain(cpu)))
        cpu_relax();
    if (!vmx_cpu_enable())
        domain_end(v->domain, GUEST_END_ERROR, "VMXON failed on an AP");
    vmx_vcpu_run(v, v->id ? vcpu_ap_start_state(v) : v->domain->vmx.boot_state);
}
